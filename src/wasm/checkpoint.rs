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
use crate::checkpoint::{self, TupleConfig, TypedBytes};
use crate::error::ErrorReport;

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

fn u8s(v: &TypedBytes) -> [JsValue; 2] {
    [JsValue::from_str(&v.type_), Uint8Array::from(v.bytes.as_slice()).into()]
}

/// `null` stands for "no request to make".
fn to_js_or_null<T: Serialize>(args: Option<T>) -> JsResult<JsValue> {
    args.map_or(Ok(JsValue::NULL), |a| to_js(&a))
}

/// Args of `rpc/langgraph_get_tuple`, or `null` when the config names no thread.
#[wasm_bindgen(js_name = checkpointGetTupleArgs)]
pub fn get_tuple_args(configurable: JsValue) -> JsResult<JsValue> {
    let c = json("config.configurable", &configurable)?;
    to_js_or_null(checkpoint::get_tuple_args(&c).map_err(ErrorReport::from)?)
}

/// Args of `rpc/langgraph_list`; `options` is `{ filter, before: checkpointId, limit }`.
#[wasm_bindgen(js_name = checkpointListArgs)]
pub fn list_args(configurable: JsValue, options: JsValue) -> JsResult<JsValue> {
    let c = json("config.configurable", &configurable)?;
    let o = json("options", &options)?;
    to_js(&checkpoint::list_args(&c, &o).map_err(ErrorReport::from)?)
}

/// Args of `rpc/langgraph_put`. `values`: `[[channel, [type, bytes]]]` for the channels of
/// `newVersions` that have a value; `metadata`: the serializer's `[type, bytes]`.
#[wasm_bindgen(js_name = checkpointPutArgs)]
pub fn put_args(
    configurable: JsValue,
    checkpoint_: JsValue,
    new_versions: JsValue,
    values: JsValue,
    metadata: JsValue,
) -> JsResult<JsValue> {
    let c = json("config.configurable", &configurable)?;
    let ckpt = json("checkpoint", &checkpoint_)?;
    let nv = json("newVersions", &new_versions)?;
    let values = channel_values("values", &values)?;
    let metadata = typed("metadata", &metadata)?;
    to_js(&checkpoint::put_args(&c, &ckpt, &nv, values, metadata).map_err(ErrorReport::from)?)
}

/// Args of `rpc/langgraph_put_writes`, or `null` when there are no writes to send.
/// `writes`: `[[channel, [type, bytes]]]` in the task's order.
#[wasm_bindgen(js_name = checkpointPutWritesArgs)]
pub fn put_writes_args(
    configurable: JsValue,
    task_id: JsValue,
    task_path: JsValue,
    writes: JsValue,
) -> JsResult<JsValue> {
    let c = json("config.configurable", &configurable)?;
    let task_id = args::string("taskId", &task_id)?;
    let task_path = args::optional_string("taskPath", &task_path)?.unwrap_or_default();
    let writes = channel_values("writes", &writes)?;
    to_js_or_null(checkpoint::put_writes_args(&c, &task_id, &task_path, writes).map_err(ErrorReport::from)?)
}

/// The JSON part of a decoded tuple; the byte arrays are added to the object after.
#[derive(Serialize)]
struct TupleJson<'a> {
    config: &'a TupleConfig,
    #[serde(rename = "parentConfig", skip_serializing_if = "Option::is_none")]
    parent_config: Option<&'a TupleConfig>,
    checkpoint: &'a Map<String, Value>,
    metadata: &'a str,
}

/// The `data` of get_tuple / list as tuples whose values are still serialized:
/// `{ config, parentConfig?, checkpoint (no channel_values), metadata (JSON text),
///    values: [[channel, type, bytes]], pendingWrites: [[taskId, channel, type, bytes]],
///    pendingSends?: [[type, bytes]] }`.
#[wasm_bindgen(js_name = checkpointDecodeRows)]
pub fn decode_rows(data: JsValue) -> JsResult<Array> {
    let text = js_sys::JSON::stringify(&data).ok().and_then(|s| s.as_string()).unwrap_or_else(|| "null".into());
    let tuples = checkpoint::decode_rows(&text).map_err(ErrorReport::from)?;
    let out = Array::new();
    for t in &tuples {
        let obj = to_js(&TupleJson {
            config: &t.config,
            parent_config: t.parent_config.as_ref(),
            checkpoint: &t.checkpoint,
            metadata: &t.metadata,
        })?;
        let values = bytes_array(t.values.iter().map(|v| {
            let [ty, b] = u8s(&v.value);
            vec![JsValue::from_str(&v.channel), ty, b]
        }));
        let writes = bytes_array(t.pending_writes.iter().map(|w| {
            let [ty, b] = u8s(&w.value);
            vec![JsValue::from_str(&w.task_id), JsValue::from_str(&w.channel), ty, b]
        }));
        Reflect::set(&obj, &"values".into(), &values)?;
        Reflect::set(&obj, &"pendingWrites".into(), &writes)?;
        if let Some(sends) = &t.pending_sends {
            Reflect::set(&obj, &"pendingSends".into(), &bytes_array(sends.iter().map(|s| u8s(s).to_vec())))?;
        }
        out.push(&obj);
    }
    Ok(out)
}
