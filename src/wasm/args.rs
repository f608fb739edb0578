//! The JavaScript side of an export's arguments and errors, one for both modules (the main
//! one and agentmem-supabase/ids, which compiles this without the `bindings` feature): JS
//! gives `any`, the core wants typed values, and every refusal leaves as an
//! `AgentmemError` (pkg-template/errors.js, shared by both entries), never as a string.
//! The checks below refuse with an [`Invalid`] naming the field, in the wording of
//! [`Given`], which converts into that `AgentmemError` with code `invalid_input`.

use js_sys::{JsString, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{ErrorReport, Given, Invalid};

#[wasm_bindgen(raw_module = "./errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = AgentmemError)]
    type JsAgentmemError;

    #[wasm_bindgen(constructor, js_class = AgentmemError)]
    fn new(code: &str, message: &str, props: JsValue) -> JsAgentmemError;
}

/// An `AgentmemError` with its optional properties (`field`, `status`, ...), set on `props`
/// as JS names them.
pub fn agentmem_error(code: &str, message: &str, props: Object) -> JsValue {
    JsAgentmemError::new(code, message, props.into()).into()
}

/// Sets `obj[key]`. Reflect.set on a fresh ordinary object cannot fail; objects built key
/// by key keep the order their keys are set in.
pub fn set(obj: &JsValue, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

/// Through the one conversion of every error (`From<ErrorReport>`, src/wasm/mod.rs): a
/// lighter constructor of its own would be a second copy of that work in the main module.
impl From<Invalid> for JsValue {
    fn from(e: Invalid) -> JsValue {
        ErrorReport::from(e).into()
    }
}

/// A JS string that is valid Unicode: a lone surrogate would otherwise be replaced with
/// U+FFFD on the way in and silently hash or store a different text. The conversion is
/// what replaces it, so only a string that comes out holding U+FFFD needs the exact check,
/// which costs one call into JS per UTF-16 unit.
pub fn string(field: &str, value: &JsValue) -> Result<String, Invalid> {
    let Some(js) = value.dyn_ref::<JsString>() else {
        return Err(Invalid::new(field, format!("{field} must be a string, got {}", type_name(value))));
    };
    let text = String::from(js);
    // U+FFFD in UTF-8, by a plain scan: `str::contains` would link its substring searchers
    // into the ids module.
    if text.as_bytes().windows(3).any(|w| w == [0xef, 0xbf, 0xbd]) && !js.is_valid_utf16() {
        return Err(Invalid::new(field, format!("{field} contains a lone UTF-16 surrogate (not valid Unicode)")));
    }
    Ok(text)
}

/// `undefined` / `null` mean "not given"; anything else must be a valid string.
pub fn optional_string(field: &str, value: &JsValue) -> Result<Option<String>, Invalid> {
    if value.is_undefined() || value.is_null() { Ok(None) } else { string(field, value).map(Some) }
}

/// A non-negative integer that a JS number represents exactly.
pub fn safe_integer(field: &str, value: &JsValue) -> Result<u64, Invalid> {
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=crate::ids::MAX_TIMESTAMP_MS as f64).contains(&n) => Ok(n as u64),
        _ => Err(Invalid::new(field, format!("{field} must be an integer between 0 and 2^53-1"))),
    }
}

/// A JS number (any: the caller checks its range).
#[cfg(feature = "bindings")]
pub fn number(field: &str, value: &JsValue) -> Result<f64, Invalid> {
    value.as_f64().ok_or_else(|| Invalid::new(field, format!("{field} must be a number, got {}", type_name(value))))
}

/// An array whose every element is a valid string; errors name the index.
pub fn string_array(field: &str, value: &JsValue) -> Result<Vec<String>, Invalid> {
    let Some(array) = value.dyn_ref::<js_sys::Array>() else {
        return Err(Invalid::new(field, format!("{field} must be an array of strings, got {}", type_name(value))));
    };
    array.iter().enumerate().map(|(i, item)| string(&format!("{field}[{i}]"), &item)).collect()
}

/// JSON text from a facade: `undefined` / `null` mean "not given". The facades turn
/// every caller value into JSON text before calling in, so the module never reads a
/// caller's object (whose getters or Proxy traps could throw through wasm frames).
#[cfg(feature = "bindings")]
pub fn json_text(field: &str, v: &JsValue) -> Result<Option<String>, Invalid> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string().map(Some).ok_or_else(|| Invalid::new(field, format!("{field} must arrive as JSON text")))
}

