//! JSON text in: RFC 8259, with serde_json's messages and positions, without its deserializer.

use serde_json::{Map, Number, Value};

/// JSON text that is not valid, and where: serde_json's wording and position, so the
/// messages read as before.
#[derive(Debug, PartialEq)]
pub struct SyntaxError {
    message: &'static str,
    line: usize,
    column: usize,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at line {} column {}", self.message, self.line, self.column)
    }
}

/// Reads JSON text (RFC 8259) into a `Value`, numbers kept as their text. serde_json's
/// reader would bring serde's deserializer machinery into the module, and with its error
/// texts core's float `Display`, for what this does in a page of code. Nesting
/// deeper than 127 levels is refused, like serde_json.
pub fn parse(text: &str) -> Result<Value, SyntaxError> {
    let mut p = Parser { text, bytes: text.as_bytes(), pos: 0, depth: 0 };
    let value = p.value()?;
    p.whitespace();
    if p.pos < p.bytes.len() {
        p.pos += 1;
        return Err(p.error("trailing characters"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
}

impl Parser<'_> {
    /// An error at the current position (line and column of the byte read last).
    fn error(&self, message: &'static str) -> SyntaxError {
        let read = &self.bytes[..self.pos.min(self.bytes.len())];
        let line = 1 + read.iter().filter(|&&b| b == b'\n').count();
        let column = read.len() - read.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        SyntaxError { message, line, column }
    }

    // Inlined: called once per byte, and at the size-optimized level a call each would be
    // most of a long string's cost.
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        self.whitespace();
        let Some(b) = self.peek() else { return Err(self.error("EOF while parsing a value")) };
        match b {
            b'{' | b'[' => {
                if self.depth == 127 {
                    self.pos += 1;
                    return Err(self.error("recursion limit exceeded"));
                }
                self.depth += 1;
                self.pos += 1;
                let value = if b == b'{' { self.object() } else { self.array() };
                self.depth -= 1;
                value
            }
            b'"' => {
                self.pos += 1;
                self.string().map(Value::String)
            }
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => {
                self.pos += 1;
                Err(self.error("expected value"))
            }
        }
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, SyntaxError> {
        for &expected in word.as_bytes() {
            match self.peek() {
                None => return Err(self.error("EOF while parsing a value")),
                Some(b) => {
                    self.pos += 1;
                    if b != expected {
                        return Err(self.error("expected ident"));
                    }
                }
            }
        }
        Ok(value)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as its text.
    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.invalid_number()),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.invalid_number());
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.invalid_number());
            }
            self.digits();
        }
        // The text as serde_json keeps it (numbers compare as text): the exponent written
        // `e`, with its sign.
        let text = &self.text[start..self.pos];
        let text = match text.find(['e', 'E']) {
            Some(i) => {
                let exponent = &text[i + 1..];
                let sign = if exponent.starts_with(['+', '-']) { "" } else { "+" };
                format!("{}e{sign}{exponent}", &text[..i])
            }
            None => text.to_owned(),
        };
        // Number's FromStr (public API): with arbitrary_precision it keeps the text it is
        // given, which the scan above has already checked against JSON's grammar.
        text.parse::<Number>().map(Value::Number).map_err(|_| self.invalid_number())
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn invalid_number(&mut self) -> SyntaxError {
        match self.peek() {
            None => self.error("EOF while parsing a value"),
            Some(_) => {
                self.pos += 1;
                self.error("invalid number")
            }
        }
    }

    /// After the opening quote.
    fn string(&mut self) -> Result<String, SyntaxError> {
        let mut out = String::new();
        loop {
            // The run up to the next quote, escape or control character, copied as is.
            let start = self.pos;
            let mut end = start;
            while let Some(&b) = self.bytes.get(end) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                end += 1;
            }
            self.pos = end;
            // Stops only at ASCII bytes, so both ends are character boundaries.
            out.push_str(&self.text[start..self.pos]);
            let Some(b) = self.peek() else { return Err(self.error("EOF while parsing a string")) };
            self.pos += 1;
            match b {
                b'"' => return Ok(out),
                b'\\' => self.escape(&mut out)?,
                _ => return Err(self.error("control character (\\u0000-\\u001F) found while parsing a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), SyntaxError> {
        let Some(b) = self.peek() else { return Err(self.error("EOF while parsing a string")) };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            _ => return Err(self.error("invalid escape")),
        };
        out.push(c);
        Ok(())
    }

    /// After `\\u`: one code point, from a surrogate pair if it takes two escapes. Lone
    /// surrogates are errors (a Rust string cannot hold one), with serde_json's wording.
    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let unit = self.hex4()?;
        if (0xDC00..=0xDFFF).contains(&unit) {
            return Err(self.error("lone leading surrogate in hex escape"));
        }
        if !(0xD800..=0xDBFF).contains(&unit) {
            return char::from_u32(u32::from(unit)).ok_or_else(|| self.error("invalid unicode code point"));
        }
        for expected in [b'\\', b'u'] {
            match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b) => {
                    self.pos += 1;
                    if b != expected {
                        return Err(self.error("unexpected end of hex escape"));
                    }
                }
            }
        }
        let low = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&low) {
            return Err(self.error("lone leading surrogate in hex escape"));
        }
        let code = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
        char::from_u32(code).ok_or_else(|| self.error("invalid unicode code point"))
    }

    /// Four hex digits, read before they are checked (as serde_json does, for its positions).
    fn hex4(&mut self) -> Result<u16, SyntaxError> {
        let Some(digits) = self.bytes.get(self.pos..self.pos + 4) else {
            self.pos = self.bytes.len();
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 4;
        let mut unit = 0u16;
        for &b in digits {
            let digit = (b as char).to_digit(16).ok_or_else(|| self.error("invalid escape"))?;
            unit = unit * 16 + digit as u16;
        }
        Ok(unit)
    }

    /// After the `[`.
    fn array(&mut self) -> Result<Value, SyntaxError> {
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.closes(b']', "expected `,` or `]`", "EOF while parsing a list")? {
                return Ok(Value::Array(items));
            }
        }
    }

    /// After the `{`. A repeated key keeps its last value, as in serde_json and JavaScript.
    fn object(&mut self) -> Result<Value, SyntaxError> {
        const EOF: &str = "EOF while parsing an object";
        let mut map = Map::new();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(map));
        }
        loop {
            self.expect(b'"', "key must be a string", EOF)?;
            let key = self.string()?;
            self.expect(b':', "expected `:`", EOF)?;
            let value = self.value()?;
            map.insert(key, value);
            if self.closes(b'}', "expected `,` or `}`", EOF)? {
                return Ok(Value::Object(map));
            }
        }
    }

    /// Past whitespace, the byte `expected`; else `wrong` (after the byte, as serde_json
    /// counts) or `eof`.
    fn expect(&mut self, expected: u8, wrong: &'static str, eof: &'static str) -> Result<(), SyntaxError> {
        self.whitespace();
        match self.peek() {
            Some(b) => {
                self.pos += 1;
                if b == expected { Ok(()) } else { Err(self.error(wrong)) }
            }
            None => Err(self.error(eof)),
        }
    }

    /// After an item of a list or object: a `,` (false: more follow) or `close` (true).
    fn closes(&mut self, close: u8, wrong: &'static str, eof: &'static str) -> Result<bool, SyntaxError> {
        self.whitespace();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => self.expect(close, wrong, eof).map(|()| true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::Gen;

    /// serde_json (with the same `arbitrary_precision`) is the reference: the same value
    /// for every text it accepts, an error for every text it refuses, at the same position.
    fn agrees(text: &str) {
        let theirs = serde_json::from_str::<Value>(text);
        match (parse(text), theirs) {
            (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{text:?}"),
            (Err(ours), Err(theirs)) => {
                assert_eq!((ours.line, ours.column), (theirs.line(), theirs.column()), "{text:?}: {ours} / {theirs}")
            }
            (ours, theirs) => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn reads_what_serde_json_reads_and_refuses_what_it_refuses() {
        let cases = [
            "null",
            "true",
            "false",
            " \t\r\n 1 ",
            "0",
            "-0",
            "-0.0e-0",
            "1.5E+3",
            "123456789012345678901234567890",
            "1e400",
            "\"\"",
            "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
            "\"\\u00e9\\u20AC\"",
            "\"\\ud83d\\ude00\"",
            "\"é€😀\"",
            "[]",
            "[ ]",
            "{}",
            "{ }",
            "[1,[2,[3]]]",
            "{\"a\":{\"b\":[null]}}",
            "{\"a\":1,\"a\":2}",
            "",
            " ",
            "nul",
            "nulx",
            "tru",
            "falsey",
            "01",
            "1.",
            ".5",
            "-",
            "--1",
            "+1",
            "1e",
            "1e+",
            "0x10",
            "1_0",
            "\"abc",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"\\ud800\"",
            "\"\\ud800\\u0041\"",
            "\"\\udc00\"",
            "\"a\nb\"",
            "\"\u{1}\"",
            "[1,]",
            "[1 2]",
            "[",
            "[1",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{1:2}",
            "{",
            "{\"a\":1",
            "{\"a\" 1}",
            "1 2",
            "[1]x",
            "\u{feff}1",
            "NaN",
            "Infinity",
            "\"\\u0000\"",
            "\n\n  [1,\n x]",
        ];
        for text in cases {
            agrees(text);
        }
        agrees(&format!("{}{}", "[".repeat(128), "]".repeat(128)));
        agrees(&format!("{}{}", "[".repeat(129), "]".repeat(129)));
        agrees(&format!("{}1{}", "{\"a\":".repeat(129), "}".repeat(129)));
    }

    #[test]
    fn generated_and_mutated_texts_agree_with_serde_json() {
        let mut g = Gen::new(7);
        let pieces = [
            "\"", "\\", "\\u", "d83d", "{", "}", "[", "]", ",", ":", "-", "0", "1", "e", ".", " ", "\n", "\u{1}", "é",
            "😀", "null",
        ];
        for _ in 0..20_000 {
            let text = g.value(4).to_string();
            agrees(&text);
            // One edit: a cut, a removed byte, or an inserted piece.
            let mut bytes = text.into_bytes();
            let at = g.below(bytes.len() + 1);
            match g.below(3) {
                0 => bytes.truncate(at),
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => {
                    let piece = g.pick(&pieces);
                    bytes.splice(at..at, piece.bytes());
                }
            }
            if let Ok(text) = String::from_utf8(bytes) {
                agrees(&text);
            }
        }
    }

    #[test]
    fn errors_read_like_serde_json() {
        assert_eq!(parse("[1,]").unwrap_err().to_string(), "expected value at line 1 column 4");
        assert_eq!(parse("{\"a\" 1}").unwrap_err().to_string(), "expected `:` at line 1 column 6");
        assert_eq!(parse("").unwrap_err().to_string(), "EOF while parsing a value at line 1 column 0");
        assert_eq!(parse("\n [1 x").unwrap_err().to_string(), "expected `,` or `]` at line 2 column 5");
    }
}
