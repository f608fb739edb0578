/* @ts-self-types="./ids.d.ts" */
// @ts-check
// agentmem-supabase/ids for Node.js >= 20 (ESM): only the small id module, never agentmem_bg.wasm.
import { readFileSync } from "node:fs";
import { initSync } from "./agentmem_ids.js";

initSync({ module: readFileSync(new URL("./agentmem_ids_bg.wasm", import.meta.url)) });

export * from "./ids.js";
