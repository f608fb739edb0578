//! Exports for `crate::checkpoint`, used by the LangGraph saver (`pkg-template/langgraph.js`).
//!
//! JSON-shaped arguments arrive as JSON text (the facade makes it) and leave through
//! `to_js`. Serialized values cross as `[type, Uint8Array]` pairs, copied by the facade
//! from the serializer's output, and come back as `Uint8Array`s: a byte array through
//! `JSON.stringify` would become an object of numbered keys.

use js_sys::{Array, Reflect, Uint8Array};
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::{JsCast, prelude::*};

use super::{JsResult, args, json_arg, to_js};
use crate::checkpoint::{self, Payload, TupleConfig, TypedBytes, TypedValue};
use crate::error::ErrorReport;
use crate::transport::request::{self, CountMode, RpcOptions};

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

fn bytes_array(items: impl IntoIterator<Item = Vec<JsValue>>) -> Array {
    items.into_iter().map(|parts| parts.into_iter().collect::<Array>()).collect()
}

/// Checks the arguments of `op` as `checkpointCall` would, without a request (the memory
/// backend keeps the database backend's rules): `true` when the call would make a request,
/// `false` when there is nothing to send (getTuple without a thread, putWrites without
/// writes).
#[wasm_bindgen(js_name = checkpointCheck)]
pub fn checkpoint_check(
    op: JsValue,
    configurable: JsValue,
    a: JsValue,
    b: JsValue,
    c: JsValue,
    d: JsValue,
) -> JsResult<bool> {
    let cfg = json("config.configurable", &configurable)?;
    let sends = match args::string("op", &op)?.as_str() {
        "getTuple" => checkpoint::get_tuple_args(&cfg).map(|x| x.is_some()),
        "list" => checkpoint::list_args(&cfg, &json("options", &a)?).map(|_| true),
        "put" => checkpoint::put_args(
            &cfg,
            &json("checkpoint", &a)?,
            &json("newVersions", &b)?,
            channel_values("values", &c)?,
            typed("metadata", &d)?,
        )
        .map(|_| true),
        "putWrites" => checkpoint::put_writes_args(
            &cfg,
            &args::string("taskId", &a)?,
            &args::optional_string("taskPath", &b)?.unwrap_or_default(),
            channel_values("writes", &c)?,
        )
        .map(|x| x.is_some()),
        other => return Err(ErrorReport::invalid_input("op", format!("unknown checkpoint operation {other:?}")).into()),
    };
    Ok(sends.map_err(ErrorReport::from)?)
}

/// The JSON part of a decoded tuple; the values are added to the object after.
#[derive(Serialize)]
struct TupleJson<'a> {
    config: &'a TupleConfig,
    #[serde(rename = "parentConfig", skip_serializing_if = "Option::is_none")]
    parent_config: Option<&'a TupleConfig>,
    checkpoint: &'a Map<String, Value>,
    metadata: &'a str,
}

/// `[type, data]`: data a `Uint8Array`, or a string for a value stored as text (which the
/// serializer's `loadsTyped` takes as well).
fn value_pair(v: &TypedValue) -> [JsValue; 2] {
    let data = match &v.data {
        Payload::Bytes(b) => Uint8Array::from(b.as_slice()).into(),
        Payload::Text(t) => JsValue::from_str(t),
    };
    [JsValue::from_str(&v.type_), data]
}

/// Tuples whose values are still serialized:
/// `{ config, parentConfig?, checkpoint (no channel_values), metadata (JSON text),
///    values: [[channel, version, type | null (an "empty" channel), data]],
///    refs: [[channel, version]] (values an earlier row of the same answer carried),
///    pendingWrites: [[taskId, channel, type, data]], pendingSends?: [[type, data]] }`.
fn tuples_js(tuples: &[checkpoint::Tuple]) -> JsResult<Array> {
    let out = Array::new();
    for t in tuples {
        let obj = to_js(&TupleJson {
            config: &t.config,
            parent_config: t.parent_config.as_ref(),
            checkpoint: &t.checkpoint,
            metadata: &t.metadata,
        })?;
        let values = bytes_array(t.values.iter().map(|v| {
            let [ty, data] = v.value.as_ref().map_or([JsValue::NULL, JsValue::NULL], value_pair);
            vec![JsValue::from_str(&v.channel), JsValue::from_str(&v.version), ty, data]
        }));
        let refs =
            bytes_array(t.refs.iter().map(|r| vec![JsValue::from_str(&r.channel), JsValue::from_str(&r.version)]));
        let writes = bytes_array(t.pending_writes.iter().map(|w| {
            let [ty, data] = value_pair(&w.value);
            vec![JsValue::from_str(&w.task_id), JsValue::from_str(&w.channel), ty, data]
        }));
        Reflect::set(&obj, &"values".into(), &values)?;
        Reflect::set(&obj, &"refs".into(), &refs)?;
        Reflect::set(&obj, &"pendingWrites".into(), &writes)?;
        if let Some(sends) = &t.pending_sends {
            Reflect::set(&obj, &"pendingSends".into(), &bytes_array(sends.iter().map(|s| value_pair(s).to_vec())))?;
        }
        out.push(&obj);
    }
    Ok(out)
}

