//! PostgREST's URL grammar from the client side: how a value is written inside a filter
//! so that no value, however hostile, can change the filter's meaning.
//!
//! Rules (PostgREST docs/references/api/url_grammar.rst, src/PostgREST/ApiRequest/QueryParams.hs):
//! - after `op.` a plain filter takes *everything* as the value, so no quoting is needed;
//! - inside `in.(…)`, `or=(…)` and `and=(…)`, `,` `.` `:` `(` `)` separate tokens, so such
//!   values are wrapped in double quotes, with `"` and `\` backslash-escaped;
//! - array operands (`cs`, `cd`, `ov`) are Postgres array literals `{…}`, whose elements
//!   are double-quoted with the same escapes;
//! - the whole query string is percent-encoded (every byte outside RFC 3986's unreserved set).

use serde_json::Value;

/// Percent-encodes a query-string component: only `A-Z a-z 0-9 - . _ ~` stay literal.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[(b >> 4) as usize]));
            out.push(char::from(b"0123456789ABCDEF"[(b & 15) as usize]));
        }
    }
    out
}

/// `"…"` with `"` and `\` escaped: PostgREST's quoted token and Postgres' quoted array element.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Whether a value must be quoted inside a list or logic tree.
fn needs_quotes(s: &str) -> bool {
    s.is_empty()
        || s.chars().any(|c| matches!(c, ',' | '.' | ':' | '(' | ')' | '"' | '\\' | '{' | '}') || c.is_whitespace())
}

/// A scalar as text (strings verbatim, numbers and booleans in JSON form).
pub fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A scalar as it may appear inside `in.(…)` or a logic tree.
pub fn token(v: &Value) -> Option<String> {
    let text = scalar_text(v)?;
    Some(if v.is_string() && needs_quotes(&text) { quote(&text) } else { text })
}

/// `(a,"b,c",3)` for `in`.
pub fn list(values: &[Value]) -> Option<String> {
    let items = values.iter().map(|v| v.as_str().map(quote).or_else(|| scalar_text(v))).collect::<Option<Vec<_>>>()?;
    Some(format!("({})", items.join(",")))
}

/// A Postgres array literal `{"a","b"}` for `cs`/`cd`/`ov` on array columns.
pub fn array_literal(values: &[Value]) -> Option<String> {
    let items = values
        .iter()
        .map(|v| match v {
            Value::String(s) => Some(quote(s)),
            Value::Null => Some("NULL".to_owned()),
            other => scalar_text(other),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(format!("{{{}}}", items.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn percent_encoding_leaves_only_unreserved() {
        assert_eq!(percent_encode("a-b.c_d~e"), "a-b.c_d~e");
        assert_eq!(percent_encode("a b&c=d,e(f)\"g\\h"), "a%20b%26c%3Dd%2Ce%28f%29%22g%5Ch");
        assert_eq!(percent_encode("metadata->>source"), "metadata-%3E%3Esource");
        assert_eq!(percent_encode("é🚀"), "%C3%A9%F0%9F%9A%80");
        assert_eq!(percent_encode("50%"), "50%25");
    }

    #[test]
    fn lists_quote_every_string() {
        let v = [
            json!("plain"),
            json!("a,b"),
            json!("x)y"),
            json!("q\"uote"),
            json!("back\\slash"),
            json!("dot.ted"),
            json!(3),
            json!(""),
        ];
        assert_eq!(list(&v).unwrap(), r#"("plain","a,b","x)y","q\"uote","back\\slash","dot.ted",3,"")"#);
        assert_eq!(list(&[]).unwrap(), "()");
        assert_eq!(list(&[json!({"a":1})]), None);
    }

    #[test]
    fn tokens_quote_only_when_needed() {
        assert_eq!(token(&json!("abc")).unwrap(), "abc");
        assert_eq!(token(&json!("a.b")).unwrap(), "\"a.b\"");
        assert_eq!(token(&json!("it's (x)")).unwrap(), "\"it's (x)\"");
        assert_eq!(token(&json!(1.5)).unwrap(), "1.5");
        assert_eq!(token(&json!(true)).unwrap(), "true");
        assert_eq!(token(&json!(null)), None);
    }

    #[test]
    fn array_literals() {
        assert_eq!(array_literal(&[json!("a"), json!("b,c"), json!("d\"e")]).unwrap(), r#"{"a","b,c","d\"e"}"#);
        assert_eq!(array_literal(&[json!(1), json!(null)]).unwrap(), "{1,NULL}");
        assert_eq!(array_literal(&[]).unwrap(), "{}");
    }
}
