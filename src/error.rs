//! The crate's one error model.
//!
//! Each capability has its own `thiserror` enum (`IdError`, ...). All of them flatten into
//! an [`ErrorReport`], which the wasm boundary turns into a JS `AgentmemError` and native
//! callers can inspect directly. The `code` strings are a public, stable contract: callers
//! branch on them, so a code is never renamed, only added.

use std::fmt;

/// Stable machine-readable error codes (the `code` property of `AgentmemError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The caller passed something malformed; nothing was sent or written.
    InvalidInput,
    /// The addressed row/thread/memory does not exist (or is invisible to this user).
    NotFound,
    /// A uniqueness or foreign-key rule refused the write.
    Conflict,
    /// No valid credentials (missing/expired/invalid JWT, anon denied).
    Unauthorized,
    /// Valid credentials, but row-level security or a grant refused the operation.
    Forbidden,
    /// The request did not finish within its time budget.
    Timeout,
    /// The request never got an HTTP answer (DNS, refused, reset, aborted).
    Network,
    /// The server answered with a 5xx or an unexpected body.
    Server,
    /// The injected embedding callback threw or returned something unusable.
    EmbeddingFailed,
    /// An embedding had the wrong number of dimensions.
    DimensionMismatch,
    /// A bug in agentmem itself (an invariant broke); please report it.
    Internal,
    /// agentmem's SQL (a table or function of `supabase/migrations/`) is missing from the
    /// database, or is an older version: the message names the migration to apply.
    SchemaNotInstalled,
    /// The package's `.wasm` could not be loaded (not shipped next to the bundle, blocked,
    /// or an internal file was imported instead of an entry). Raised by the JS entry files
    /// only; listed here so the set of codes lives in one place.
    WasmNotLoaded,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::InvalidInput,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::Timeout,
        ErrorCode::Network,
        ErrorCode::Server,
        ErrorCode::EmbeddingFailed,
        ErrorCode::DimensionMismatch,
        ErrorCode::Internal,
        ErrorCode::SchemaNotInstalled,
        ErrorCode::WasmNotLoaded,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Network => "network",
            ErrorCode::Server => "server",
            ErrorCode::EmbeddingFailed => "embedding_failed",
            ErrorCode::DimensionMismatch => "dimension_mismatch",
            ErrorCode::Internal => "internal",
            ErrorCode::SchemaNotInstalled => "schema_not_installed",
            ErrorCode::WasmNotLoaded => "wasm_not_loaded",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A flattened error, ready to cross into JavaScript as an `AgentmemError`.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReport {
    pub code: ErrorCode,
    pub message: String,
    /// HTTP status, when the error came from a response.
    pub status: Option<u16>,
    /// PostgREST / Postgres error code (`PGRST116`, `23505`, ...).
    pub pgrst_code: Option<String>,
    pub details: Option<String>,
    pub hint: Option<String>,
    /// The input field at fault, for `invalid_input` (`"namespace"`, `"names[3]"`, ...).
    pub field: Option<String>,
    /// How many retries were made before giving up.
    pub retries: Option<u32>,
}

impl ErrorReport {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorReport {
            code,
            message: message.into(),
            status: None,
            pgrst_code: None,
            details: None,
            hint: None,
            field: None,
            retries: None,
        }
    }

    pub fn invalid_input(field: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorReport { field: Some(field.into()), ..ErrorReport::new(ErrorCode::InvalidInput, message) }
    }
}

impl fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorReport {}

