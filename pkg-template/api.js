// @ts-check
// Everything the package exports, for every runtime. The per-runtime entry points
// (deno.js, node.js, browser.js) only differ in how they load the .wasm bytes.
export { AgentmemError } from "./errors.js";
export { AgentmemClient, createClient, followSession } from "./client.js";
export { MemoryTools } from "./memory.js";
// Everything state.js exports is public: a new store is a class there and nothing here.
export * from "./state.js";
export {
  uuid5,
  uuid5Batch,
  conversationId,
  coiaThread,
  cimThreadId,
  supervisorThreadId,
  parseThreadId,
  extractDealId,
  inspectToken,
} from "./wasm.js";
