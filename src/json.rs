//! Typed values written out as JSON, by hand. serde's `derive(Serialize)` gives every
//! struct, and every type of field, serializer code of its own (`serialize_entry`,
//! `collect_seq`, `serialize_value` per type, several KB of .wasm in all); a struct's
//! `to_json` built with these is a list of map insertions.

use serde_json::{Map, Value};

/// An object of `fields`, leaving out those that are `None` (serde's
/// `skip_serializing_if = "Option::is_none"`).
pub fn object(fields: Vec<(&str, Option<Value>)>) -> Map<String, Value> {
    let mut map = Map::new();
    for (k, v) in fields {
        if let Some(v) = v {
            map.insert(k.to_owned(), v);
        }
    }
    map
}

/// `object(fields)` with `extra`'s entries added (serde's `flatten`).
pub fn object_with(fields: Vec<(&str, Option<Value>)>, extra: &Map<String, Value>) -> Value {
    let mut map = object(fields);
    for (k, v) in extra {
        map.insert(k.clone(), v.clone());
    }
    Value::Object(map)
}

/// A text, or `null`.
pub fn opt_text(v: &Option<String>) -> Value {
    v.as_deref().map_or(Value::Null, Value::from)
}

/// An array of texts.
pub fn texts(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::from(s.as_str())).collect())
}
