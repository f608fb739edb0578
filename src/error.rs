//! The crate's one error model.
//!
//! Each capability has its own `thiserror` enum (`IdError`, ...). All of them flatten into
//! an [`ErrorReport`], which the wasm boundary turns into a JS `AgentmemError` and native
//! callers can inspect directly. The `code` strings are a public, stable contract: callers
//! branch on them, so a code is never renamed, only added.

use std::fmt::{self, Write as _};

string_enum!(
    /// Stable machine-readable error codes (the `code` property of `AgentmemError`).
    ErrorCode {
        /// The caller passed something malformed; nothing was sent or written.
        InvalidInput = "invalid_input",
        /// The addressed row/thread/memory does not exist (or is invisible to this user).
        NotFound = "not_found",
        /// A uniqueness or foreign-key rule refused the write.
        Conflict = "conflict",
        /// No valid credentials (missing/expired/invalid JWT, anon denied).
        Unauthorized = "unauthorized",
        /// Valid credentials, but row-level security or a grant refused the operation.
        Forbidden = "forbidden",
        /// The request did not finish within its time budget.
        Timeout = "timeout",
        /// The request never got an HTTP answer (DNS, refused, reset, aborted).
        Network = "network",
        /// The server answered with a 5xx or an unexpected body.
        Server = "server",
        /// The injected embedding callback threw or returned something unusable.
        EmbeddingFailed = "embedding_failed",
        /// An embedding had the wrong number of dimensions.
        DimensionMismatch = "dimension_mismatch",
        /// A bug in agentmem itself (an invariant broke); please report it.
        Internal = "internal",
        /// agentmem's SQL (a table or function of `supabase/migrations/`) is missing from the
        /// database, or is an older version: the message names the migration to apply.
        SchemaNotInstalled = "schema_not_installed",
        /// The package's `.wasm` could not be loaded (not shipped next to the bundle, blocked,
        /// or an internal file was imported instead of an entry). Raised by the JS entry files
        /// only; listed here so the set of codes lives in one place.
        WasmNotLoaded = "wasm_not_loaded",
    }
);

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

/// Input a caller passed that cannot be used, caught before anything was sent: the field
/// at fault, by its path (`state.conversations[3].role`, `headers.x-n`), and a sentence
/// saying what is wrong. Every capability's error type has it as its `InvalidInput`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

impl Invalid {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Invalid {}

impl From<Invalid> for ErrorReport {
    fn from(e: Invalid) -> Self {
        ErrorReport::invalid_input(e.field, e.message)
    }
}

/// What a caller gave, as every message names it (`{field} must be {what}, got {given}`):
/// `the string "5000"`, `the number 1`, `true`, `null`, `undefined`, `an object`,
/// `an array`, `a function`, `a bigint`, `a symbol`. The one wording, for JSON values
/// (`input::describe`) and JavaScript values (the two modules' argument readers).
pub enum Given<'a> {
    String(&'a str),
    /// A number, as its text (JSON's, or JavaScript's `String(x)`): no float formatting
    /// is compiled into the modules for messages.
    NumberText(&'a str),
    Bool(bool),
    Null,
    Undefined,
    Array,
    Object,
    Function,
    /// Another `typeof` (`bigint`, `symbol`).
    Other(&'a str),
}

impl fmt::Display for Given<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Given::String(s) => write!(f, "the string {}", Quoted(s)),
            Given::NumberText(t) => write!(f, "the number {t}"),
            Given::Bool(b) => write!(f, "{b}"),
            Given::Null => f.write_str("null"),
            Given::Undefined => f.write_str("undefined"),
            Given::Array => f.write_str("an array"),
            Given::Object => f.write_str("an object"),
            Given::Function => f.write_str("a function"),
            Given::Other(t) => write!(f, "a {t}"),
        }
    }
}

