//! Reading what callers pass in. Every value crosses from JavaScript as JSON text (the
//! facades make it with `JSON.stringify`, refusing NaN and Infinity with the value's path,
//! so `Date`s are ISO strings and `undefined` properties are gone, as in any JSON API);
//! these read that text into the values the core works with, and say what is wrong in
//! words a person understands, naming the field at fault.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ErrorReport, json_input_error};

/// JSON text as `T`: `None` (not given) is an error naming `field`. Options objects
/// (`field` "options") name their keys bare (`url`), other values by path (`rows[0].title`).
pub fn parse<T: DeserializeOwned>(field: &str, text: Option<&str>) -> Result<T, ErrorReport> {
    let text = text.ok_or_else(|| ErrorReport::invalid_input(field, format!("{field} is missing")))?;
    let root = if field == "options" { "" } else { field };
    serde_json::from_str(text).map_err(|e| json_input_error(root, field, text, &e))
}

/// JSON text of an options object as `T`; not given (or JSON `null`) means the defaults.
pub fn options<T: DeserializeOwned + Default>(field: &str, text: Option<&str>) -> Result<T, ErrorReport> {
    match text {
        None | Some("null") => Ok(T::default()),
        text => parse(field, text),
    }
}

/// JSON text as a value; not given is JSON `null`.
pub fn value(field: &str, text: Option<&str>) -> Result<Value, ErrorReport> {
    match text {
        None => Ok(Value::Null),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| ErrorReport::invalid_input(field, format!("{field} is not valid JSON: {e}"))),
    }
}

/// An option that must be a whole number in `min..=max` (`default` when absent). Read as
/// any JSON number, so that -1 or 1.5 names the option instead of failing the whole
/// options object.
pub fn integer_option(field: &str, value: Option<f64>, default: u32, min: u32, max: u32) -> Result<u32, ErrorReport> {
    match value {
        None => Ok(default),
        Some(n) if n.fract() == 0.0 && (f64::from(min)..=f64::from(max)).contains(&n) => Ok(n as u32),
        Some(_) => {
            Err(ErrorReport::invalid_input(field, format!("{field} must be an integer between {min} and {max}")))
        }
    }
}
