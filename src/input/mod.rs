//! Reading what callers pass in. Every value crosses from JavaScript as JSON text (the
//! facades make it with `JSON.stringify`, refusing NaN and Infinity with the value's path,
//! so `Date`s are ISO strings and `undefined` properties are gone, as in any JSON API);
//! these read that text into the values the core works with, and say what is wrong in
//! words a person understands, naming the field at fault by its path.
//!
//! One wording for each mistake, whatever the capability (client options, a tool call, a
//! state, a checkpoint config):
//!
//! - wrong kind: `{field} must be {what}, got {what was given}` (`got the string "5000"`);
//! - missing: `{field} is required` (an option adds where it usually comes from);
//! - unknown key: `{field} is not a known option|field; expected one of: a, b, c`;
//! - empty: `{field} must not be empty`; too long: `{field} is {n} characters; the limit is {max}`.
//!
//! Text is taken as given, never trimmed: what a caller stores is what it reads back, and
//! a text that must not be empty is refused when it is blank (whitespace only). Values of
//! a format (UUIDs, dates, numbers written as text) are read ignoring surrounding
//! whitespace and kept in their canonical form.

#[macro_use]
mod choice;
mod object;
mod value;

pub use choice::{Choice, choose, choose_index, choose_str};
pub use object::Object;
use serde_json::{Map, Value};
pub use value::*;

pub use crate::error::Invalid;

/// A JSON object of `entries`, in their order; a later entry wins over an earlier one with
/// the same key (as with `collect()`). Inserted one by one: the map's `FromIterator`
/// (reserving and rehashing ahead) is larger code, and every call site would carry a copy.
pub fn map_of(entries: impl IntoIterator<Item = (String, Value)>) -> Map<String, Value> {
    let mut map = Map::new();
    for (k, v) in entries {
        map.insert(k, v);
    }
    map
}

/// JSON text as a value; not given is JSON `null`.
pub fn value(field: &str, text: Option<&str>) -> Result<Value, Invalid> {
    match text {
        None => Ok(Value::Null),
        Some(text) => {
            crate::json::parse(text).map_err(|e| Invalid::new(field, format!("{field} is not valid JSON: {e}")))
        }
    }
}

/// JSON text that must be given, as a value.
pub fn given(field: &str, text: Option<&str>) -> Result<Value, Invalid> {
    value(field, Some(text.ok_or_else(|| missing(field))?))
}

/// An options object (JSON text) read by `parse`; not given, or JSON `null`, means the
/// defaults.
pub fn options<T: Default, E: From<Invalid>>(text: Option<&str>, parse: fn(&Value) -> Result<T, E>) -> Result<T, E> {
    match value("options", text)? {
        Value::Null => Ok(T::default()),
        v => parse(&v),
    }
}

/// How the facades send a function found in an options object (`json.js` `optionsJson`):
/// JSON has no functions, and dropping one would hide a misspelled option.
pub const FUNCTION_MARK: &str = "\u{0}function";

/// A value as a message shows what the caller gave: `the string "5000"`, `the number 1`,
/// `true`, `null`, `an object`, `an array`, `a function`.
pub fn describe(v: &Value) -> String {
    use crate::error::Given;
    match v {
        Value::String(s) => Given::String(s),
        Value::Number(n) => Given::NumberText(n.as_str()),
        Value::Bool(b) => Given::Bool(*b),
        Value::Null => Given::Null,
        Value::Object(m) if m.len() == 1 && m.contains_key(FUNCTION_MARK) => Given::Function,
        Value::Object(_) => Given::Object,
        Value::Array(_) => Given::Array,
    }
    .to_string()
}

/// `{field} must be {what}, got {what was given}`: the one wording of a value of the
/// wrong kind.
pub fn expected(field: &str, what: &str, got: &Value) -> Invalid {
    Invalid::new(field, format!("{field} must be {what}, got {}", describe(got)))
}

/// `{field} is required`: the one wording of a missing value.
pub fn missing(field: &str) -> Invalid {
    Invalid::new(field, format!("{field} is required"))
}

/// An option that must be a whole number in `min..=max` (`default` when absent). Read as
/// any JSON number, so that -1 or 1.5 names the option instead of failing the whole
/// options object.
pub fn integer_option(field: &str, value: Option<&Value>, default: u32, min: u32, max: u32) -> Result<u32, Invalid> {
    match value {
        None => Ok(default),
        Some(v) => whole(v, field, i64::from(min), i64::from(max)).map(|n| n as u32),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn client(v: Value) -> Result<(), Invalid> {
        let keys = ["url", "timeoutMs", "headers", "strict", "order"];
        let o = Object::new(&v, "", "options", &keys)?;
        o.required_string("url")?;
        o.number("timeoutMs")?;
        o.string_map("headers")?;
        o.flag("strict")?;
        if let Some(order) = o.get("order") {
            for (i, term) in order.as_array().into_iter().flatten().enumerate() {
                Object::new(term, &format!("order[{i}]"), "", &["column"])?.required_string("column")?;
            }
        }
        Ok(())
    }

    #[test]
    fn mistakes_read_as_sentences_naming_the_option() {
        let cases = [
            (
                json!({"strict": true}),
                "url",
                "url is required; it is missing or undefined (an unset environment variable?)",
            ),
            (
                json!({"url": "u", "timeoutMs": "5000"}),
                "timeoutMs",
                r#"timeoutMs must be a number, got the string "5000""#,
            ),
            (
                json!({"url": "u", "headers": {"a": "b", "x-n": 1}}),
                "headers.x-n",
                "headers.x-n must be a string, got the number 1",
            ),
            (json!({"url": "u", "headers": []}), "headers", "headers must be an object, got an array"),
            (
                json!({"url": "u", "timeout": 5}),
                "timeout",
                "timeout is not a known option; expected one of: url, timeoutMs, headers, strict, order",
            ),
            (json!({"url": "u", "strict": null}), "strict", "strict must be a boolean, got null"),
            (json!({"url": "u", "strict": 1.5}), "strict", "strict must be a boolean, got the number 1.5"),
            (
                json!({"url": "u", "order": [{"column": "a"}, {"column": true}]}),
                "order[1].column",
                "order[1].column must be a string, got true",
            ),
            (
                json!({"url": "u", "order": [{"column": "a"}, {}]}),
                "order[1].column",
                "order[1].column is required; it is missing or undefined (an unset environment variable?)",
            ),
            (
                json!({"url": "u", "order": [{"col": "a"}]}),
                "order[0].col",
                "order[0].col is not a known option; expected one of: column",
            ),
            (json!("x"), "options", r#"options must be an object, got the string "x""#),
        ];
        for (v, field, message) in cases {
            let r = client(v.clone()).unwrap_err();
            assert_eq!((r.field.as_str(), r.message.as_str()), (field, message), "{v}");
        }
        assert!(
            client(json!({"url": "u", "timeoutMs": null, "headers": {"x": "y"}})).is_ok(),
            "null leaves an optional option out"
        );
    }
}
