//! The `agentmem/ids` entry: the id helpers of `agentmem::ids` as a module of their own.
//!
//! The main module carries the PostgREST client, checkpoints, memory and state (and
//! serde_json to move them across); an app that only mints ids should not download any
//! of that. This crate links only `agentmem::ids` and its JavaScript functions
//! (`agentmem::wasm::ids`, compiled without the core's `bindings` feature), which build
//! their JS values with js_sys instead of JSON text, so serde_json never enters the module.
//!
//! Behaviour is the main entry's, call for call, because the code is: the same argument
//! checks (src/wasm/args.rs) with the same messages, the same results, the same
//! `AgentmemError` (from the shared errors.js) with the same `code` and `field`.
//! deno/ids_entry_test.ts compares the two entries directly.
//!
//! Panics mean a bug, as in the main module, and are handled the same way: the call traps
//! (`panic=immediate-abort`), the glue catches the trap and the next call runs on a fresh
//! instance (scripts/build.sh). deno/ids_entry_test.ts proves it with a real trap, provoked
//! from outside (deno/trap.ts), so the module exports nothing for tests.

#![cfg(target_arch = "wasm32")]

#[global_allocator]
static ALLOCATOR: agentmem_alloc::SizeClasses = agentmem_alloc::SizeClasses::new();

use agentmem::wasm::{JsResult, ids};
use wasm_bindgen::prelude::*;

// Each export is the main module's function of the same name (src/wasm/ids.rs, which
// `callSync` dispatches to), so the argument checks, messages, results and errors cannot
// drift apart.

#[wasm_bindgen(js_name = uuid5)]
pub fn uuid5(name: JsValue, namespace: JsValue) -> JsResult<String> {
    ids::uuid5(name, namespace)
}

#[wasm_bindgen(js_name = uuid5Batch)]
pub fn uuid5_batch(names: JsValue, namespace: JsValue) -> JsResult<Vec<String>> {
    ids::uuid5_batch(names, namespace)
}

#[wasm_bindgen(js_name = conversationId)]
pub fn conversation_id(contractor_lead_id: JsValue, namespace: JsValue) -> JsResult<String> {
    ids::conversation_id(contractor_lead_id, namespace)
}

/// `{ thread_id, checkpoint_ns, checkpoint_id? }`.
#[wasm_bindgen(js_name = coiaThread)]
pub fn coia_thread(flow: JsValue, id: JsValue) -> JsResult<JsValue> {
    ids::coia_thread(flow, id)
}

#[wasm_bindgen(js_name = cimThreadId)]
pub fn cim_thread_id(deal_id: JsValue, cim_id: JsValue) -> JsResult<String> {
    ids::cim_thread_id(deal_id, cim_id)
}

#[wasm_bindgen(js_name = supervisorThreadId)]
pub fn supervisor_thread_id(deal_id: JsValue, timestamp_ms: JsValue) -> JsResult<String> {
    ids::supervisor_thread_id(deal_id, timestamp_ms)
}

/// `{ kind, ...fields }`, fields in camelCase.
#[wasm_bindgen(js_name = parseThreadId)]
pub fn parse_thread_id(thread_id: JsValue) -> JsResult<JsValue> {
    ids::parse_thread_id(thread_id)
}

/// `null` where the SQL function returns NULL, including for a `null` argument.
#[wasm_bindgen(js_name = extractDealId)]
pub fn extract_deal_id(thread_id: JsValue) -> JsResult<JsValue> {
    ids::extract_deal_id(thread_id)
}