/// An `invalid_input` for JSON text that did not fit the type it was read as, in words a
/// person understands: `url is required`, `timeoutMs must be a number, got the string
/// "5000"`, never serde's `missing field` / `expected f64 at line 1 column 49`.
///
/// `root` prefixes the paths found in `text` (`rows` gives `rows[0].title`); with an empty
/// `root` the top-level keys stand alone (`url`, `headers.x`), as option names do, and
/// `label` names the whole value when the fault is the value itself.
pub fn json_input_error(root: &str, label: &str, text: &str, e: &serde_json::Error) -> ErrorReport {
    let full = e.to_string();
    // serde_json appends " at line L column C"; the position is used below, not shown.
    let location = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(location.as_str()).unwrap_or(&full);
    let offset = byte_offset(text, e.line(), e.column());
    let join = |path: &str, key: &str| match (path.is_empty(), key.is_empty()) {
        (_, true) => path.to_owned(),
        (true, false) => key.to_owned(),
        (false, false) if key.starts_with('[') => format!("{path}{key}"),
        (false, false) => format!("{path}.{key}"),
    };
    let named = |path: String| {
        let p = join(root, &path);
        if p.is_empty() { label.to_owned() } else { p }
    };
    let tick = |s: &str| s.split('`').nth(1).unwrap_or("").to_owned();
    if let Some(rest) = message.strip_prefix("missing field ") {
        // Reported at the object's closing brace: the path is that object's.
        let field = named(join(&json_path(text, offset.saturating_sub(1), false), &tick(rest)));
        return ErrorReport::invalid_input(
            field.clone(),
            format!("{field} is required; it is missing or undefined (an unset environment variable?)"),
        );
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let key = tick(rest);
        let field = named(join(&json_path(text, offset, false), &key));
        let known = match rest.split_once("expected one of ") {
            Some((_, names)) => format!("; expected one of: {}", names.replace('`', "")),
            None => String::new(),
        };
        return ErrorReport::invalid_input(field.clone(), format!("{field} is not a known option{known}"));
    }
    let field = named(json_path(text, offset, true));
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let names = rest.split_once("expected ").map_or("", |(_, n)| n).replace('`', "");
        return ErrorReport::invalid_input(field.clone(), format!("{field} must be {names}, got \"{}\"", tick(rest)));
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some((got, expected)) = message.strip_prefix(prefix).and_then(|r| r.split_once(", expected ")) {
            return ErrorReport::invalid_input(
                field.clone(),
                format!("{field} must be {}, got {}", expected_words(expected), got_words(got)),
            );
        }
    }
    ErrorReport::invalid_input(field.clone(), format!("{field} is not valid: {message}"))
}

/// serde's name of the type it wanted, as a person would say it.
fn expected_words(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" | "f32" | "f64" => {
            "a number".into()
        }
        "a borrowed string" | "a string" | "a char" => "a string".into(),
        "a map" => "an object".into(),
        "a sequence" => "an array".into(),
        e if e.starts_with("struct ") => "an object".into(),
        e => e.replace('`', ""),
    }
}

/// serde's description of the value it got: `string "5000"` → `the string "5000"`.
fn got_words(got: &str) -> String {
    let value = || got.split('`').nth(1).unwrap_or("").to_owned();
    match got.split_whitespace().next().unwrap_or("") {
        "string" => format!("the string {}", &got["string ".len().min(got.len())..]),
        "integer" | "floating" => format!("the number {}", value()),
        "boolean" => value(),
        "map" => "an object".into(),
        "sequence" => "an array".into(),
        "null" | "unit" => "null".into(),
        _ => got.replace('`', ""),
    }
}

/// The byte offset of serde_json's 1-based line and column (the column counts bytes).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (start + column).min(text.len())
}

