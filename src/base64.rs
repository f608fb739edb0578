//! Base64 (RFC 4648). Standard base64 (`+/`, `=` padding, no line breaks) is the form in
//! which checkpoint blobs cross the PostgREST API (the SQL uses `encode(blob, 'base64')`
//! with its line breaks removed, and `decode(text, 'base64')`); the URL-safe form without
//! padding is that of a JWT's segments.
//!
//! Written here rather than taken from a crate: it is ~60 lines, and the package pays for
//! every byte of code it ships to edge functions and browsers.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a text is not canonical standard base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Base64Error {
    #[error("length {0} is not a multiple of 4")]
    Length(usize),
    #[error("invalid character at offset {0}")]
    Character(usize),
    #[error("misplaced padding")]
    Padding,
}

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Strict: padding is required and only at the end, and the unused low bits of the last
/// character must be zero, so every byte string has exactly one accepted encoding. A text
/// that fails here did not come from Postgres' `encode`; better to say so than to guess.
pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let s = text.as_bytes();
    if !s.len().is_multiple_of(4) {
        return Err(Base64Error::Length(s.len()));
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    for (q, quad) in s.chunks(4).enumerate() {
        let last = (q + 1) * 4 == s.len();
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err(Base64Error::Padding);
        }
        let mut n = 0u32;
        for (i, &c) in quad[..4 - pad].iter().enumerate() {
            n |= sextet(c).ok_or(Base64Error::Character(q * 4 + i))? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let keep = 3 - pad;
        if bytes[keep..].iter().any(|&b| b != 0) {
            return Err(Base64Error::Padding);
        }
        out.extend_from_slice(&bytes[..keep]);
    }
    Ok(out)
}

/// The URL-safe form (`-_`, padding optional; `+/` accepted too), as a JWT's segments are
/// written: read as standard base64 once translated and padded.
pub fn decode_url(text: &str) -> Option<Vec<u8>> {
    let mut s: String = text
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !s.len().is_multiple_of(4) {
        s.push('=');
    }
    decode(&s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
        assert_eq!(encode(&[0xfb, 0xff, 0xbf]), "+/+/");
    }

    #[test]
    fn url_safe_form_of_jwt_segments() {
        assert_eq!(decode_url("eyJhIjoxfQ").unwrap(), br#"{"a":1}"#);
        assert_eq!(decode_url("_-8").unwrap(), [0xff, 0xef]);
        assert_eq!(decode_url("YQ==").unwrap(), b"a");
        assert_eq!(decode_url("Y"), None, "one character left over is no byte");
        assert_eq!(decode_url("e*"), None);
    }

    #[test]
    fn every_length_and_byte_round_trips() {
        let all: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        for len in 0..300 {
            let bytes = &all[len % 7..len % 7 + len];
            assert_eq!(decode(&encode(bytes)).unwrap(), bytes, "len {len}");
        }
    }

    #[test]
    fn rejects_what_postgres_would_not_produce() {
        assert_eq!(decode("Zg="), Err(Base64Error::Length(3)));
        assert_eq!(decode("Zg==Zg=="), Err(Base64Error::Padding), "padding inside");
        assert_eq!(decode("Z==="), Err(Base64Error::Padding), "three pad characters");
        assert_eq!(decode("Zh=="), Err(Base64Error::Padding), "non-zero unused bits");
        assert_eq!(decode("Zm9v\nYmFy"), Err(Base64Error::Length(9)));
        assert_eq!(decode("Zm-v"), Err(Base64Error::Character(2)), "base64url alphabet");
        assert_eq!(decode("Zm=v"), Err(Base64Error::Character(2)), "padding in the middle of a quad");
    }
}