/// JSON text from a facade as a value (not given: JSON null).
#[cfg(feature = "bindings")]
pub fn json(field: &str, v: &JsValue) -> Result<serde_json::Value, Invalid> {
    crate::input::value(field, json_text(field, v)?.as_deref())
}

/// What a JS value is, as messages name it (`Given`).
pub fn type_name(value: &JsValue) -> String {
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

/// A call's arguments as a facade passed them (a JS array), read in order: the one
/// [`crate::arguments::Arguments`] of every capability.
#[cfg(feature = "bindings")]
use crate::arguments::keep;

#[cfg(feature = "bindings")]
pub struct ArrayArgs<'a> {
    array: &'a js_sys::Array,
    next: u32,
    /// The first argument that could not be read ([`crate::arguments::keep`]).
    error: Option<Invalid>,
}

#[cfg(feature = "bindings")]
impl<'a> ArrayArgs<'a> {
    pub fn new(array: &'a js_sys::Array) -> Self {
        Self::starting_at(array, 0)
    }

    /// The arguments from index `first` on (those before are read otherwise).
    pub fn starting_at(array: &'a js_sys::Array, first: u32) -> Self {
        ArrayArgs { array, next: first, error: None }
    }

    fn next(&mut self) -> JsValue {
        self.next += 1;
        self.array.get(self.next - 1)
    }
}

/// `field` must be an array (`what` says of what).
#[cfg(feature = "bindings")]
fn array<'a>(field: &str, v: &'a JsValue, what: &str) -> Result<&'a js_sys::Array, Invalid> {
    v.dyn_ref::<js_sys::Array>().ok_or_else(|| Invalid::new(field, format!("{field} must be {what}")))
}

/// A serializer's `dumpsTyped` result: `[type, Uint8Array]`.
#[cfg(feature = "bindings")]
fn typed_bytes(field: &str, pair: &JsValue) -> Result<crate::checkpoint::TypedBytes, Invalid> {
    let pair = array(field, pair, "the serializer's [type, Uint8Array] pair")?;
    let type_ = string(&format!("{field}[0]"), &pair.get(0))?;
    let bytes = pair
        .get(1)
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| Invalid::new(field, format!("{field}: the serializer must return [type, Uint8Array]")))?;
    Ok(crate::checkpoint::TypedBytes { type_, bytes: bytes.to_vec() })
}

#[cfg(feature = "bindings")]
impl crate::arguments::Arguments for ArrayArgs<'_> {
    fn json(&mut self, field: &str) -> serde_json::Value {
        let read = json(field, &self.next());
        keep(&mut self.error, read)
    }

    fn string(&mut self, field: &str) -> String {
        let read = string(field, &self.next());
        keep(&mut self.error, read)
    }

    fn text(&mut self, field: &str) -> Option<String> {
        let read = optional_string(field, &self.next());
        keep(&mut self.error, read)
    }

    fn integer(&mut self, field: &str) -> Option<u64> {
        let v = self.next();
        let read = if v.is_undefined() || v.is_null() { Ok(None) } else { safe_integer(field, &v).map(Some) };
        keep(&mut self.error, read)
    }

    fn number(&mut self, field: &str) -> f64 {
        let read = number(field, &self.next());
        keep(&mut self.error, read)
    }

    fn typed_bytes(&mut self, field: &str) -> crate::checkpoint::TypedBytes {
        let read = typed_bytes(field, &self.next());
        keep(&mut self.error, read)
    }

    fn named_typed_bytes(&mut self, field: &str) -> Vec<(String, crate::checkpoint::TypedBytes)> {
        let read = array(field, &self.next(), "an array of [channel, [type, bytes]]").and_then(|items| {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let f = format!("{field}[{i}]");
                    let item = array(&f, &item, "a [channel, [type, bytes]] pair")?;
                    Ok((string(&f, &item.get(0))?, typed_bytes(&f, &item.get(1))?))
                })
                .collect()
        });
        keep(&mut self.error, read)
    }

    fn finish(&mut self) -> Result<(), Invalid> {
        self.error.take().map_or(Ok(()), Err)
    }
}
