//! The checkpoint saver (`pkg-template/langgraph.js`) at the boundary: its calls'
//! arguments converted for `crate::checkpoint`, and decoded tuples converted back.
//!
//! JSON-shaped arguments arrive as JSON text (the facade makes it) and leave as JSON text.
//! Serialized values cross as `[type, Uint8Array]` pairs, copied by the facade from the
//! serializer's output, and come back as `Uint8Array`s beside the text: a byte array
//! through JSON would become an array or an object of numbered keys.

use std::fmt::Write;

use js_sys::{Array, Uint8Array};
use serde_json::Value;
use wasm_bindgen::{JsCast, prelude::*};

use super::transport::Client;
use super::{JsResult, args, json_arg};
use crate::checkpoint::{self, Call, Payload, TupleConfig, TypedBytes, TypedValue};
use crate::error::ErrorReport;
use crate::json::{write_list, write_str};
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
/// - `put(configurable, checkpoint, newVersions, values, metadata)`;
/// - `putWrites(configurable, taskId, taskPath, writes)`;
/// - `deleteThread(threadId)`, `cleanupOldCheckpoints(daysOld)`, `metrics(threadId?)`.
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

/// `{"configurable":{"thread_id":…,"checkpoint_ns":…,"checkpoint_id":…}}`, keys in that order.
fn config_json(out: &mut String, config: &TupleConfig) {
    let c = &config.configurable;
    out.push_str(r#"{"configurable":{"thread_id":"#);
    write_str(out, &c.thread_id);
    out.push_str(r#","checkpoint_ns":"#);
    write_str(out, &c.checkpoint_ns);
    out.push_str(r#","checkpoint_id":"#);
    write_str(out, &c.checkpoint_id);
    out.push_str("}}");
}

/// A stored value's data: a JSON string for a value stored as text (which the serializer's
/// `loadsTyped` takes as well), else the index in `blobs` of its bytes as a `Uint8Array`.
fn data_json(out: &mut String, data: &Payload, blobs: &Array) {
    match data {
        Payload::Text(t) => write_str(out, t),
        Payload::Bytes(b) => {
            let _ = write!(out, "{}", blobs.push(&Uint8Array::from(b.as_slice())) - 1);
        }
    }
}

/// `"type",data` of a stored value.
fn typed_json(out: &mut String, v: &TypedValue, blobs: &Array) {
    write_str(out, &v.type_);
    out.push(',');
    data_json(out, &v.data, blobs);
}

/// `"a","b"`: the two texts that open a value's, a ref's or a write's array.
fn two_texts(out: &mut String, a: &str, b: &str) {
    write_str(out, a);
    out.push(',');
    write_str(out, b);
}

/// A read's tuples, their values still serialized, as `[JSON text, blobs]`: the text of
/// `{ rows, count }`, and the values' bytes, which JSON cannot carry. One string and one
/// `Uint8Array` per stored value cross the boundary (the facade's `JSON.parse` builds the
/// objects) instead of a `Reflect.set` per field. Each row:
/// `{ config, parentConfig?, checkpoint (no channel_values), metadata (JSON text),
///    values: [[channel, version, type | null (an "empty" channel), data | null]],
///    refs: [[channel, version]] (values an earlier row of the same answer carried),
///    pendingWrites: [[taskId, channel, type, data]], pendingSends?: [[type, data]] }`,
/// where `data` is text, or the index in `blobs` of a `Uint8Array` (langgraph.js `readAnswer`).
pub(super) fn read_result(tuples: &[checkpoint::Tuple], count: Option<u64>) -> JsResult<JsValue> {
    let blobs = Array::new();
    let mut out = String::from(r#"{"rows":"#);
    write_list(&mut out, tuples, |out, t| {
        out.push_str(r#"{"config":"#);
        config_json(out, &t.config);
        if let Some(parent) = &t.parent_config {
            out.push_str(r#","parentConfig":"#);
            config_json(out, parent);
        }
        out.push_str(r#","checkpoint":"#);
        crate::json::write_object(out, &t.checkpoint);
        out.push_str(r#","metadata":"#);
        write_str(out, &t.metadata);
        out.push_str(r#","values":"#);
        write_list(out, &t.values, |out, v| {
            out.push('[');
            two_texts(out, &v.channel, &v.version);
            out.push(',');
            match &v.value {
                Some(value) => typed_json(out, value, &blobs),
                None => out.push_str("null,null"),
            }
            out.push(']');
        });
        out.push_str(r#","refs":"#);
        write_list(out, &t.refs, |out, r| {
            out.push('[');
            two_texts(out, &r.channel, &r.version);
            out.push(']');
        });
        out.push_str(r#","pendingWrites":"#);
        write_list(out, &t.pending_writes, |out, w| {
            out.push('[');
            two_texts(out, &w.task_id, &w.channel);
            out.push(',');
            typed_json(out, &w.value, &blobs);
            out.push(']');
        });
        if let Some(sends) = &t.pending_sends {
            out.push_str(r#","pendingSends":"#);
            write_list(out, sends, |out, s| {
                out.push('[');
                typed_json(out, s, &blobs);
                out.push(']');
            });
        }
        out.push('}');
    });
    match count {
        Some(n) => {
            let _ = write!(out, r#","count":{n}}}"#);
        }
        None => out.push_str(r#","count":null}"#),
    }
    Ok(Array::of2(&JsValue::from(out), &blobs).into())
}
