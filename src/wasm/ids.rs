//! `crate::ids` for JavaScript: the main module's `callSync` and the
//! agentmem-supabase/ids module (crates/ids-wasm) both export these, so the two entries
//! check the same arguments with the same messages and build the same results. Each is
//! called from one place in either module (a `callSync` arm, an export), hence `#[inline]`:
//! compiled into that caller, as when these lived in each module.

use wasm_bindgen::prelude::*;

use super::{JsResult, args, set};
use crate::error::Invalid;
use crate::ids;

/// Every id failure is a refused argument: one conversion, the argument readers' own,
/// rather than one inlined at each call.
fn id_error(e: ids::IdError) -> JsValue {
    Invalid::from(e).into()
}

fn namespace(value: &JsValue) -> JsResult<uuid::Uuid> {
    ids::parse_namespace(&args::string("namespace", value)?).map_err(id_error)
}

#[inline]
pub fn uuid5(name: JsValue, namespace_: JsValue) -> JsResult<String> {
    let name = args::string("name", &name)?;
    Ok(ids::uuid5(&name, &namespace(&namespace_)?))
}

#[inline]
pub fn uuid5_batch(names: JsValue, namespace_: JsValue) -> JsResult<Vec<String>> {
    let names = args::string_array("names", &names)?;
    let ns = namespace(&namespace_)?;
    Ok(names.iter().map(|n| ids::uuid5(n, &ns)).collect())
}

#[inline]
pub fn conversation_id(contractor_lead_id: JsValue, namespace_: JsValue) -> JsResult<String> {
    let lead = args::string("contractorLeadId", &contractor_lead_id)?;
    let ns = if namespace_.is_undefined() || namespace_.is_null() { None } else { Some(namespace(&namespace_)?) };
    ids::conversation_id(&lead, ns.as_ref()).map_err(id_error)
}

#[inline]
pub fn coia_thread(flow: JsValue, id: JsValue) -> JsResult<JsValue> {
    let flow = ids::CoiaFlow::parse(&args::string("flow", &flow)?).map_err(id_error)?;
    let id = args::optional_string("id", &id)?;
    let config = ids::coia_thread(flow, id.as_deref()).map_err(id_error)?;
    let out: JsValue = js_sys::Object::new().into();
    set(&out, "thread_id", &config.thread_id.into());
    set(&out, "checkpoint_ns", &config.checkpoint_ns.into());
    if let Some(checkpoint_id) = config.checkpoint_id {
        set(&out, "checkpoint_id", &checkpoint_id.into());
    }
    Ok(out)
}

#[inline]
pub fn cim_thread_id(deal_id: JsValue, cim_id: JsValue) -> JsResult<String> {
    let deal = args::string("dealId", &deal_id)?;
    let cim = args::string("cimId", &cim_id)?;
    ids::cim_thread_id(&deal, &cim).map_err(id_error)
}

#[inline]
pub fn supervisor_thread_id(deal_id: JsValue, timestamp_ms: JsValue) -> JsResult<String> {
    let deal = args::string("dealId", &deal_id)?;
    let ts = args::safe_integer("timestampMs", &timestamp_ms)?;
    ids::supervisor_thread_id(&deal, ts).map_err(id_error)
}

/// `{ kind, ...fields }`, fields in camelCase.
#[inline]
pub fn parse_thread_id(thread_id: JsValue) -> JsResult<JsValue> {
    let parsed = ids::parse_thread_id(&args::string("threadId", &thread_id)?);
    let out: JsValue = js_sys::Object::new().into();
    parsed.js_fields(|name, value| set(&out, name, &field(value)));
    Ok(out)
}

fn field(value: ids::FieldValue<'_>) -> JsValue {
    match value {
        ids::FieldValue::Text(s) => s.into(),
        ids::FieldValue::Number(n) => JsValue::from_f64(n),
    }
}

/// `null` where the SQL function returns NULL, including for a `null` argument.
#[inline]
pub fn extract_deal_id(thread_id: JsValue) -> JsResult<JsValue> {
    match args::optional_string("threadId", &thread_id)? {
        None => Ok(JsValue::NULL),
        Some(id) => Ok(ids::extract_deal_id(&id).map_or(JsValue::NULL, JsValue::from)),
    }
}
