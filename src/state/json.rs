//! Reading untyped JSON into typed values, with errors that name the path of the value at
//! fault (`state.conversations[3].role`), so a caller can find it in a large state.

use serde_json::{Map, Value};

use super::StateError;

/// Largest integer a JS number holds exactly (2^53 - 1): the limit of ms timestamps.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

pub fn key(path: &str, k: &str) -> String {
    format!("{path}.{k}")
}

pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected(path: &str, what: &str, v: &Value) -> StateError {
    StateError::invalid(path, format!("{path} must be {what} (got {})", type_name(v)))
}

pub fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, StateError> {
    v.as_object().ok_or_else(|| expected(path, "an object", v))
}

pub fn string(v: &Value, path: &str) -> Result<String, StateError> {
    v.as_str().map(str::to_owned).ok_or_else(|| expected(path, "a string", v))
}

/// A non-empty string of at most `max` characters: identifiers (session ids, names).
pub fn name(v: &Value, path: &str, max: usize) -> Result<String, StateError> {
    let s = string(v, path)?;
    let n = s.chars().count();
    if s.trim().is_empty() {
        return Err(StateError::invalid(path, format!("{path} must not be empty")));
    }
    if n > max {
        return Err(StateError::invalid(path, format!("{path} is {n} characters; the limit is {max}")));
    }
    Ok(s)
}

pub fn boolean(v: &Value, path: &str) -> Result<bool, StateError> {
    v.as_bool().ok_or_else(|| expected(path, "true or false", v))
}

/// A whole number in `lo..=hi` (JSON numbers such as `3.0` count as whole).
pub fn integer(v: &Value, path: &str, lo: i64, hi: i64) -> Result<i64, StateError> {
    let whole = v.as_i64().or_else(|| v.as_f64().filter(|x| x.fract() == 0.0 && x.abs() < 9.2e18).map(|x| x as i64));
    match whole {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(StateError::invalid(path, format!("{path} must be a whole number from {lo} to {hi} (got {v})"))),
    }
}

/// Milliseconds since the epoch.
pub fn ms(v: &Value, path: &str) -> Result<i64, StateError> {
    integer(v, path, 0, MAX_SAFE_INTEGER).map_err(|_| {
        StateError::invalid(path, format!("{path} must be a timestamp in milliseconds since the epoch (got {v})"))
    })
}

pub fn array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>, StateError> {
    v.as_array().ok_or_else(|| expected(path, "an array", v))
}

pub fn strings(v: &Value, path: &str) -> Result<Vec<String>, StateError> {
    array(v, path)?.iter().enumerate().map(|(i, s)| string(s, &index(path, i))).collect()
}

pub fn objects(v: &Value, path: &str) -> Result<Vec<Map<String, Value>>, StateError> {
    array(v, path)?.iter().enumerate().map(|(i, o)| object(o, &index(path, i)).cloned()).collect()
}

/// The keys of `map` must all be in `allowed`.
pub fn only(map: &Map<String, Value>, path: &str, what: &str, allowed: &[&str]) -> Result<(), StateError> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(StateError::invalid(
            key(path, k),
            format!("{} is not a field of {what}; its fields are {}", key(path, k), allowed.join(", ")),
        )),
    }
}

/// A present, non-null value of `map`.
pub fn get<'a>(map: &'a Map<String, Value>, k: &str) -> Option<&'a Value> {
    map.get(k).filter(|v| !v.is_null())
}

pub fn required<'a>(map: &'a Map<String, Value>, path: &str, k: &str) -> Result<&'a Value, StateError> {
    get(map, k).ok_or_else(|| StateError::invalid(key(path, k), format!("{} is required", key(path, k))))
}

/// One value of a closed set of strings (an enum), with the allowed values in the error.
pub fn one_of<T: Copy>(v: &Value, path: &str, all: &[T], as_str: impl Fn(T) -> &'static str) -> Result<T, StateError> {
    let s = v.as_str().unwrap_or("");
    all.iter().copied().find(|t| as_str(*t) == s).ok_or_else(|| {
        let names: Vec<_> = all.iter().map(|t| as_str(*t)).collect();
        StateError::invalid(path, format!("{path} must be one of {} (got {v})", names.join(", ")))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn errors_name_the_path_and_what_was_expected() {
        let e = strings(&json!(["a", 1]), "state.errors").unwrap_err();
        assert_eq!(e.field(), Some("state.errors[1]"));
        assert!(e.to_string().contains("must be a string (got number)"), "{e}");
        assert_eq!(ms(&json!(-1), "t").unwrap_err().field(), Some("t"));
        assert_eq!(ms(&json!(1.5), "t").unwrap_err().field(), Some("t"));
        assert_eq!(ms(&json!(MAX_SAFE_INTEGER + 1), "t").unwrap_err().field(), Some("t"));
        assert_eq!(ms(&json!(1_700_000_000_000.0), "t"), Ok(1_700_000_000_000));
        assert_eq!(name(&json!("  "), "s", 5).unwrap_err().field(), Some("s"));
        assert_eq!(name(&json!("ééééé"), "s", 5), Ok("ééééé".into()), "characters, not bytes");
        assert!(name(&json!("éééééé"), "s", 5).is_err());
        let e = only(json!({"a": 1, "zz": 2}).as_object().unwrap(), "x", "X", &["a"]).unwrap_err();
        assert_eq!(e.field(), Some("x.zz"));
    }
}
