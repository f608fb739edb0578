//! The JavaScript boundary: the only module that knows about `wasm_bindgen`.
//!
//! Every export follows one shape: check and convert the JS arguments, call the core,
//! convert the result back. Failures cross as `AgentmemError` (a real `Error` subclass
//! defined in `pkg-template/errors.js`), never as strings.
//!
//! Panics: the core returns `Result` everywhere a caller can cause a failure, so a panic
//! means a bug. The release build aborts at the panic itself (`panic=immediate-abort`,
//! scripts/build.sh): the call traps with a `WebAssembly.RuntimeError` and no panic
//! machinery (messages, locations, hooks) is compiled in. Every call into the module is
//! synchronous and made by `pkg-template/wasm.js` (an operation that waits on the network
//! is driven from there, see `run`), which catches the trap where it leaves the module,
//! rejects the calls in flight (io.js `moduleFailed`) and runs the *next* call on a fresh
//! instance instead of on memory a half-finished call left behind. A long-lived edge
//! worker therefore loses one call to a bug, not the whole worker. The only Rust objects
//! that outlive a call are the runs waiting on an action, which die with their instance.
//! The tests of that recovery provoke a real trap from outside (deno/trap.ts exhausts the
//! instance's memory), so the module exports nothing for them.

//!
//! The id functions (`ids`) and the argument readers they use (`args`) are the part
//! compiled without the `bindings` feature: the agentmem-supabase/ids module exports the
//! same functions, so both entries answer alike.

mod args;
#[cfg(feature = "bindings")]
mod checkpoint;
#[cfg(feature = "bindings")]
mod client;
pub mod ids;
#[cfg(feature = "bindings")]
mod memory;
#[cfg(feature = "bindings")]
mod run;
#[cfg(feature = "bindings")]
mod state;

#[cfg(feature = "bindings")]
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

#[cfg(feature = "bindings")]
use crate::boundary::{Capability, SyncCall, named};
use crate::error::ErrorReport;
#[cfg(feature = "bindings")]
use crate::op::Output;

#[cfg(feature = "bindings")]
#[global_allocator]
static ALLOCATOR: agentmem_alloc::SizeClasses = agentmem_alloc::SizeClasses::new();

impl From<ErrorReport> for JsValue {
    fn from(report: ErrorReport) -> JsValue {
        js_error(report, None)
    }
}

/// An `AgentmemError`, with the platform error that caused it (e.g. fetch's TypeError).
/// Its optional properties (named as JS sees them, only those set) are set one by one:
/// a serde struct would carry a serializer of its own for six fields.
fn js_error(report: ErrorReport, cause: Option<JsValue>) -> JsValue {
    let props = js_sys::Object::new();
    let set = |k: &str, v: JsValue| set(&props, k, &v);
    let text = |k: &str, v: Option<&String>| {
        if let Some(v) = v {
            set(k, v.into());
        }
    };
    if let Some(status) = report.status {
        set("status", status.into());
    }
    text("pgrstCode", report.pgrst_code.as_ref());
    text("details", report.details.as_ref());
    text("hint", report.hint.as_ref());
    text("field", report.field.as_ref());
    if let Some(retries) = report.retries {
        set("retries", retries.into());
    }
    if let Some(cause) = cause {
        set("cause", cause);
    }
    args::agentmem_error(report.code.as_str(), &report.message, props)
}

/// What every export returns: a value, or an `AgentmemError` to throw.
pub type JsResult<T> = Result<T, JsValue>;

/// A core result as plain JS values. Everything crosses the boundary as JSON text, parsed
/// and produced by the engine's own `JSON`, so JS objects arrive as plain objects, with
/// their keys in the order the core wrote them (serde_json's `preserve_order`: one JSON
/// value type, ordered). The text is the value's `Display` (compact JSON, the same as
/// `serde_json::to_string`), which error messages use anyway: a second serializer instance
/// would add its own copy of the writer.
#[cfg(feature = "bindings")]
fn to_js(value: &serde_json::Value) -> JsResult<JsValue> {
    js_sys::JSON::parse(&crate::json::text(value))
}

/// Objects built key by key: where a value is a JS value already (an error's `cause`, a
/// PostgREST answer's parsed `data`), and in the id functions the ids module shares, which
/// carries no JSON writer.
use args::set;