/// Quotes user input in a message the way `{:?}` does for quotes, backslashes and control
/// characters; every other character is written as it is. `{:?}` would also escape the
/// rarer non-printable ones (U+200B, unassigned code points, ...), which takes Unicode
/// tables that the small agentmem/ids module would carry for that alone. Messages use this,
/// never `{:?}`: release builds compile Debug formatting to nothing (`-Zfmt-debug=none`,
/// scripts/build.sh; a test below keeps it out of shipped code).
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' | '\\' => write!(f, "\\{c}")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                '\0' => f.write_str("\\0")?,
                c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Release wasm prints `{:?}` as nothing (`-Zfmt-debug=none`), so code that ships must
    /// not format with Debug: a message would silently lose its value in production while
    /// native tests still show it. Shipped code is src/ and every crate under crates/; test
    /// code may: every item under `#[cfg(test)]` (wherever it stands in the file, to the end
    /// of its braces or `;`) and the test-only files.
    #[test]
    fn shipped_code_never_formats_with_debug() {
        fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    visit(&path, found);
                } else if name.ends_with(".rs") && !matches!(name.as_str(), "testgen.rs" | "roundtrip_tests.rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (n, line) in shipped_lines(&text) {
                        if formats_with_debug(line) {
                            found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                        }
                    }
                }
            }
        }
        // At run time: a test binary reused from another checkout (a shared target dir)
        // must read this checkout's files.
        let root = std::path::PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
        );
        let mut found = Vec::new();
        visit(&root.join("src"), &mut found);
        // The workspace's other crates ship too: the ids module, and the allocator in both.
        for krate in std::fs::read_dir(root.join("crates")).unwrap() {
            visit(&krate.unwrap().path().join("src"), &mut found);
        }
        assert!(found.is_empty(), "Debug formatting in shipped code (use error::Quoted):\n{}", found.join("\n"));
    }

    /// Whether the code of `line` (up to a `//` comment outside its string literals) formats
    /// with Debug: a `{…:…?}` placeholder (`{:?}`, `{x:#?}`, `{:5?}`, `{:x?}`) or `dbg!`.
    fn formats_with_debug(line: &str) -> bool {
        let (mut in_string, mut escaped, mut code) = (false, false, line);
        for (i, c) in line.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                // Outside a string, `'"'` is a character.
                '"' if in_string || !line[..i].ends_with('\'') => in_string = !in_string,
                '/' if !in_string && line[i + 1..].starts_with('/') => {
                    code = &line[..i];
                    break;
                }
                _ => {}
            }
        }
        code.contains("dbg!(")
            || code.match_indices("?}").any(|(i, _)| {
                code[..i].rfind('{').is_some_and(|open| !code[open..i].contains('}') && code[open..i].contains(':'))
            })
    }

    /// The lines of `text` outside `#[cfg(test)]` items, with their index.
    fn shipped_lines(text: &str) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        let (mut skipping, mut depth, mut opened) = (false, 0i32, false);
        for (n, line) in text.lines().enumerate() {
            if !skipping && line.trim() == "#[cfg(test)]" {
                (skipping, depth, opened) = (true, 0, false);
                continue;
            }
            if !skipping {
                out.push((n, line));
                continue;
            }
            let code = without_literals(line);
            let code = code.split("//").next().unwrap();
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            opened |= code.contains('{');
            if depth <= 0 && (opened || code.trim_end().ends_with(';')) {
                skipping = false;
            }
        }
        out
    }

    /// `line` with the contents of its string and character literals blanked out (their
    /// braces are not the code's); raw strings and literals across lines are rare enough in
    /// test items to leave alone.
    fn without_literals(line: &str) -> String {
        let (mut out, mut chars) = (String::new(), line.chars().peekable());
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    out.push('"');
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => {
                                chars.next();
                            }
                            '"' => break,
                            _ => {}
                        }
                    }
                    out.push('"');
                }
                '\'' if matches!(chars.clone().nth(1), Some('\'')) || chars.peek() == Some(&'\\') => {
                    // a character literal ('{', '\''): skip to its closing quote
                    let mut escaped = false;
                    for c in chars.by_ref() {
                        if c == '\'' && !escaped {
                            break;
                        }
                        escaped = c == '\\' && !escaped;
                    }
                    out.push_str("' '");
                }
                _ => out.push(c),
            }
        }
        out
    }

    #[test]
    fn the_debug_guard_sees_code_after_a_test_item() {
        let text = "fn a() {}\n#[cfg(test)]\nfn helper() {\n    x(\"{:?}\");\n}\nfn b() { y(\"{:?}\") }\n#[cfg(test)]\nmod tests {\n    fn t() { z(\"{:?}\") }\n}\n";
        let shipped: Vec<&str> = shipped_lines(text).into_iter().map(|(_, l)| l).collect();
        assert_eq!(shipped, ["fn a() {}", "fn b() { y(\"{:?}\") }"]);
    }

    #[test]
    fn the_debug_guard_knows_debug_placeholders_from_comments() {
        for debug in [
            r#"f("{:?}")"#,
            r#"f("{x:?}")"#,
            r#"f("{:#?}")"#,
            r#"f("{:5?}")"#,
            r#"f("{x:#x?}")"#,
            r#"f("https://host/{x:?}")"#,
            r#"f("a \"quote\" {x:?}")"#,
            r#"if c == '"' { f("{x:?}") }"#,
            r#"f("it'", "{x:?}")"#,
            "dbg!(x);",
        ] {
            assert!(formats_with_debug(debug), "{debug}");
        }
        for plain in [r#"f("{x}: {y}")"#, r#"f("{x:>5}")"#, "let x = y?;", r#"f("{x}") // not {:?}"#, "//! `{a?}`"] {
            assert!(!formats_with_debug(plain), "{plain}");
        }
    }

    #[test]
    fn codes_are_unique_snake_case_strings() {
        let mut seen = std::collections::HashSet::new();
        for &code in ErrorCode::ALL {
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
}
