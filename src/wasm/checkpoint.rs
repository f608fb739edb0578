//! The checkpoint saver (`pkg-template/langgraph.js`) at the boundary: its calls'
//! arguments converted for `crate::checkpoint` (whose reads answer with JSON text and
//! byte buffers, `checkpoint::answer`).
//!
//! JSON-shaped arguments arrive as JSON text (the facade makes it) and leave as JSON text.
//! Serialized values cross as `[type, Uint8Array]` pairs, copied by the facade from the
//! serializer's output, and come back as `Uint8Array`s beside the text: a byte array
//! through JSON would become an array or an object of numbered keys.

use js_sys::{Array, Uint8Array};
use serde_json::Value;
use wasm_bindgen::{JsCast, prelude::*};

use super::transport::Client;
use super::{JsResult, args, json_arg};
use crate::checkpoint::{self, Call, TypedBytes};
use crate::error::ErrorReport;
use crate::op::Step;

fn json(field: &str, v: &JsValue) -> Result<Value, ErrorReport> {
    json_arg(field, v)
}

fn array<'a>(field: &str, v: &'a JsValue, what: &str) -> Result<&'a Array, ErrorReport> {
    v.dyn_ref::<Array>().ok_or_else(|| ErrorReport::invalid_input(field, format!("{field} must be {what}")))
}

/// A serializer's `dumpsTyped` result: `[type, Uint8Array]`.
fn typed(field: &str, pair: &JsValue) -> Result<TypedBytes, ErrorReport> {
    let pair = array(field, pair, "the serializer's [type, Uint8Array] pair")?;
    let type_ = args::string(&format!("{field}[0]"), &pair.get(0))?;
    let bytes = pair.get(1).dyn_into::<Uint8Array>().map_err(|_| {
        ErrorReport::invalid_input(field, format!("{field}: the serializer must return [type, Uint8Array]"))
    })?;
    Ok(TypedBytes { type_, bytes: bytes.to_vec() })
}

/// `[[channel, [type, Uint8Array]], …]`.
fn channel_values(field: &str, v: &JsValue) -> Result<Vec<(String, TypedBytes)>, ErrorReport> {
    array(field, v, "an array of [channel, [type, bytes]]")?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let f = format!("{field}[{i}]");
            let item = array(&f, &item, "a [channel, [type, bytes]] pair")?;
            Ok((args::string(&f, &item.get(0))?, typed(&f, &item.get(1))?))
        })
        .collect()
}

/// A saver call from its method name and arguments: `configurable` (JSON text) first
/// for the checkpoint reads and writes, then the method's own:
/// - `getTuple(configurable)`, `list(configurable, options, offset)`;
/// - `put(configurable, checkpoint, newVersions, values, metadata, preview?)`;
/// - `putWrites(configurable, taskId, taskPath, writes)`;
/// - `deleteThread(threadId)`, `cleanupOldCheckpoints(daysOld)`, `metrics(threadId?)`,
///   `listThreads(options)`.
fn call_of(op: &str, args: &Array) -> Result<Call, ErrorReport> {
    let arg = |i: u32| args.get(i);
    let configurable = || json("config.configurable", &arg(0));
    Ok(match op {
        "getTuple" => Call::GetTuple { configurable: configurable()? },
        "list" => Call::List {
            configurable: configurable()?,
            options: json("options", &arg(1))?,
            offset: if arg(2).is_undefined() { 0 } else { args::safe_integer("offset", &arg(2))? },
        },
        "put" => Call::Put {
            configurable: configurable()?,
            checkpoint: json("checkpoint", &arg(1))?,
            new_versions: json("newVersions", &arg(2))?,
            values: channel_values("values", &arg(3))?,
            metadata: typed("metadata", &arg(4))?,
            preview: Box::new(if arg(5).is_undefined() { Value::Null } else { json("preview", &arg(5))? }),
        },
        "putWrites" => Call::PutWrites {
            configurable: configurable()?,
            task_id: args::string("taskId", &arg(1))?,
            task_path: args::optional_string("taskPath", &arg(2))?.unwrap_or_default(),
            writes: channel_values("writes", &arg(3))?,
        },
        "deleteThread" => Call::DeleteThread { thread_id: args::string("threadId", &arg(0))? },
        "cleanupOldCheckpoints" => Call::CleanupOldCheckpoints { days_old: args::number("daysOld", &arg(0))? },
        "metrics" => Call::Metrics { thread_id: args::optional_string("threadId", &arg(0))? },
        "listThreads" => Call::ListThreads { options: json("options", &arg(0))? },
        other => {
            return Err(ErrorReport::invalid_input(
                "op",
                format!("unknown checkpoint operation {}", crate::error::Quoted(other)),
            ));
        }
    })
}

/// Checks the arguments of `op` as the database backend would, without a request (the
/// memory backend keeps the database backend's rules): `true` when the call would make a
/// request, `false` when there is nothing to send (getTuple without a thread, putWrites
/// without writes).
pub(super) fn checkpoint_check(op: JsValue, args: JsValue) -> JsResult<bool> {
    let args = array("args", &args, "an array")?;
    Ok(checkpoint::check(call_of(&args::string("op", &op)?, args)?)?)
}

/// One saver call against the database: ONE request, its answer decoded here.
pub(super) fn plan(c: &Client, op: &str, args: &Array) -> Result<Step, ErrorReport> {
    checkpoint::operation(&c.target, call_of(op, args)?)
}
