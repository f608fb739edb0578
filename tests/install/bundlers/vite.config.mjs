// What README.md tells Vite users to set: the dev server's dependency pre-bundling must
// leave the package alone, so that its `new URL("./agentmem_bg.wasm", import.meta.url)`
// still points at the file. `vite build` emits the .wasm as an asset either way.
import { defineConfig } from "vite";

export default defineConfig({
  optimizeDeps: { exclude: [process.env.AGENTMEM_PACKAGE] },
});
