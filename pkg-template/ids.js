/* @ts-self-types="./ids.d.ts" */
// @ts-check
// What agentmem-supabase/ids exports, for every runtime; the ids-*.js entries only differ in how
// they load agentmem_ids_bg.wasm. AgentmemError is the main entry's class (the same
// errors.js), so `instanceof` holds across both entries.
export { AgentmemError } from "./errors.js";
export {
  uuid5,
  uuid5Batch,
  conversationId,
  coiaThread,
  cimThreadId,
  supervisorThreadId,
  parseThreadId,
  extractDealId,
} from "./agentmem_ids.js";
