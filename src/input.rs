//! Reading what callers pass in. Every value crosses from JavaScript as JSON text (the
//! facades make it with `JSON.stringify`, refusing NaN and Infinity with the value's path,
//! so `Date`s are ISO strings and `undefined` properties are gone, as in any JSON API);
//! these read that text into the values the core works with, and say what is wrong in
//! words a person understands, naming the field at fault.

use serde_json::{Map, Value};

/// An enum of names (`Exact = "exact"`), with `ALL`, `as_str` and [`Choice`], which reads
/// it from JSON with the one wording of a name not in the set.
macro_rules! string_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $crate::input::Choice for $name {
            const ALL: &'static [$name] = $name::ALL;
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }
    };
}

use crate::error::ErrorReport;

/// JSON text as a value; not given is JSON `null`.
pub fn value(field: &str, text: Option<&str>) -> Result<Value, ErrorReport> {
    match text {
        None => Ok(Value::Null),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| ErrorReport::invalid_input(field, format!("{field} is not valid JSON: {e}"))),
    }
}

/// JSON text that must be given (`{field} is missing` otherwise), as a value.
pub fn given(field: &str, text: Option<&str>) -> Result<Value, ErrorReport> {
    let text = text.ok_or_else(|| ErrorReport::invalid_input(field, format!("{field} is missing")))?;
    value(field, Some(text))
}

/// An options object (JSON text) read by `parse`; not given, or JSON `null`, means the
/// defaults.
pub fn options<T: Default>(text: Option<&str>, parse: fn(&Value) -> Result<T, ErrorReport>) -> Result<T, ErrorReport> {
    match value("options", text)? {
        Value::Null => Ok(T::default()),
        v => parse(&v),
    }
}

/// A value as a message shows what the caller gave: `the string "5000"`, `the number 1`,
/// `true`, `null`, `an object`, `an array`.
pub fn describe(v: &Value) -> String {
    match v {
        Value::String(_) => format!("the string {v}"),
        Value::Number(n) => format!("the number {n}"),
        Value::Object(_) => "an object".into(),
        Value::Array(_) => "an array".into(),
        other => other.to_string(),
    }
}

/// `{field} must be {what}, got {what was given}`: the one wording of a value of the
/// wrong kind.
pub fn expected(field: &str, what: &str, got: &Value) -> ErrorReport {
    ErrorReport::invalid_input(field, format!("{field} must be {what}, got {}", describe(got)))
}

/// `{field} is required; ...`: the one wording of a missing value.
pub fn missing(field: &str) -> ErrorReport {
    ErrorReport::invalid_input(
        field,
        format!("{field} is required; it is missing or undefined (an unset environment variable?)"),
    )
}

/// An object of named options, every key one of `keys`. Paths name nested values
/// (`headers.x-n`, `order[1].column`); top-level options stand alone (`url`).
pub struct Object<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Object<'a> {
    /// `value` at `path` ("" for a caller's options object, whose keys stand alone, and
    /// `label` names the object itself in messages).
    pub fn new(value: &'a Value, path: &str, label: &str, keys: &[&str]) -> Result<Object<'a>, ErrorReport> {
        let Value::Object(map) = value else {
            return Err(expected(if path.is_empty() { label } else { path }, "an object", value));
        };
        let object = Object { map, path: path.to_owned() };
        if let Some(k) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            let field = object.field(k);
            return Err(ErrorReport::invalid_input(
                field.clone(),
                format!("{field} is not a known option; expected one of: {}", keys.join(", ")),
            ));
        }
        Ok(object)
    }

    /// The path of the key `k`.
    pub fn field(&self, k: &str) -> String {
        if self.path.is_empty() { k.to_owned() } else { format!("{}.{k}", self.path) }
    }

    /// The value of `k` unless absent or `null` (an optional option left out).
    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }

    /// The value of `k` unless absent; `null` counts as given (for options with a default,
    /// which `null` does not select).
    fn given(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k)
    }

    pub fn string(&self, k: &str) -> Result<Option<String>, ErrorReport> {
        self.get(k)
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| expected(&self.field(k), "a string", v)))
            .transpose()
    }

    pub fn required_string(&self, k: &str) -> Result<String, ErrorReport> {
        self.string(k)?.ok_or_else(|| missing(&self.field(k)))
    }

    pub fn number(&self, k: &str) -> Result<Option<f64>, ErrorReport> {
        self.get(k).map(|v| v.as_f64().ok_or_else(|| expected(&self.field(k), "a number", v))).transpose()
    }

    /// A count of rows: a whole number, 0 or more.
    pub fn count(&self, k: &str) -> Result<Option<u64>, ErrorReport> {
        self.get(k)
            .map(|v| v.as_u64().ok_or_else(|| expected(&self.field(k), "a whole number of at least 0", v)))
            .transpose()
    }

    /// `true` or `false`, `false` when left out.
    pub fn flag(&self, k: &str) -> Result<bool, ErrorReport> {
        self.given(k).map_or(Ok(false), |v| v.as_bool().ok_or_else(|| expected(&self.field(k), "a boolean", v)))
    }

    pub fn strings(&self, k: &str) -> Result<Option<Vec<String>>, ErrorReport> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let items = v.as_array().ok_or_else(|| expected(&self.field(k), "an array of strings", v))?;
        let field = self.field(k);
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str().map(str::to_owned).ok_or_else(|| expected(&format!("{field}[{i}]"), "a string", item))
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// An array of any JSON values, empty when left out.
    pub fn array(&self, k: &str) -> Result<Vec<Value>, ErrorReport> {
        match self.given(k) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items.clone()),
            Some(v) => Err(expected(&self.field(k), "an array", v)),
        }
    }

    /// An object of strings (`headers`), by name; empty when left out.
    pub fn string_map(&self, k: &str) -> Result<Vec<(String, String)>, ErrorReport> {
        let Some(v) = self.given(k) else { return Ok(Vec::new()) };
        let map = v.as_object().ok_or_else(|| expected(&self.field(k), "an object", v))?;
        map.iter()
            .map(|(name, value)| match value {
                Value::String(text) => Ok((name.clone(), text.clone())),
                other => Err(expected(&format!("{}.{name}", self.field(k)), "a string", other)),
            })
            .collect()
    }

    /// One of the names `T` lists (`crate::string_enum!`).
    pub fn choice<T: Choice>(&self, k: &str) -> Result<Option<T>, ErrorReport> {
        self.get(k).map(|v| choose(&self.field(k), v)).transpose()
    }
}

/// A closed set of names (an enum written with `crate::string_enum!`).
pub trait Choice: Copy + 'static {
    const ALL: &'static [Self];
    fn as_str(self) -> &'static str;
}

/// `v` as one of `T`'s names: `{field} must be one of a, b, c, got the string "d"`.
pub fn choose<T: Choice>(field: &str, v: &Value) -> Result<T, ErrorReport> {
    let s = v.as_str().unwrap_or_default();
    T::ALL.iter().copied().find(|t| t.as_str() == s).ok_or_else(|| {
        let names: Vec<&str> = T::ALL.iter().map(|t| t.as_str()).collect();
        expected(field, &format!("one of {}", names.join(", ")), v)
    })
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn client(v: Value) -> Result<(), ErrorReport> {
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
            assert_eq!((r.field.as_deref(), r.message.as_str()), (Some(field), message), "{v}");
        }
        assert!(
            client(json!({"url": "u", "timeoutMs": null, "headers": {"x": "y"}})).is_ok(),
            "null leaves an optional option out"
        );
    }
}
