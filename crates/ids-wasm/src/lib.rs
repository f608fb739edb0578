//! The `agentmem/ids` entry: the id helpers of `agentmem::ids` as a module of their own.
//!
//! The main module carries the PostgREST client, checkpoints, memory and state (and
//! serde_json to move them across); an app that only mints ids should not download any
//! of that. This crate links only `agentmem::ids`, and builds its JS values with js_sys
//! instead of JSON text, so serde_json never enters the module.
//!
//! Behaviour is the main entry's, call for call: the same argument checks with the same
//! messages, the same results, the same `AgentmemError` (from the shared errors.js) with
//! the same `code` and `field`. deno/ids_entry_test.ts compares the two entries directly.
//!
//! Panics mean a bug, as in the main module, and are handled the same way: the call traps
//! (`panic=immediate-abort`), the glue catches the trap and the next call runs on a fresh
//! instance (scripts/build.sh). deno/ids_entry_test.ts proves it with a real trap, provoked
//! from outside (deno/trap.ts), so the module exports nothing for tests.

#![cfg(target_arch = "wasm32")]

#[global_allocator]
static ALLOCATOR: agentmem_alloc::SizeClasses = agentmem_alloc::SizeClasses::new();

use agentmem::ErrorReport;
use agentmem::ids;
use js_sys::{JsString, Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "./errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = AgentmemError)]
    type JsAgentmemError;

    #[wasm_bindgen(constructor, js_class = AgentmemError)]
    fn new(code: &str, message: &str, props: JsValue) -> JsAgentmemError;
}

type JsResult<T> = Result<T, JsValue>;

/// Sets `key` on a plain object. Reflect.set on a fresh ordinary object cannot fail.
fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// The `AgentmemError` the main module throws for the same report. Id failures only ever
/// carry `field`; the other optional properties belong to HTTP errors.
fn js_error(report: ErrorReport) -> JsValue {
    let props = Object::new();
    if let Some(field) = &report.field {
        set(&props, "field", &JsValue::from_str(field));
    }
    JsAgentmemError::new(report.code.as_str(), &report.message, props.into()).into()
}

fn invalid(field: &str, message: String) -> JsValue {
    js_error(ErrorReport::invalid_input(field, message))
}

fn id_error(err: ids::IdError) -> JsValue {
    js_error(err.into())
}

// ---------------------------------------------------------------- argument checks
// The main boundary's checks (string, optional string, safe integer, string array), with
// its exact messages, so a caller sees one contract whichever entry it imported.

fn type_name(value: &JsValue) -> String {
    use agentmem::error::Given;
    let string = value.as_string();
    let kind = value.js_typeof().as_string().unwrap_or_default();
    // JavaScript's own text of a number (`0`, `1.5`, `NaN`), asked of JavaScript.
    let number = (kind == "number")
        .then(|| String::from(js_sys::Number::from(value.clone()).to_string_with_radix(10).unwrap_or_default()));
    match kind.as_str() {
        "string" => Given::String(string.as_deref().unwrap_or_default()),
        "number" => Given::NumberText(number.as_deref().unwrap_or_default()),
        "boolean" => Given::Bool(value.is_truthy()),
        "undefined" => Given::Undefined,
        "function" => Given::Function,
        "object" if value.is_null() => Given::Null,
        "object" if js_sys::Array::is_array(value) => Given::Array,
        "object" => Given::Object,
        other => Given::Other(other),
    }
    .to_string()
}

/// A JS string that is valid Unicode: a lone surrogate would otherwise be replaced with
/// U+FFFD on the way in and silently hash a different text. The conversion is what
/// replaces it, so only a string that comes out holding U+FFFD needs the exact check,
/// which costs one call into JS per UTF-16 unit.
fn string(field: &str, value: &JsValue) -> JsResult<String> {
    let Some(js) = value.dyn_ref::<JsString>() else {
        return Err(invalid(field, format!("{field} must be a string, got {}", type_name(value))));
    };
    let text = String::from(js);
    // U+FFFD in UTF-8; a plain scan, as `str::contains`' searchers cost ~1 KB gzip here.
    if text.as_bytes().windows(3).any(|w| w == [0xef, 0xbf, 0xbd]) && !js.is_valid_utf16() {
        return Err(invalid(field, format!("{field} contains a lone UTF-16 surrogate (not valid Unicode)")));
    }
    Ok(text)
}

fn optional_string(field: &str, value: &JsValue) -> JsResult<Option<String>> {
    if value.is_undefined() || value.is_null() { Ok(None) } else { string(field, value).map(Some) }
}

