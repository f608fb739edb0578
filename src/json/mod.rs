//! JSON by hand: values built here (`value!`, [`object`]), written as text by [`write`] and
//! read from text by [`parse`]. Typed values are written out this way because serde's
//! `derive(Serialize)` gives every struct, and every type of field, serializer code of its
//! own (`serialize_entry`, `collect_seq`, `serialize_value` per type), all of it compiled
//! into the module; a struct's `to_json` built with these is a list of map insertions
//! through one code path.

// Its `json_array!` serves the modules after `json`.
#[macro_use]
pub mod compact;
mod read;
mod write;

pub use read::{SyntaxError, parse};
pub use write::{Text, text, write, write_list, write_object, write_str};

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

/// An object of `fields`, every one set.
pub fn fields(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (k, v) in fields {
        map.insert(k.to_owned(), v);
    }
    Value::Object(map)
}

/// What [`value!`] takes: the types the core builds JSON from, by reference as
/// `serde_json::json!` takes them, but converted without serde. `json!` goes through
/// `serde_json::to_value`, a serializer whose code (plus an `unwrap` per value) the module
/// would carry only for that.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl ToValue for Map<String, Value> {
    fn to_value(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::from(self)
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::from(self.as_str())
    }
}

/// Numbers and booleans, as `Value::from` makes them (a non-finite float is `null`).
macro_rules! to_value_by_copy {
    ($($t:ty),*) => {
        $(impl ToValue for $t {
            fn to_value(&self) -> Value {
                Value::from(*self)
            }
        })*
    };
}
to_value_by_copy!(bool, i32, i64, u32, u64, usize, f32, f64);

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

/// `None` is `null`.
impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::to_value)
    }
}

impl<T: ToValue> ToValue for [T] {
    fn to_value(&self) -> Value {
        Value::Array(self.iter().map(T::to_value).collect())
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    fn to_value(&self) -> Value {
        self.as_slice().to_value()
    }
}

/// JSON built in code, like `serde_json::json!` but through [`ToValue`]: `value!(x)`,
/// `value!([a, b])`, `value!({ "k": v, ... })`. A nested object or array is written as a
/// `value!` of its own, and `null` as `Value::Null`.
macro_rules! value {
    ([ $($elem:expr),* $(,)? ]) => {
        serde_json::Value::Array(vec![$($crate::json::ToValue::to_value(&$elem)),*])
    };
    ({ $($key:literal : $val:expr),* $(,)? }) => {
        $crate::json::fields(vec![$(($key, $crate::json::ToValue::to_value(&$val))),*])
    };
    ($other:expr) => {
        $crate::json::ToValue::to_value(&$other)
    };
}
