/* @ts-self-types="./index.d.ts" */
// @ts-check
// Deno and Supabase Edge Functions. The wasm bytes are read from disk next to this file
// (what Supabase's hosted runtime supports: add agentmem_bg.wasm to `static_files`), or
// fetched when the package itself was imported over http(s).
import { initSync } from "./agentmem.js";
import { loadFailed, loadOnFirstUse } from "./wasm.js";

// A file path where the runtime gives one (import.meta.dirname, file: modules in Deno >= 1.40):
// `new URL()` and Deno's URL-to-path conversion cost the import as much as a third of the
// read itself (bench "import"). Otherwise the URL: read when it is a file: URL, fetched
// over http(s).
const dir = import.meta.dirname;
const url = () => new URL("./agentmem_bg.wasm", import.meta.url);
const where = () => (dir !== undefined ? `${dir}/agentmem_bg.wasm` : url().href);
const how = "agentmem_bg.wasm must sit next to deno.js, readable (--allow-read). On Supabase's hosted runtime, " +
  "list it in the function's static_files in supabase/config.toml, e.g. " +
  'static_files = ["./functions/<name>/agentmem/agentmem_bg.wasm"]; a bundle needs it copied next to the bundle';
/** @type {Uint8Array | undefined} */
let bytes;
try {
  if (dir !== undefined) {
    bytes = await Deno.readFile(`${dir}/agentmem_bg.wasm`);
  } else if (url().protocol === "file:") {
    bytes = await Deno.readFile(url());
  } else {
    const response = await fetch(url());
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    bytes = new Uint8Array(await response.arrayBuffer());
  }
} catch (e) {
  throw loadFailed(where(), e, how);
}
// Compiled on the first call into the module, not at import: an edge function's cold start
// pays for reading the file only.
loadOnFirstUse(() => {
  try {
    initSync({ module: bytes });
  } catch (e) {
    throw loadFailed(where(), e, how);
  }
  bytes = undefined;
});

export * from "./api.js";
