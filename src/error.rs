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
}
