/* @ts-self-types="./index.d.ts" */
// @ts-check
// Browsers and bundlers: the .wasm is fetched relative to this module.
import init from "./agentmem.js";
import { loadFailed, moduleLoaded } from "./wasm.js";

const wasmUrl = new URL("./agentmem_bg.wasm", import.meta.url);
try {
  await init({ module_or_path: wasmUrl });
} catch (e) {
  throw loadFailed(
    wasmUrl.href,
    e,
    "Serve agentmem_bg.wasm at that URL, next to the script that loads the package: esbuild does not " +
      "copy it (copy node_modules/agentmem-supabase/agentmem_bg.wasm next to your bundle); Vite serves " +
      "and emits it by itself. A page that answers instead (an HTML fallback) is not the .wasm",
  );
}
moduleLoaded();

export * from "./api.js";
