//! The memory tools at the boundary: tool definitions, the option check, and the
//! conversion of one tool call's arguments for `crate::memory::operation`.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::client::{Client, client};
use super::{JsResult, args, json_arg, text, to_js};
use crate::error::ErrorReport;
use crate::memory::{self, Settings};
use crate::op::Step;

/// The five tool definitions in `"anthropic"`, `"openai"` or `"openai-responses"` format;
/// `options.strict` makes them fit the vendor's strict mode.
pub(super) fn memory_definitions(format: JsValue, options: JsValue) -> JsResult<JsValue> {
    let format = args::optional_string("format", &format)?.unwrap_or_else(|| "anthropic".into());
    let strict = memory::definitions::strict_option(text("options", &options)?.as_deref())?;
    to_js(&memory::definitions::definitions(&format, strict).map_err(ErrorReport::from)?)
}

/// Validates `MemoryTools` options up front; returns the user id the tools act for.
pub(super) fn check_memory_options(client_options: JsValue, options: JsValue) -> JsResult<String> {
    let c = client(&client_options)?;
    Ok(Settings::parse(text("options", &options)?.as_deref(), &c.target, js_sys::Date::now())?.1)
}

/// A memory id as the tools read it (`memory::tools::memory_id`), or `undefined` for
/// anything that is not one.
pub(super) fn memory_id(id: JsValue) -> JsResult<JsValue> {
    Ok(id.as_string().and_then(|id| memory::tools::memory_id(&id)).map_or(JsValue::UNDEFINED, JsValue::from))
}

/// One tool call; `op` is the tool's name, `args` `[options, input, knownContent]`: the
/// options and the input as JSON text, and the content the facade last saw of an
/// `update_memory`'s memory (or undefined).
pub(super) fn plan(c: &Client, tool: &str, args: &Array) -> Result<Step, ErrorReport> {
    let (settings, _) = Settings::parse(text("options", &args.get(0))?.as_deref(), &c.target, js_sys::Date::now())?;
    let input = match json_arg("input", &args.get(1))? {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        input => input,
    };
    let known = args::optional_string("knownContent", &args.get(2))?;
    memory::operation(&c.target, settings, tool, input, known.as_deref())
}