/// The path (`headers.x`, `rows[2].title`) of the value being read at `end` in the JSON
/// `text`: the keys and indices of the containers open there. `with_last` includes the
/// innermost container's current key or index (the value that was being read);
/// without it the path is that container's own.
fn json_path(text: &str, end: usize, with_last: bool) -> String {
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < end.min(bytes.len()) {
        match bytes[i] {
            b'{' => {
                stack.push(Frame::Object(None));
                expect_key = true;
            }
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object(_)) => expect_key = true,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key && let Some(Frame::Object(key)) = stack.last_mut() {
                    // Raw, escapes and all: option names and paths are plain words.
                    *key = text.get(start + 1..i).map(str::to_owned);
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let keep = if with_last { stack.len() } else { stack.len().saturating_sub(1) };
    let mut path = String::new();
    for frame in &stack[..keep] {
        match frame {
            Frame::Object(Some(k)) if path.is_empty() => path.push_str(k),
            Frame::Object(Some(k)) => {
                path.push('.');
                path.push_str(k);
            }
            Frame::Object(None) => {}
            Frame::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_strings() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "duplicate code {s}");
            assert!(s.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{s}");
        }
    }

    #[test]
    fn invalid_input_names_the_field() {
        let r = ErrorReport::invalid_input("namespace", "bad");
        assert_eq!(r.code, ErrorCode::InvalidInput);
        assert_eq!(r.field.as_deref(), Some("namespace"));
        assert_eq!(r.to_string(), "invalid_input: bad");
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Opts {
        url: String,
        timeout_ms: Option<f64>,
        #[serde(default)]
        headers: std::collections::BTreeMap<String, String>,
        #[serde(default)]
        rows: Vec<Row>,
        mode: Option<Mode>,
        #[serde(default)]
        strict: bool,
    }
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Row {
        title: String,
    }
    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        Fast,
        Safe,
    }

    fn option_error(text: &str) -> ErrorReport {
        let e = serde_json::from_str::<Opts>(text).unwrap_err();
        json_input_error("", "options", text, &e)
    }

    #[test]
    fn serde_errors_read_as_sentences_naming_the_option() {
        let cases = [
            (
                r#"{"strict":true}"#,
                "url",
                "url is required; it is missing or undefined (an unset environment variable?)",
            ),
            (r#"{"url":"u","timeoutMs":"5000"}"#, "timeoutMs", r#"timeoutMs must be a number, got the string "5000""#),
            (
                r#"{"url":"u","headers":{"a":"b","x-n":1}}"#,
                "headers.x-n",
                "headers.x-n must be a string, got the number 1",
            ),
            (r#"{"url":"u","headers":[]}"#, "headers", "headers must be an object, got an array"),
            (
                r#"{"url":"u","rows":[{"title":"a"},{"title":true}]}"#,
                "rows[1].title",
                "rows[1].title must be a string, got true",
            ),
            (
                r#"{"url":"u","rows":[{"title":"a"},{}]}"#,
                "rows[1].title",
                "rows[1].title is required; it is missing or undefined (an unset environment variable?)",
            ),
            (
                r#"{"url":"u","timeout":5}"#,
                "timeout",
                "timeout is not a known option; expected one of: url, timeoutMs, headers, rows, mode, strict",
            ),
            (r#"{"url":"u","mode":"slow"}"#, "mode", r#"mode must be fast or safe, got "slow""#),
            (r#"{"url":"u","strict":null}"#, "strict", "strict must be a boolean, got null"),
            (r#"{"url":"u\"}\"","strict":1.5}"#, "strict", "strict must be a boolean, got the number 1.5"),
            (r#""x""#, "options", r#"options must be an object, got the string "x""#),
        ];
        for (text, field, message) in cases {
            let r = option_error(text);
            assert_eq!(
                (r.code, r.field.as_deref(), r.message.as_str()),
                (ErrorCode::InvalidInput, Some(field), message),
                "{text}"
            );
        }
        // With a root, paths hang under it.
        let text = r#"[{"title":"a"},{"title":2}]"#;
        let e = serde_json::from_str::<Vec<Row>>(text).unwrap_err();
        assert_eq!(json_input_error("rows", "rows", text, &e).field.as_deref(), Some("rows[1].title"));
        // Multi-line text: positions are per line.
        let text = "{\n\"url\": \"u\",\n\"timeoutMs\": true\n}";
        assert_eq!(option_error(text).field.as_deref(), Some("timeoutMs"));
    }
}
