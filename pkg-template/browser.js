/* @ts-self-types="./index.d.ts" */
// Browsers and bundlers: the .wasm is fetched relative to this module.
import init from "./agentmem.js";

await init({ module_or_path: new URL("./agentmem_bg.wasm", import.meta.url) });

export * from "./api.js";
