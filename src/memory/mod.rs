//! Agent memory tools (spec 003): the definitions a model sees, validation of what a
//! model sends, the one RPC each tool call becomes, and the result the model reads back.
//!
//! Embeddings come from the caller's callback; this module only checks them
//! (`embedding`), so it stays pure and is tested natively. The wasm boundary runs the
//! sequence: [`plan`] → embed (when the plan asks) → [`Plan::request`] → send →
//! [`Plan::result`].

pub mod definitions;
pub mod embedding;
pub mod input;

use serde_json::{Value, json};

use crate::error::{ErrorCode, ErrorReport};
pub use input::{MemoryType, ToolName};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MemoryError {
    #[error("{message}")]
    InvalidInput { field: String, message: String },
    #[error("{0}")]
    EmbeddingFailed(String),
    #[error("{0}")]
    DimensionMismatch(String),
    #[error("no memory {0} (it does not exist, expired, or belongs to another user)")]
    NotFound(String),
}

impl MemoryError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        MemoryError::InvalidInput { field: field.into(), message: message.into() }
    }
}

impl From<MemoryError> for ErrorReport {
    fn from(e: MemoryError) -> Self {
        match e {
            MemoryError::InvalidInput { field, message } => ErrorReport::invalid_input(field, message),
            MemoryError::EmbeddingFailed(m) => ErrorReport::new(ErrorCode::EmbeddingFailed, m),
            MemoryError::DimensionMismatch(m) => ErrorReport::new(ErrorCode::DimensionMismatch, m),
            MemoryError::NotFound(_) => ErrorReport::new(ErrorCode::NotFound, e.to_string()),
        }
    }
}

/// Settings of one `MemoryTools` instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub agent_id: String,
    pub session_id: Option<String>,
    pub dimensions: usize,
    /// Minimum cosine similarity for `search_memories` (0..1).
    pub match_threshold: f64,
    /// Milliseconds since the epoch, for "expires_at is in the past".
    pub now_ms: f64,
}

/// The work one tool call needs: the text to embed (if any) and how to build the RPC.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub tool: ToolName,
    /// Text for the embedding callback, when this call needs a vector.
    pub embed: Option<String>,
    call: input::Call,
}

/// SQLSTATE of update_agent_memory when content changed but no embedding came with it.
pub const STALE_CONTENT: &str = "AM001";

/// A PostgREST RPC: function name and named arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Rpc {
    pub function: &'static str,
    pub args: Value,
    /// Safe to send twice (updates and deletes by id).
    pub idempotent: bool,
    /// PostgREST `select=` for the result (keeps the embedding off the wire).
    pub columns: Option<&'static str>,
}

/// Validates a model's (or a caller's) input for `tool` and says what to embed.
pub fn plan(tool: &str, input: &Value, settings: &Settings) -> Result<Plan, MemoryError> {
    plan_knowing(tool, input, settings, None)
}

/// [`plan`] for a caller that knows a memory's current content (from an earlier result):
/// an `update_memory` that leaves it unchanged then needs no embedding. The database has
/// the last word: if that knowledge was stale, the update fails with [`STALE_CONTENT`]
/// and nothing is written, and the caller plans again without it.
pub fn plan_knowing(
    tool: &str,
    input: &Value,
    settings: &Settings,
    known_content: Option<&str>,
) -> Result<Plan, MemoryError> {
    let tool = ToolName::parse(tool)?;
    let mut call = input::parse(tool, input, settings)?;
    if let input::Call::Update { known_content: known, .. } = &mut call {
        *known = known_content.map(|c| c.trim().to_owned());
    }
    let embed = call.embed_text().map(str::to_owned);
    Ok(Plan { tool, embed, call })
}

impl Plan {
    /// The RPC for this call, given the embedding of [`Plan::embed`] (if it asked for one).
    pub fn request(&self, settings: &Settings, embedding: Option<&[f32]>) -> Result<Rpc, MemoryError> {
        if self.embed.is_some() != embedding.is_some() {
            return Err(MemoryError::EmbeddingFailed("internal: embedding presence does not match the plan".into()));
        }
        let vector = embedding.map(|v| json!(v));
        Ok(self.call.rpc(settings, vector))
    }

    /// What the tool returns, from the RPC's JSON result.
    pub fn result(&self, data: Value) -> Result<Value, MemoryError> {
        self.call.result(data)
    }
}

/// `{ success: false, error: { code, message, field? } }`: what `handle` returns for a
/// failed call, so the model can read the problem and correct itself.
pub fn failure(report: &ErrorReport) -> Value {
    let mut error = json!({ "code": report.code.as_str(), "message": report.message });
    if let Some(f) = &report.field {
        error["field"] = json!(f);
    }
    json!({ "success": false, "error": error })
}

/// Refines a server error for the memory tools: pgvector and the memory functions raise
/// 22000 for a vector of the wrong size (e.g. `dimensions` set to 384 while the column
/// was changed to 1536), which is a `dimension_mismatch`, not generic bad input.
pub fn refine(mut report: ErrorReport) -> ErrorReport {
    if report.pgrst_code.as_deref() == Some("22000") && report.message.contains("dimension") {
        report.code = ErrorCode::DimensionMismatch;
    }
    report
}
