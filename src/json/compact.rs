//! JSON texts joined into one array at compile time, without the whitespace between their
//! tokens: data kept readable in the source (the memory tools' definitions, one in each
//! tool's file) is one contiguous text in the module, as a single JSON file would be, and
//! costs it no indentation.

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// Appends `b` at `*n` (into `out` when given).
const fn put(out: &mut Option<&mut [u8]>, n: &mut usize, b: u8) {
    if let Some(out) = out {
        out[*n] = b;
    }
    *n += 1;
}

/// Writes `[part, part, …]` without whitespace outside strings into `out` (when given),
/// and answers its length.
const fn write(parts: &[&str], mut out: Option<&mut [u8]>) -> usize {
    let mut n = 0;
    put(&mut out, &mut n, b'[');
    let mut p = 0;
    while p < parts.len() {
        if p > 0 {
            put(&mut out, &mut n, b',');
        }
        let bytes = parts[p].as_bytes();
        let (mut i, mut in_string, mut escaped) = (0, false, false);
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                put(&mut out, &mut n, b);
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else if !is_space(b) {
                put(&mut out, &mut n, b);
                in_string = b == b'"';
            }
            i += 1;
        }
        p += 1;
    }
    put(&mut out, &mut n, b']');
    n
}

/// The length of [`array`]'s text.
pub const fn array_len(parts: &[&str]) -> usize {
    write(parts, None)
}

/// `parts` (JSON texts) as one JSON array, without whitespace between tokens; `N` is
/// [`array_len`]`(parts)` (the `json_array!` macro fills both in).
pub const fn array<const N: usize>(parts: &[&str]) -> [u8; N] {
    let mut out = [0; N];
    write(parts, Some(&mut out));
    out
}

/// `json_array!(a, b, …)`: the JSON texts `a`, `b`, … (constants) as one `&'static str`
/// holding a JSON array, joined and compacted at compile time ([`array`]).
macro_rules! json_array {
    ($($part:expr),* $(,)?) => {{
        const PARTS: &[&str] = &[$($part),*];
        const BYTES: [u8; $crate::json::compact::array_len(PARTS)] = $crate::json::compact::array(PARTS);
        match core::str::from_utf8(&BYTES) {
            Ok(text) => text,
            Err(_) => panic!("a JSON text of json_array! is not UTF-8"),
        }
    }};
}

#[cfg(test)]
mod tests {
    #[test]
    fn joins_and_drops_the_space_between_tokens_only() {
        const A: &str = "{\n  \"a b\": [1, 2],\n  \"c\": \"x \\\" y\"\n}";
        const B: &str = " true ";
        const JOINED: &str = json_array!(A, B);
        assert_eq!(JOINED, r#"[{"a b":[1,2],"c":"x \" y"},true]"#);
        assert_eq!(crate::json::parse(JOINED).unwrap(), serde_json::json!([{"a b": [1, 2], "c": "x \" y"}, true]));
    }
}
