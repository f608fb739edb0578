//! [`Object`]: an object of named values (a caller's options, a tool's input), every key
//! one of a known list, read value by value.

use serde_json::{Map, Value};

use super::{Choice, choose, expected, missing, value};
use crate::error::Invalid;

/// An object of named values, every key one of `keys`. Paths name nested values
/// (`headers.x-n`, `order[1].column`); top-level keys stand alone (`url`).
pub struct Object<'a> {
    map: &'a Map<String, Value>,
    path: String,
    /// Options (set by a developer, often from the environment) or fields (data).
    options: bool,
}

impl<'a> Object<'a> {
    /// Options at `path` ("" for a caller's options object, whose keys stand alone, and
    /// `label` names the object itself in messages).
    pub fn new(v: &'a Value, path: &str, label: &str, keys: &[&str]) -> Result<Object<'a>, Invalid> {
        Object::read(v, path, label, keys, true)
    }

    /// Fields of data (a tool's input, a state's nested object) at `path`, as [`Object::new`].
    pub fn fields(v: &'a Value, path: &str, label: &str, keys: &[&str]) -> Result<Object<'a>, Invalid> {
        Object::read(v, path, label, keys, false)
    }

    fn read(v: &'a Value, path: &str, label: &str, keys: &[&str], options: bool) -> Result<Object<'a>, Invalid> {
        let Value::Object(map) = v else {
            return Err(expected(if path.is_empty() { label } else { path }, "an object", v));
        };
        let object = Object { map, path: path.to_owned(), options };
        if let Some(k) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(value::unknown(&object.field(k), if options { "option" } else { "field" }, keys));
        }
        Ok(object)
    }

    /// The path of the key `k`.
    pub fn field(&self, k: &str) -> String {
        value::key(&self.path, k)
    }

    /// The value of `k` unless absent or `null` (an optional value left out).
    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }

    /// The value of `k`, which must be given (not `null`).
    pub fn required(&self, k: &str) -> Result<&'a Value, Invalid> {
        self.get(k).ok_or_else(|| {
            let field = self.field(k);
            if self.options {
                // Options usually come from the environment, where a typo leaves them unset.
                Invalid::new(
                    &field,
                    format!("{field} is required; it is missing or undefined (an unset environment variable?)"),
                )
            } else {
                missing(&field)
            }
        })
    }

    /// The value of `k` unless absent; `null` counts as given (for options with a default,
    /// which `null` does not select).
    fn given(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k)
    }

    /// `k` read by `read` (a reader of `value`), when given.
    pub fn read_with<T>(
        &self,
        k: &str,
        read: impl FnOnce(&'a Value, &str) -> Result<T, Invalid>,
    ) -> Result<Option<T>, Invalid> {
        self.get(k).map(|v| read(v, &self.field(k))).transpose()
    }

    pub fn string(&self, k: &str) -> Result<Option<String>, Invalid> {
        self.read_with(k, value::string)
    }

    pub fn required_string(&self, k: &str) -> Result<String, Invalid> {
        value::string(self.required(k)?, &self.field(k))
    }

    /// A string that is not blank, of at most `max` characters ([`value::text`]).
    pub fn text(&self, k: &str, max: usize) -> Result<Option<String>, Invalid> {
        self.read_with(k, |v, field| value::text(v, field, max))
    }

    pub fn number(&self, k: &str) -> Result<Option<f64>, Invalid> {
        self.read_with(k, |v, field| crate::number::of(v).ok_or_else(|| expected(field, "a number", v)))
    }

    /// A number in `lo..=hi`.
    pub fn number_in(&self, k: &str, lo: f64, hi: f64) -> Result<Option<f64>, Invalid> {
        self.read_with(k, |v, field| value::number(v, field, lo, hi))
    }

    /// A whole number in `lo..=hi`.
    pub fn whole(&self, k: &str, lo: i64, hi: i64) -> Result<Option<i64>, Invalid> {
        self.read_with(k, |v, field| value::whole(v, field, lo, hi))
    }

    /// A count of rows: a whole number, 0 or more.
    pub fn count(&self, k: &str) -> Result<Option<u64>, Invalid> {
        self.read_with(k, |v, field| v.as_u64().ok_or_else(|| expected(field, "a whole number of at least 0", v)))
    }

    /// `true` or `false`, `false` when left out.
    pub fn flag(&self, k: &str) -> Result<bool, Invalid> {
        self.given(k).map_or(Ok(false), |v| value::boolean(v, &self.field(k)))
    }

    pub fn strings(&self, k: &str) -> Result<Option<Vec<String>>, Invalid> {
        self.read_with(k, value::strings)
    }

    /// An array of any JSON values, empty when left out.
    pub fn array(&self, k: &str) -> Result<Vec<Value>, Invalid> {
        match self.given(k) {
            None => Ok(Vec::new()),
            Some(v) => value::array(v, &self.field(k)).cloned(),
        }
    }

    /// An object of strings (`headers`), by name; empty when left out.
    pub fn string_map(&self, k: &str) -> Result<Vec<(String, String)>, Invalid> {
        let Some(v) = self.given(k) else { return Ok(Vec::new()) };
        let field = self.field(k);
        value::object(v, &field)?
            .iter()
            .map(|(name, v)| Ok((name.clone(), value::string(v, &value::key(&field, name))?)))
            .collect()
    }

    /// One of the names `T` lists (`crate::string_enum!`).
    pub fn choice<T: Choice>(&self, k: &str) -> Result<Option<T>, Invalid> {
        self.read_with(k, |v, field| choose(field, v))
    }
}
