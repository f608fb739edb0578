//! JSON text out: compact, byte for byte what serde_json writes, without its serializer.

use serde_json::{Map, Value};

/// Appends `s` as a JSON string, escaped as serde_json escapes it: quote, backslash and
/// control characters only (the short forms where JSON has them, else `\u00XX`).
pub fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    // Runs without an escape are copied whole: most texts (ids, types, header values) are one.
    // Indexed rather than iterated: at the size-optimized level the iterator's `next` stays
    // a call per byte.
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        // Most bytes need no escape: three comparisons rather than the match's eight.
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            _ => "",
        };
        out.push_str(&s[start..i - 1]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        } else {
            out.push_str(escape);
        }
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Appends `v` as compact JSON text, byte for byte what serde_json's `Display` writes
/// (numbers are their text, `arbitrary_precision`), without serde_json's serializer in
/// the module.
pub fn write(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(n.as_str()),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => write_list(out, items, write),
        Value::Object(map) => write_object(out, map),
    }
}

/// Appends `map` as a JSON object ([`write`]).
pub fn write_object(out: &mut String, map: &Map<String, Value>) {
    write_joined(out, '{', '}', map, |out, (k, item)| {
        write_str(out, k);
        out.push(':');
        write(out, item);
    });
}

/// Appends `[item,…]`, each item written by `each`.
pub fn write_list<I: IntoIterator>(out: &mut String, items: I, each: impl FnMut(&mut String, I::Item)) {
    write_joined(out, '[', ']', items, each);
}

/// `open`, the items separated by commas, `close`.
fn write_joined<I: IntoIterator>(
    out: &mut String,
    open: char,
    close: char,
    items: I,
    mut each: impl FnMut(&mut String, I::Item),
) {
    out.push(open);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item);
    }
    out.push(close);
}

/// `v` as compact JSON text ([`write`]).
pub fn text(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v);
    out
}

/// `v` as compact JSON text in a `format!` ([`write`]).
pub struct Text<'a>(pub &'a Value);

impl std::fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&text(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::testgen::Gen;

    #[test]
    fn text_is_serde_json_s_display() {
        let mut g = Gen::new(11);
        for _ in 0..5_000 {
            let v = g.value(4);
            assert_eq!(text(&v), v.to_string());
            let back = parse(&v.to_string()).unwrap();
            assert_eq!(text(&back), back.to_string());
        }
        let all_bytes: String = (0u8..0x80).map(char::from).chain("é ✓ \u{2028} 😀".chars()).collect();
        let v = serde_json::json!({ "s": all_bytes.as_str(), "n": [1, -0.5, 1e300], "e": {}, "a": [], "z": null, "t": true });
        assert_eq!(text(&v), v.to_string());
    }

    #[test]
    fn write_str_is_serde_json_s_string() {
        for s in ["", "plain", "a\"quote", "back\\slash", "tab\tnew\nline", "\u{1}\u{1f}\u{7f}", "é ✓ \u{2028} 😀"]
        {
            let mut out = String::from("x");
            write_str(&mut out, s);
            assert_eq!(out, format!("x{}", Value::from(s)), "{s:?}");
        }
    }
}
