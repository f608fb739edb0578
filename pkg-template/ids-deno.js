/* @ts-self-types="./ids.d.ts" */
// @ts-check
// agentmem-supabase/ids for Deno and Supabase Edge Functions: only the small id module, never
// agentmem_bg.wasm. Read from disk next to this file (add agentmem_ids_bg.wasm to
// `static_files`), or fetched when the package was imported over http(s).
import { initSync } from "./agentmem_ids.js";

const wasmUrl = new URL("./agentmem_ids_bg.wasm", import.meta.url);
const bytes = wasmUrl.protocol === "file:"
  ? await Deno.readFile(wasmUrl)
  : new Uint8Array(await (await fetch(wasmUrl)).arrayBuffer());
initSync({ module: bytes });

export * from "./ids.js";