/// The database backend's operations, each ONE request, built, sent and (for reads)
/// decoded here: nothing crosses to JS and back as an intermediate object. One async
/// export for all of them (each async export compiles its own state machine).
///
/// - `getTuple(configurable)` and `list(configurable, options, offset)` resolve to
///   `{ rows, count }`, rows as `tuples_js` describes (`offset` pages past max-rows);
///   getTuple without a thread makes no request.
/// - `put(configurable, checkpoint, newVersions, values, metadata)` resolves to the stored
///   checkpoint's `{ thread_id, checkpoint_ns, checkpoint_id }`.
/// - `putWrites(configurable, taskId, taskPath, writes)` resolves to `null` (no request
///   when there is nothing to write).
///
/// All are safe to send twice, so the client may retry them after a lost answer: blobs are
/// insert-once per (channel, version), the checkpoint row an upsert of the same content,
/// ordinary writes insert-once and special writes an upsert of the same values.
#[wasm_bindgen(js_name = checkpointCall)]
pub async fn checkpoint_call(
    client_state: JsValue,
    op: JsValue,
    configurable: JsValue,
    a: JsValue,
    b: JsValue,
    c: JsValue,
    d: JsValue,
) -> JsResult<JsValue> {
    let client = super::transport::client(&client_state)?;
    let cfg = json("config.configurable", &configurable)?;
    let t = &client.target;
    let rpc = |name: &str, args: Value, options: &RpcOptions| -> Result<_, ErrorReport> {
        Ok(request::rpc(t, name, &args, options)?)
    };
    let op = args::string("op", &op)?;
    let req = match op.as_str() {
        "getTuple" => match checkpoint::get_tuple_args(&cfg).map_err(ErrorReport::from)? {
            None => return read_result(&[], Some(0)),
            Some(args) => rpc("langgraph_get_tuple", value(Ok(args))?, &RpcOptions::idempotent())?,
        },
        "list" => {
            let paged = RpcOptions {
                count: Some(CountMode::Exact),
                offset: Some(args::safe_integer("offset", &b)?).filter(|o| *o > 0),
                ..RpcOptions::idempotent()
            };
            rpc("langgraph_list", value(checkpoint::list_args(&cfg, &json("options", &a)?))?, &paged)?
        }
        "put" => {
            let args = checkpoint::put_args(
                &cfg,
                &json("checkpoint", &a)?,
                &json("newVersions", &b)?,
                channel_values("values", &c)?,
                typed("metadata", &d)?,
            )
            .map_err(ErrorReport::from)?;
            let stored = serde_json::json!({
                "thread_id": args.p_thread_id, "checkpoint_ns": args.p_checkpoint_ns, "checkpoint_id": args.p_checkpoint_id,
            });
            client.send(&rpc("langgraph_put", value(Ok(args))?, &RpcOptions::idempotent())?).await?;
            return to_js(&stored);
        }
        "putWrites" => {
            let task_id = args::string("taskId", &a)?;
            let task_path = args::optional_string("taskPath", &b)?.unwrap_or_default();
            let writes = channel_values("writes", &c)?;
            if let Some(args) =
                checkpoint::put_writes_args(&cfg, &task_id, &task_path, writes).map_err(ErrorReport::from)?
            {
                client.send(&rpc("langgraph_put_writes", value(Ok(args))?, &RpcOptions::idempotent())?).await?;
            }
            return Ok(JsValue::NULL);
        }
        other => return Err(ErrorReport::invalid_input("op", format!("unknown checkpoint operation {other:?}")).into()),
    };
    let decoded = client.send(&req).await?;
    let tuples = checkpoint::decode_rows(decoded.body.as_deref().unwrap_or("null")).map_err(ErrorReport::from)?;
    read_result(&tuples, decoded.count)
}

/// RPC arguments (or the input error that prevents them) as a JSON value.
fn value<T: Serialize>(args: Result<T, checkpoint::CheckpointError>) -> Result<Value, ErrorReport> {
    Ok(serde_json::to_value(args?).unwrap_or_default())
}

fn read_result(tuples: &[checkpoint::Tuple], count: Option<u64>) -> JsResult<JsValue> {
    let out = js_sys::Object::new();
    Reflect::set(&out, &"rows".into(), &tuples_js(tuples)?.into())?;
    Reflect::set(&out, &"count".into(), &count.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64)))?;
    Ok(out.into())
}
