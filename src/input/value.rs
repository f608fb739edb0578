//! Readers of one JSON value at a path (`state.conversations[3].role`), each refusing a
//! value of the wrong kind with the crate's one wording (see the module above).

use serde_json::{Map, Value};

use super::{expected, missing};
use crate::error::Invalid;

/// Largest integer a JS number holds exactly (2^53 - 1): the limit of ms timestamps.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// The path of the key `k` of the object at `path` (`k` alone at the top level).
pub fn key(path: &str, k: &str) -> String {
    if path.is_empty() { k.to_owned() } else { format!("{path}.{k}") }
}

/// The path of item `i` of the array at `path`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

pub fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, Invalid> {
    v.as_object().ok_or_else(|| expected(path, "an object", v))
}

pub fn string(v: &Value, path: &str) -> Result<String, Invalid> {
    v.as_str().map(str::to_owned).ok_or_else(|| expected(path, "a string", v))
}

/// A string that is not blank, of at most `max` characters (identifiers, names, a
/// memory's content), as given.
pub fn text(v: &Value, path: &str, max: usize) -> Result<String, Invalid> {
    let s = string(v, path)?;
    if s.trim().is_empty() {
        return Err(Invalid::new(path, format!("{path} must not be empty")));
    }
    at_most(&s, path, max)?;
    Ok(s)
}

/// Ids a caller chooses (thread ids, namespaces, checkpoint and task ids, channel names,
/// session ids) are at most this many characters; the SQL functions check the same.
pub const MAX_ID_CHARS: usize = 255;

/// `{path} is {n} characters; the limit is {max}` when `s` is longer than `max` characters.
pub fn at_most(s: &str, path: &str, max: usize) -> Result<(), Invalid> {
    let n = s.chars().count();
    if n > max {
        return Err(Invalid::new(path, format!("{path} is {n} characters; the limit is {max}")));
    }
    Ok(())
}

pub fn boolean(v: &Value, path: &str) -> Result<bool, Invalid> {
    v.as_bool().ok_or_else(|| expected(path, "a boolean", v))
}

/// A whole number in `lo..=hi` (JSON numbers such as `3.0` count as whole).
pub fn whole(v: &Value, path: &str, lo: i64, hi: i64) -> Result<i64, Invalid> {
    let n =
        v.as_i64().or_else(|| crate::number::of(v).filter(|x| x.fract() == 0.0 && x.abs() < 9.2e18).map(|x| x as i64));
    n.filter(|n| (lo..=hi).contains(n)).ok_or_else(|| expected(path, &format!("a whole number from {lo} to {hi}"), v))
}

/// A number in `lo..=hi` (finite bounds).
pub fn number(v: &Value, path: &str, lo: f64, hi: f64) -> Result<f64, Invalid> {
    // The bounds through crate::number rather than `{lo}`: the same text, and core's float
    // formatting (an algorithm with tables of its own) stays out of the module.
    use crate::number::positional;
    crate::number::of(v)
        .filter(|x| (lo..=hi).contains(x))
        .ok_or_else(|| expected(path, &format!("a number from {} to {}", positional(lo), positional(hi)), v))
}

/// Milliseconds since the epoch.
pub fn ms(v: &Value, path: &str) -> Result<i64, Invalid> {
    whole(v, path, 0, MAX_SAFE_INTEGER).map_err(|_| expected(path, "a timestamp in milliseconds since the epoch", v))
}

pub fn array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>, Invalid> {
    v.as_array().ok_or_else(|| expected(path, "an array", v))
}

pub fn strings(v: &Value, path: &str) -> Result<Vec<String>, Invalid> {
    array(v, path)?.iter().enumerate().map(|(i, s)| string(s, &index(path, i))).collect()
}

pub fn objects(v: &Value, path: &str) -> Result<Vec<Map<String, Value>>, Invalid> {
    array(v, path)?.iter().enumerate().map(|(i, o)| object(o, &index(path, i)).cloned()).collect()
}

/// `{path}.{k} is not a known {noun}; expected one of: ...` unless every key of `map` is
/// in `allowed`; `noun` is "option" or "field".
pub fn only(map: &Map<String, Value>, path: &str, noun: &str, allowed: &[&str]) -> Result<(), Invalid> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(unknown(&key(path, k), noun, allowed)),
    }
}

/// The one wording of a key that is not one of `allowed`; `noun` is "option" or "field".
pub(super) fn unknown(field: &str, noun: &str, allowed: &[&str]) -> Invalid {
    Invalid::new(field, format!("{field} is not a known {noun}; expected one of: {}", allowed.join(", ")))
}

/// A present, non-null value of `map`.
pub fn get<'a>(map: &'a Map<String, Value>, k: &str) -> Option<&'a Value> {
    map.get(k).filter(|v| !v.is_null())
}

/// A present, non-null value of `map`, or `{path}.{k} is required`.
pub fn required<'a>(map: &'a Map<String, Value>, path: &str, k: &str) -> Result<&'a Value, Invalid> {
    get(map, k).ok_or_else(|| missing(&key(path, k)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn errors_name_the_path_and_what_was_expected() {
        let e = strings(&json!(["a", 1]), "state.errors").unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("state.errors[1]", "state.errors[1] must be a string, got the number 1")
        );
        for bad in [json!(-1), json!(1.5), json!(MAX_SAFE_INTEGER + 1), json!("1")] {
            let e = ms(&bad, "t").unwrap_err();
            assert_eq!(e.field, "t", "{bad}");
            assert!(e.message.starts_with("t must be a timestamp in milliseconds since the epoch, got "), "{e}");
        }
        assert_eq!(ms(&json!(1_700_000_000_000.0), "t"), Ok(1_700_000_000_000));
        assert_eq!(text(&json!("  "), "s", 5).unwrap_err(), Invalid::new("s", "s must not be empty"));
        assert_eq!(text(&json!(" a "), "s", 5), Ok(" a ".into()), "text is kept as given, not trimmed");
        assert_eq!(text(&json!("ééééé"), "s", 5), Ok("ééééé".into()), "characters, not bytes");
        assert_eq!(text(&json!("éééééé"), "s", 5).unwrap_err(), Invalid::new("s", "s is 6 characters; the limit is 5"));
        assert_eq!(
            whole(&json!(2.5), "n", 0, 9).unwrap_err(),
            Invalid::new("n", "n must be a whole number from 0 to 9, got the number 2.5")
        );
        assert_eq!(
            number(&json!(2), "n", -1.0, 0.5).unwrap_err(),
            Invalid::new("n", "n must be a number from -1 to 0.5, got the number 2")
        );
        let e = only(json!({"a": 1, "zz": 2}).as_object().unwrap(), "x", "field", &["a"]).unwrap_err();
        assert_eq!(e, Invalid::new("x.zz", "x.zz is not a known field; expected one of: a"));
        assert_eq!(
            required(json!({"a": null}).as_object().unwrap(), "x", "a").unwrap_err(),
            Invalid::new("x.a", "x.a is required")
        );
    }
}
