//! The state stores at the boundary: the conversion of a store operation's arguments for
//! `crate::state::operation`, the stores' option checks, and the pure research/workflow
//! helpers.
//!
//! State values arrive as JSON text: the facade (`pkg-template/state.js`) stringifies them
//! itself, so NaN/Infinity anywhere in a state is refused with the path of the value
//! instead of silently becoming null, and LangChain messages arrive through their toJSON.

use wasm_bindgen::prelude::*;

use js_sys::Array;

use super::client::Client;
use super::{JsResult, args, to_js};
use crate::error::ErrorReport;
use crate::op::Step;
use crate::state::{self, Context, StateStore, research, workflow};

fn store(name: &JsValue) -> Result<StateStore, ErrorReport> {
    Ok(crate::input::choose_str("store", &args::string("store", name)?)?)
}

/// Checks a store's constructor options (JSON text); returns what the facade shows.
pub(super) fn state_check_options(store_name: JsValue, options: JsValue) -> JsResult<JsValue> {
    let options = args::json("options", &options)?;
    to_js(&state::check_options(store(&store_name)?, &options).map_err(ErrorReport::from)?)
}

/// `op` of a store; `args` is `[store, options, ...the operation's arguments]`, the
/// options and arguments as JSON text (or undefined for an absent argument), read as the
/// store's `Call` declares them.
pub(super) fn plan(c: &Client, op: &str, args: &Array) -> Result<Step, ErrorReport> {
    let store = store(&args.get(0))?;
    let options = args::json("options", &args.get(1))?;
    let cx = Context { target: &c.target, options: &options, now_ms: js_sys::Date::now() };
    state::operation(store, op, &mut args::ArrayArgs::starting_at(args, 2), &cx)
}

/// TK9's `merge_states`: `{...state, ...updates}` after checking both.
pub(super) fn research_merge_state(state: JsValue, updates: JsValue) -> JsResult<JsValue> {
    let (state, updates) = (args::json("state", &state)?, args::json("updates", &updates)?);
    to_js(&research::merge(&state, &updates).map_err(ErrorReport::from)?)
}

/// TK9's `validate_state`, with reasons: `{ valid, missing, errors }`.
pub(super) fn research_validate_state(state: JsValue) -> JsResult<JsValue> {
    to_js(&research::validate(&args::json("state", &state)?).map_err(ErrorReport::from)?)
}

/// TK9's `validate_transition`: `{ valid, required, missing }`.
pub(super) fn research_validate_transition(from: JsValue, to: JsValue, state: JsValue) -> JsResult<JsValue> {
    let (from, to, state) =
        (args::json("fromPhase", &from)?, args::json("toPhase", &to)?, args::json("state", &state)?);
    to_js(&research::validate_transition(&from, &to, &state).map_err(ErrorReport::from)?)
}

/// A whole `WorkflowState`, checked and with the WorkflowState defaults filled in (timestamps
/// default to now).
pub(super) fn workflow_normalize_state(state: JsValue, options: JsValue) -> JsResult<JsValue> {
    let settings = workflow::Settings::parse(&args::json("options", &options)?).map_err(ErrorReport::from)?;
    let now = js_sys::Date::now().floor() as i64;
    let parsed = workflow::WorkflowState::parse(&args::json("state", &state)?, "state", settings.removed, now)
        .map_err(ErrorReport::from)?;
    to_js(&parsed.to_json())
}
