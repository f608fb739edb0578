/* @ts-self-types="./index.d.ts" */
// @ts-check
// Node.js >= 20 (ESM).
import { readFileSync } from "node:fs";
import { initSync } from "./agentmem.js";
import { nodeHttpFetch } from "./node-http.js";
import { platform } from "./platform.js";
import { loadFailed, loadOnFirstUse } from "./wasm.js";

const wasmUrl = new URL("./agentmem_bg.wasm", import.meta.url);
const where = wasmUrl.protocol === "file:" ? decodeURIComponent(wasmUrl.pathname) : wasmUrl.href;
const how = "agentmem_bg.wasm must sit next to node.js; when a bundler inlines the package, copy " +
  "node_modules/<package>/agentmem_bg.wasm next to the bundle";
/** @type {Uint8Array | undefined} */
let bytes;
try {
  bytes = readFileSync(wasmUrl);
} catch (e) {
  throw loadFailed(where, e, how);
}
// Compiled on the first call into the module, not at import.
loadOnFirstUse(() => {
  try {
    initSync({ module: bytes });
  } catch (e) {
    throw loadFailed(where, e, how);
  }
  bytes = undefined;
});
platform.fetch = nodeHttpFetch;

export * from "./api.js";
