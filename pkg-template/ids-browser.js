/* @ts-self-types="./ids.d.ts" */
// @ts-check
// agentmem-supabase/ids for browsers and bundlers: only the small id module is fetched, relative
// to this file, never agentmem_bg.wasm.
import init from "./agentmem_ids.js";

await init({ module_or_path: new URL("./agentmem_ids_bg.wasm", import.meta.url) });

export * from "./ids.js";
