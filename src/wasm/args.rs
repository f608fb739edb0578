//! Argument checks shared by every export: JS gives us `any`, the core wants typed values.

use js_sys::JsString;
use wasm_bindgen::{JsCast, JsValue};

use crate::error::ErrorReport;

/// A JS string that is valid Unicode. Lone surrogates are refused rather than replaced
/// with U+FFFD, which would silently hash or store a different text.
pub fn string(field: &str, value: &JsValue) -> Result<String, ErrorReport> {
    let js: &JsString = value.dyn_ref().ok_or_else(|| {
        ErrorReport::invalid_input(field, format!("{field} must be a string, got {}", type_name(value)))
    })?;
    if !js.is_valid_utf16() {
        return Err(ErrorReport::invalid_input(
            field,
            format!("{field} contains a lone UTF-16 surrogate (not valid Unicode)"),
        ));
    }
    Ok(String::from(js))
}

/// `undefined` / `null` mean "not given"; anything else must be a valid string.
pub fn optional_string(field: &str, value: &JsValue) -> Result<Option<String>, ErrorReport> {
    if value.is_undefined() || value.is_null() { Ok(None) } else { string(field, value).map(Some) }
}

/// A non-negative integer that a JS number represents exactly.
pub fn safe_integer(field: &str, value: &JsValue) -> Result<u64, ErrorReport> {
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=crate::ids::MAX_TIMESTAMP_MS as f64).contains(&n) => Ok(n as u64),
        _ => Err(ErrorReport::invalid_input(field, format!("{field} must be an integer between 0 and 2^53-1"))),
    }
}

/// A JS number (any: the core checks its range).
pub fn number(field: &str, value: &JsValue) -> Result<f64, ErrorReport> {
    value
        .as_f64()
        .ok_or_else(|| ErrorReport::invalid_input(field, format!("{field} must be a number, got {}", type_name(value))))
}

/// An array whose every element is a valid string; errors name the index.
pub fn string_array(field: &str, value: &JsValue) -> Result<Vec<String>, ErrorReport> {
    let array: &js_sys::Array = value.dyn_ref().ok_or_else(|| {
        ErrorReport::invalid_input(field, format!("{field} must be an array of strings, got {}", type_name(value)))
    })?;
    array.iter().enumerate().map(|(i, item)| string(&format!("{field}[{i}]"), &item)).collect()
}

fn type_name(value: &JsValue) -> String {
    use crate::error::Given;
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
