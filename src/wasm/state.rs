//! Exports for `crate::state`: one entry point that runs any store operation (plan → one
//! request → result), the stores' option checks, and the pure research/workflow helpers.
//!
//! State values arrive as JSON text: the facade (`pkg-template/state.js`) stringifies them
//! itself, so NaN/Infinity anywhere in a state is refused with the path of the value
//! instead of silently becoming null, and LangChain messages arrive through their toJSON.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::transport::client;
use super::{JsResult, args, json_arg, to_js};
use crate::error::ErrorReport;
use crate::state::{self, Context, Store, research, workflow};

fn store(name: &JsValue) -> Result<Store, ErrorReport> {
    Store::parse(&args::string("store", name)?).map_err(ErrorReport::from)
}

/// Checks a store's constructor options (JSON text); returns what the facade shows.
#[wasm_bindgen(js_name = stateCheckOptions)]
pub fn state_check_options(store_name: JsValue, options: JsValue) -> JsResult<JsValue> {
    let options = json_arg("options", &options)?;
    to_js(&state::check_options(store(&store_name)?, &options).map_err(ErrorReport::from)?)
}

/// Runs `op` of a store: validates, sends the one request, shapes the answer.
/// `args` is an array of JSON texts (or undefined for an absent argument).
#[wasm_bindgen(js_name = stateCall)]
pub async fn state_call(
    client_options: JsValue,
    store_name: JsValue,
    options: JsValue,
    op: JsValue,
    args: JsValue,
) -> JsResult<JsValue> {
    let c = client(&client_options)?;
    let store = store(&store_name)?;
    let options = json_arg("options", &options)?;
    let args: Vec<Value> = match args.dyn_ref::<js_sys::Array>() {
        Some(a) => a.iter().enumerate().map(|(i, v)| json_arg(&format!("args[{i}]"), &v)).collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let cx = Context { target: &c.target, options: &options, now_ms: js_sys::Date::now() };
    let op = state::plan(store, &args::string("op", &op)?, &args, &cx)?;
    let decoded = c.send_raw(&op.request).await.map_err(|f| super::js_error(state::server_error(f.report), f.cause))?;
    let body = decoded.json()?;
    to_js(&op.finish(body)?)
}

/// Spec 001's `merge_states`: `{...state, ...updates}` after checking both.
#[wasm_bindgen(js_name = researchMergeState)]
pub fn research_merge_state(state: JsValue, updates: JsValue) -> JsResult<JsValue> {
    let (state, updates) = (json_arg("state", &state)?, json_arg("updates", &updates)?);
    to_js(&research::merge(&state, &updates).map_err(ErrorReport::from)?)
}

/// Spec 001's `validate_state`, with reasons: `{ valid, missing, errors }`.
#[wasm_bindgen(js_name = researchValidateState)]
pub fn research_validate_state(state: JsValue) -> JsResult<JsValue> {
    to_js(&research::validate(&json_arg("state", &state)?).map_err(ErrorReport::from)?)
}

/// Spec 001's `validate_transition`: `{ valid, required, missing }`.
#[wasm_bindgen(js_name = researchValidateTransition)]
pub fn research_validate_transition(from: JsValue, to: JsValue, state: JsValue) -> JsResult<JsValue> {
    let (from, to, state) = (json_arg("fromPhase", &from)?, json_arg("toPhase", &to)?, json_arg("state", &state)?);
    to_js(&research::validate_transition(&from, &to, &state).map_err(ErrorReport::from)?)
}

/// A whole `WorkflowState`, checked and with spec 004's defaults filled in (timestamps
/// default to now).
#[wasm_bindgen(js_name = workflowNormalizeState)]
pub fn workflow_normalize_state(state: JsValue, options: JsValue) -> JsResult<JsValue> {
    let settings = workflow::Settings::parse(&json_arg("options", &options)?).map_err(ErrorReport::from)?;
    let now = js_sys::Date::now().floor() as i64;
    let parsed = workflow::WorkflowState::parse(&json_arg("state", &state)?, "state", settings.removed, now)
        .map_err(ErrorReport::from)?;
    to_js(&parsed.to_json())
}
