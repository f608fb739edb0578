//! Exports for `crate::ids`.

use wasm_bindgen::prelude::*;

use super::{JsResult, args, set};
use crate::error::ErrorReport;
use crate::ids;

fn namespace(value: &JsValue) -> Result<uuid::Uuid, ErrorReport> {
    Ok(ids::parse_namespace(&args::string("namespace", value)?)?)
}

pub(super) fn uuid5(name: JsValue, namespace_: JsValue) -> JsResult<String> {
    let name = args::string("name", &name)?;
    Ok(ids::uuid5(&name, &namespace(&namespace_)?))
}

pub(super) fn uuid5_batch(names: JsValue, namespace_: JsValue) -> JsResult<Vec<String>> {
    let names = args::string_array("names", &names)?;
    let ns = namespace(&namespace_)?;
    Ok(names.iter().map(|n| ids::uuid5(n, &ns)).collect())
}

pub(super) fn conversation_id(contractor_lead_id: JsValue, namespace_: JsValue) -> JsResult<String> {
    let lead = args::string("contractorLeadId", &contractor_lead_id)?;
    let ns = if namespace_.is_undefined() || namespace_.is_null() { None } else { Some(namespace(&namespace_)?) };
    Ok(ids::conversation_id(&lead, ns.as_ref()).map_err(ErrorReport::from)?)
}

pub(super) fn coia_thread(flow: JsValue, id: JsValue) -> JsResult<JsValue> {
    let flow = ids::CoiaFlow::parse(&args::string("flow", &flow)?).map_err(ErrorReport::from)?;
    let id = args::optional_string("id", &id)?;
    let config = ids::coia_thread(flow, id.as_deref()).map_err(ErrorReport::from)?;
    let out: JsValue = js_sys::Object::new().into();
    set(&out, "thread_id", &config.thread_id.into());
    set(&out, "checkpoint_ns", &config.checkpoint_ns.into());
    if let Some(checkpoint_id) = config.checkpoint_id {
        set(&out, "checkpoint_id", &checkpoint_id.into());
    }
    Ok(out)
}

pub(super) fn cim_thread_id(deal_id: JsValue, cim_id: JsValue) -> JsResult<String> {
    let deal = args::string("dealId", &deal_id)?;
    let cim = args::string("cimId", &cim_id)?;
    Ok(ids::cim_thread_id(&deal, &cim).map_err(ErrorReport::from)?)
}

pub(super) fn supervisor_thread_id(deal_id: JsValue, timestamp_ms: JsValue) -> JsResult<String> {
    let deal = args::string("dealId", &deal_id)?;
    let ts = args::safe_integer("timestampMs", &timestamp_ms)?;
    Ok(ids::supervisor_thread_id(&deal, ts).map_err(ErrorReport::from)?)
}

/// `{ kind, ...fields }`, fields in camelCase.
pub(super) fn parse_thread_id(thread_id: JsValue) -> JsResult<JsValue> {
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
pub(super) fn extract_deal_id(thread_id: JsValue) -> JsResult<JsValue> {
    match args::optional_string("threadId", &thread_id)? {
        None => Ok(JsValue::NULL),
        Some(id) => Ok(ids::extract_deal_id(&id).map_or(JsValue::NULL, JsValue::from)),
    }
}
