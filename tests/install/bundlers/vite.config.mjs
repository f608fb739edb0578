// What README.md tells Vite users to set: top-level await needs an es2022+ target (the
// package awaits its .wasm when imported), and the dev server's dependency pre-bundling
// must leave the package alone so that its `new URL("./agentmem_bg.wasm", import.meta.url)`
// still points at the file (the build copies it into dist/assets either way).
import { defineConfig } from "vite";

export default defineConfig({
  build: { target: "es2022" },
  optimizeDeps: { exclude: [process.env.AGENTMEM_PACKAGE] },
});
