// The upstream validation suite needs vitest globals (describe/it/expect, expect.soft).
import { defineConfig } from "vitest/config";

export default defineConfig({
  // node_modules/agentmem-supabase is a symlink to the built pkg/: resolve its imports
  // (@langchain/langgraph-checkpoint) from here, as for an installed package, not from pkg/.
  resolve: { preserveSymlinks: true },
  test: {
    globals: true,
    include: ["*.test.mjs"],
    // The gateway's fault rules and request log are global: files run one after another.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