/// Starts one operation of any capability: plans it (`capability` names the planner, `op`
/// the operation, `args` its arguments as the facade made them) and runs it until it needs
/// the host: `[id, action]` (a request for the client's fetch, a wait, a text for the
/// embedding callback) for `pkg-template/wasm.js` to perform and hand back to [`resume`],
/// or `[-1, result]` (see `run`).
#[cfg(feature = "bindings")]
#[wasm_bindgen(js_name = call)]
pub fn call(client_state: JsValue, capability: JsValue, op: JsValue, args: JsValue) -> JsResult<JsValue> {
    let client = client::client(&client_state)?;
    let capability = args::string("capability", &capability)?;
    // A memory operation is a tool, named by the model.
    let op = args::string(if capability == Capability::Memory.as_str() { "name" } else { "op" }, &op)?;
    let args: js_sys::Array =
        args.dyn_into().map_err(|_| ErrorReport::invalid_input("args", "args must be an array"))?;
    let step = match named("capability", "capability", &capability)? {
        Capability::Client => client::plan(&client, &op, &args)?,
        Capability::Memory => memory::plan(&client, &op, &args)?,
        Capability::State => state::plan(&client, &op, &args)?,
        Capability::Checkpoint => checkpoint::plan(&client, &op, &args)?,
    };
    run::start(move |host| async move {
        let secrets = client.secrets();
        match crate::op::run(&host, &client.policy, &secrets, crate::schema::refine, step).await {
            Ok(Output::Json(value)) => to_js(&value),
            Ok(Output::Response(decoded)) => client::response_js(decoded),
            Ok(Output::Buffers(text, buffers)) => {
                let buffers: js_sys::Array = buffers.iter().map(|b| js_sys::Uint8Array::from(b.as_slice())).collect();
                Ok(js_sys::Array::of2(&text.into(), &buffers).into())
            }
            Err(f) => Err(js_error(f.report, f.cause)),
        }
    })
}

/// Resumes the run `id` (from [`call`] or an earlier `resume`) with the outcome of its
/// action; answers as [`call`] does.
#[cfg(feature = "bindings")]
#[wasm_bindgen(js_name = resume)]
pub fn resume(id: JsValue, outcome: JsValue) -> JsResult<JsValue> {
    run::resume(id, outcome)
}

/// Runs one synchronous function of the facades (`pkg-template/wasm.js` names them):
/// the ids, the option checks, token inspection, the tool definitions and the pure state
/// helpers; `args` are its arguments as the facade passes them. One export for all of them
/// because every export carries glue of its own on both sides of the boundary (a shim in
/// the module, a wrapper in `agentmem.js`).
#[cfg(feature = "bindings")]
#[wasm_bindgen(js_name = callSync)]
pub fn call_sync(name: JsValue, args: js_sys::Array) -> JsResult<JsValue> {
    let text = |v: String| JsValue::from(v);
    let f = named("name", "function", &args::string("name", &name)?)?;
    use SyncCall as C;
    Ok(match SyncCall::read(f, |i| args.get(i)) {
        C::Uuid5 { name, namespace } => text(ids::uuid5(name, namespace)?),
        C::Uuid5Batch { names, namespace } => {
            ids::uuid5_batch(names, namespace)?.into_iter().map(JsValue::from).collect::<js_sys::Array>().into()
        }
        C::ConversationId { lead, namespace } => text(ids::conversation_id(lead, namespace)?),
        C::CoiaThread { flow, id } => ids::coia_thread(flow, id)?,
        C::CimThreadId { deal_id, cim_id } => text(ids::cim_thread_id(deal_id, cim_id)?),
        C::SupervisorThreadId { deal_id, timestamp_ms } => text(ids::supervisor_thread_id(deal_id, timestamp_ms)?),
        C::ParseThreadId { thread_id } => ids::parse_thread_id(thread_id)?,
        C::ExtractDealId { thread_id } => ids::extract_deal_id(thread_id)?,
        C::CheckClientOptions { state } => text(client::check_client_options(state)?),
        C::HasIdentity { state } => JsValue::from_bool(client::client(&state)?.target.has_identity()),
        C::InspectToken { token } => client::inspect_token(token)?,
        C::MemoryDefinitions { format, options } => memory::memory_definitions(format, options)?,
        C::CheckMemoryOptions { state, options } => text(memory::check_memory_options(state, options)?),
        C::MemoryId { id } => memory::memory_id(id)?,
        C::StateCheckOptions { store, options } => state::state_check_options(store, options)?,
        C::ResearchMergeState { state, updates } => state::research_merge_state(state, updates)?,
        C::ResearchValidateState { state } => state::research_validate_state(state)?,
        C::ResearchValidateTransition { from, to, state } => state::research_validate_transition(from, to, state)?,
        C::WorkflowNormalizeState { state, options } => state::workflow_normalize_state(state, options)?,
        C::CheckpointCheck { op, args } => JsValue::from_bool(checkpoint::checkpoint_check(op, args)?),
    })
}

#[cfg(feature = "bindings")]
#[wasm_bindgen(start)]
fn start() {
    // For the numbers src/number.rs cannot convert exactly in Rust: JavaScript's parser is
    // correctly rounded, and by then the text is a JSON number.
    crate::number::use_host_parser(|text| Some(js_sys::parse_float(text)));
}
