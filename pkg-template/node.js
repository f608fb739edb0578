/* @ts-self-types="./index.d.ts" */
// Node.js >= 20 (ESM).
import { readFileSync } from "node:fs";
import { initSync } from "./agentmem.js";
import { nodeHttpFetch } from "./node-http.js";
import { platform } from "./platform.js";
import { loadFailed, moduleLoaded } from "./wasm.js";

const wasmUrl = new URL("./agentmem_bg.wasm", import.meta.url);
try {
  initSync({ module: readFileSync(wasmUrl) });
} catch (e) {
  throw loadFailed(
    wasmUrl.protocol === "file:" ? decodeURIComponent(wasmUrl.pathname) : wasmUrl.href,
    e,
    "agentmem_bg.wasm must sit next to node.js; when a bundler inlines the package, copy " +
      "node_modules/<package>/agentmem_bg.wasm next to the bundle",
  );
}
moduleLoaded();
platform.fetch = nodeHttpFetch;

export * from "./api.js";
