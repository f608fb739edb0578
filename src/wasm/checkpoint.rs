//! The checkpoint saver (`pkg-template/langgraph.js`) at the boundary: its calls'
//! arguments converted for `crate::checkpoint` (whose reads answer with JSON text and
//! byte buffers, `checkpoint::answer`).
//!
//! JSON-shaped arguments arrive as JSON text (the facade makes it) and leave as JSON text.
//! Serialized values cross as `[type, Uint8Array]` pairs, copied by the facade from the
//! serializer's output, and come back as `Uint8Array`s beside the text: a byte array
//! through JSON would become an array or an object of numbered keys.

use js_sys::Array;
use wasm_bindgen::{JsCast, prelude::*};

use super::client::Client;
use super::{JsResult, args};
use crate::checkpoint::{self, Call};
use crate::error::ErrorReport;
use crate::op::Step;

/// A saver call from its method name and arguments, as `Call` declares them
/// (src/checkpoint/ops.rs).
fn call_of(op: &str, args: &Array) -> Result<Call, ErrorReport> {
    Ok(Call::read(crate::boundary::named("op", "checkpoint operation", op)?, &mut args::ArrayArgs::new(args))?)
}

/// Checks the arguments of `op` as the database backend would, without a request (the
/// memory backend keeps the database backend's rules): `true` when the call would make a
/// request, `false` when there is nothing to send (getTuple without a thread, putWrites
/// without writes).
pub(super) fn checkpoint_check(op: JsValue, args: JsValue) -> JsResult<bool> {
    let args = args.dyn_into::<Array>().map_err(|_| ErrorReport::invalid_input("args", "args must be an array"))?;
    Ok(checkpoint::check(call_of(&args::string("op", &op)?, &args)?)?)
}

/// One saver call against the database: ONE request, its answer decoded here.
pub(super) fn plan(c: &Client, op: &str, args: &Array) -> Result<Step, ErrorReport> {
    checkpoint::operation(&c.target, call_of(op, args)?)
}
