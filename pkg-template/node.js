/* @ts-self-types="./index.d.ts" */
// Node.js >= 20 (ESM).
import { readFileSync } from "node:fs";
import { initSync } from "./agentmem.js";

initSync({ module: readFileSync(new URL("./agentmem_bg.wasm", import.meta.url)) });

export * from "./api.js";
