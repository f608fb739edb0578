//! The memory tools at the boundary: tool definitions, the option check, and the
//! conversion of one tool call's arguments for `crate::memory::operation`.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::client::{Client, client};
use super::{JsResult, args, to_js};
use crate::arguments::JsonText;
use crate::error::ErrorReport;
use crate::memory::{self, Settings, ToolCall};
use crate::op::Step;

/// The five tool definitions in `"anthropic"`, `"openai"` or `"openai-responses"` format;
/// `options.strict` makes them fit the vendor's strict mode.
pub(super) fn memory_definitions(format: JsValue, options: JsValue) -> JsResult<JsValue> {
    let format = args::optional_string("format", &format)?.unwrap_or_else(|| "anthropic".into());
    let strict = memory::definitions::strict_option(args::json_text("options", &options)?.as_deref())?;
    to_js(&memory::definitions::definitions(&format, strict).map_err(ErrorReport::from)?)
}

/// Validates `MemoryTools` options up front; returns the user id the tools act for.
pub(super) fn check_memory_options(client_options: JsValue, options: JsValue) -> JsResult<String> {
    let c = client(&client_options)?;
    Ok(Settings::parse(args::json_text("options", &options)?.as_deref(), &c.target, js_sys::Date::now())?.1)
}

/// A memory id as the tools read it (`memory::tools::memory_id`), or `undefined` for
/// anything that is not one.
pub(super) fn memory_id(id: JsValue) -> JsResult<JsValue> {
    Ok(id.as_string().and_then(|id| memory::tools::memory_id(&id)).map_or(JsValue::UNDEFINED, JsValue::from))
}

/// One tool call; `tool` is the tool's name, `args` as `ToolCall` declares them.
pub(super) fn plan(c: &Client, tool: &str, args: &Array) -> Result<Step, ErrorReport> {
    let call = ToolCall::read(&mut args::ArrayArgs::new(args))?;
    let (settings, _) = Settings::parse(JsonText::of(&call.options), &c.target, js_sys::Date::now())?;
    let input = match call.input {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        input => input,
    };
    memory::operation(&c.target, settings, tool, input, call.known_content.as_deref())
}
