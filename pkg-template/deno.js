/* @ts-self-types="./index.d.ts" */
// Deno and Supabase Edge Functions. The wasm bytes are read from disk next to this file
// (what Supabase's hosted runtime supports: add agentmem_bg.wasm to `static_files`), or
// fetched when the package itself was imported over http(s).
import { initSync } from "./agentmem.js";

const wasmUrl = new URL("./agentmem_bg.wasm", import.meta.url);
const bytes = wasmUrl.protocol === "file:"
  ? await Deno.readFile(wasmUrl)
  : new Uint8Array(await (await fetch(wasmUrl)).arrayBuffer());
initSync({ module: bytes });

export * from "./api.js";
