/* @ts-self-types="./index.d.ts" */
// Node.js >= 20 (ESM).
import { readFileSync } from "node:fs";
import { initSync } from "./agentmem.js";
import { nodeHttpFetch } from "./node-http.js";
import { platform } from "./platform.js";

initSync({ module: readFileSync(new URL("./agentmem_bg.wasm", import.meta.url)) });
platform.fetch = nodeHttpFetch;

export * from "./api.js";