fn safe_integer(field: &str, value: &JsValue) -> JsResult<u64> {
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=ids::MAX_TIMESTAMP_MS as f64).contains(&n) => Ok(n as u64),
        _ => Err(invalid(field, format!("{field} must be an integer between 0 and 2^53-1"))),
    }
}

fn string_array(field: &str, value: &JsValue) -> JsResult<Vec<String>> {
    let Some(array) = value.dyn_ref::<js_sys::Array>() else {
        return Err(invalid(field, format!("{field} must be an array of strings, got {}", type_name(value))));
    };
    array.iter().enumerate().map(|(i, item)| string(&format!("{field}[{i}]"), &item)).collect()
}

fn namespace(value: &JsValue) -> JsResult<uuid::Uuid> {
    ids::parse_namespace(&string("namespace", value)?).map_err(id_error)
}

// ---------------------------------------------------------------- exports

#[wasm_bindgen(js_name = uuid5)]
pub fn uuid5(name: JsValue, namespace_: JsValue) -> JsResult<String> {
    let name = string("name", &name)?;
    Ok(ids::uuid5(&name, &namespace(&namespace_)?))
}

#[wasm_bindgen(js_name = uuid5Batch)]
pub fn uuid5_batch(names: JsValue, namespace_: JsValue) -> JsResult<Vec<String>> {
    let names = string_array("names", &names)?;
    let ns = namespace(&namespace_)?;
    Ok(names.iter().map(|n| ids::uuid5(n, &ns)).collect())
}

#[wasm_bindgen(js_name = conversationId)]
pub fn conversation_id(contractor_lead_id: JsValue, namespace_: JsValue) -> JsResult<String> {
    let lead = string("contractorLeadId", &contractor_lead_id)?;
    let ns = if namespace_.is_undefined() || namespace_.is_null() { None } else { Some(namespace(&namespace_)?) };
    ids::conversation_id(&lead, ns.as_ref()).map_err(id_error)
}

/// `{ thread_id, checkpoint_ns, checkpoint_id? }`, keys in the main entry's order.
#[wasm_bindgen(js_name = coiaThread)]
pub fn coia_thread(flow: JsValue, id: JsValue) -> JsResult<JsValue> {
    let flow = ids::CoiaFlow::parse(&string("flow", &flow)?).map_err(id_error)?;
    let id = optional_string("id", &id)?;
    let config = ids::coia_thread(flow, id.as_deref()).map_err(id_error)?;
    let out = Object::new();
    set(&out, "thread_id", &config.thread_id.into());
    set(&out, "checkpoint_ns", &config.checkpoint_ns.into());
    if let Some(checkpoint_id) = config.checkpoint_id {
        set(&out, "checkpoint_id", &checkpoint_id.into());
    }
    Ok(out.into())
}

#[wasm_bindgen(js_name = cimThreadId)]
pub fn cim_thread_id(deal_id: JsValue, cim_id: JsValue) -> JsResult<String> {
    let deal = string("dealId", &deal_id)?;
    let cim = string("cimId", &cim_id)?;
    ids::cim_thread_id(&deal, &cim).map_err(id_error)
}

#[wasm_bindgen(js_name = supervisorThreadId)]
pub fn supervisor_thread_id(deal_id: JsValue, timestamp_ms: JsValue) -> JsResult<String> {
    let deal = string("dealId", &deal_id)?;
    let ts = safe_integer("timestampMs", &timestamp_ms)?;
    ids::supervisor_thread_id(&deal, ts).map_err(id_error)
}

/// `{ kind, ...fields }` with the main entry's camelCase names and key order.
#[wasm_bindgen(js_name = parseThreadId)]
pub fn parse_thread_id(thread_id: JsValue) -> JsResult<JsValue> {
    let parsed = ids::parse_thread_id(&string("threadId", &thread_id)?);
    let out = Object::new();
    parsed.js_fields(|name, value| {
        let value = match value {
            ids::FieldValue::Text(s) => JsValue::from_str(s),
            ids::FieldValue::Number(n) => JsValue::from_f64(n),
        };
        set(&out, name, &value);
    });
    Ok(out.into())
}

/// `null` where the SQL function returns NULL, including for a `null` argument.
#[wasm_bindgen(js_name = extractDealId)]
pub fn extract_deal_id(thread_id: JsValue) -> JsResult<JsValue> {
    match optional_string("threadId", &thread_id)? {
        None => Ok(JsValue::NULL),
        Some(id) => Ok(ids::extract_deal_id(&id).map_or(JsValue::NULL, JsValue::from)),
    }
}
