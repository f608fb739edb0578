/* @ts-self-types="./ids.d.ts" */
// @ts-check
// What agentmem-supabase/ids exports, for every runtime; the ids-*.js entries only differ in how
// they load agentmem_ids_bg.wasm. AgentmemError is the main entry's class (the same
// errors.js), so `instanceof` holds across both entries.
import * as glue from "./agentmem_ids.js";
export { AgentmemError } from "./errors.js";

// Every export is synchronous and called through `recovering`: a WebAssembly.RuntimeError
// (a panic, which aborts on the spot, or any other trap) leaves the instance in whatever
// state the call left it, so it is logged once and the next call runs on a fresh instance
// (wasm-bindgen's __wbg_reset_state). The trap itself reaches the caller as it is.
let failed = false;
/**
 * @template {(...args: any[]) => any} F
 * @param {F} fn
 * @returns {F}
 */
function recovering(fn) {
  return /** @type {F} */ ((...args) => {
    if (failed) {
      glue.__wbg_reset_state();
      failed = false;
    }
    try {
      return fn(...args);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        failed = true;
        console.error("agentmem/ids: internal error, the module will reinitialize on the next call");
      }
      throw e;
    }
  });
}

export const uuid5 = recovering(glue.uuid5);
export const uuid5Batch = recovering(glue.uuid5Batch);
export const conversationId = recovering(glue.conversationId);
export const coiaThread = recovering(glue.coiaThread);
export const cimThreadId = recovering(glue.cimThreadId);
export const supervisorThreadId = recovering(glue.supervisorThreadId);
export const parseThreadId = recovering(glue.parseThreadId);
export const extractDealId = recovering(glue.extractDealId);
