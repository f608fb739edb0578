//! Agent memory tools: the definitions a model sees, validation of what a
//! model sends, the one RPC each tool call becomes, and the result the model reads back.
//!
//! Embeddings come from the caller's callback; this module only checks them
//! (`embedding`), so it stays pure and is tested natively. The wasm boundary runs the
//! sequence: [`plan`] → embed (when the plan asks) → [`Plan::request`] → send →
//! [`Plan::result`].

pub mod definitions;
pub mod embedding;
pub mod names;
pub mod tools;

use serde_json::Value;

use crate::arguments::JsonText;
use crate::error::{ErrorCode, ErrorReport, Invalid};
use crate::input;
use crate::op::{Embed, Op, Step};
use crate::transport::options::{ReadOptions, RpcOptions};
use crate::transport::request;
use crate::transport::target::Target;
pub use names::MemoryType;
pub use tools::MIGRATION;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    InvalidInput(#[from] Invalid),
    #[error("{0}")]
    EmbeddingFailed(String),
    #[error("{0}")]
    DimensionMismatch(String),
    #[error("no memory {0} (it does not exist, expired, or belongs to another user)")]
    NotFound(String),
}

impl MemoryError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        MemoryError::InvalidInput(Invalid::new(field, message))
    }
}

impl From<MemoryError> for ErrorReport {
    fn from(e: MemoryError) -> Self {
        match e {
            MemoryError::InvalidInput(e) => e.into(),
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
    /// How long the embedding callback may take.
    pub embed_timeout_ms: u32,
}

/// `MemoryTools` options, in the order a message lists them (`client` and `embed` are the
/// facade's, which takes them out before the options reach the module).
pub const OPTIONS: [&str; 8] =
    ["client", "embed", "agentId", "sessionId", "userId", "dimensions", "matchThreshold", "embedTimeoutMs"];

const DEFAULT_DIMENSIONS: u32 = 384;
/// pgvector's limit.
const MAX_DIMENSIONS: u32 = 16_000;
/// Long enough for a hosted embedding API on a bad day; a callback that hangs (a stuck
/// connection, a model that never loads) then fails the call instead of holding it forever.
const DEFAULT_EMBED_TIMEOUT_MS: u32 = 30_000;
/// The similarity a search result needs by default. Measured with all-MiniLM-L6-v2 on
/// memory-tool queries (bench/results/2026-11-28-match-threshold.md): every relevant memory
/// scored at least 0.35 and 96% of unrelated ones under 0.3, while 0.5 held back a quarter
/// of the relevant ones. Whatever it holds back, the search's answer counts.
pub const DEFAULT_MATCH_THRESHOLD: f64 = 0.3;
const MAX_EMBED_TIMEOUT_MS: u32 = 600_000;

impl Settings {
    /// Checks `MemoryTools` options (JSON text) against the client's target; returns the
    /// settings of one call and the id of the user the tools act for.
    pub fn parse(options: Option<&str>, target: &Target, now_ms: f64) -> Result<(Settings, String), ErrorReport> {
        let value = input::given("options", options)?;
        let o = input::Object::new(&value, "", "options", &OPTIONS)?;
        let agent_id = input::text(o.required("agentId")?, "agentId", 255)?;
        let session_id = o.text("sessionId", 255)?;
        let dimensions =
            input::integer_option("dimensions", o.get("dimensions"), DEFAULT_DIMENSIONS, 1, MAX_DIMENSIONS)?;
        let embed_timeout_ms = input::integer_option(
            "embedTimeoutMs",
            o.get("embedTimeoutMs"),
            DEFAULT_EMBED_TIMEOUT_MS,
            1,
            MAX_EMBED_TIMEOUT_MS,
        )?;
        let match_threshold = o.number_in("matchThreshold", -1.0, 1.0)?.unwrap_or(DEFAULT_MATCH_THRESHOLD);
        // The key space the memories live in: the signed-in user's, or for a service-role
        // client the user it acts for (actingFor), else the service tenant's own.
        // No identity is what the server would refuse with 401 (anon has no key space).
        let settings = Settings {
            agent_id,
            session_id,
            dimensions: dimensions as usize,
            match_threshold,
            now_ms,
            embed_timeout_ms,
        };
        if !target.has_identity() {
            return Err(ErrorReport {
                field: Some("client".into()),
                ..ErrorReport::new(
                    ErrorCode::Unauthorized,
                    "MemoryTools needs an identity: a signed-in user's accessToken, or the service role (with actingFor to act for a user)",
                )
            });
        }
        let Some(tenant) = target.tenant() else {
            // Whose memories they are is known call by call, from the token the function
            // gives then (each call checks it, and userId, again).
            return Ok((settings, o.string("userId")?.unwrap_or_default()));
        };
        if let Some(user_id) = &o.string("userId")?
            && !user_id.trim().eq_ignore_ascii_case(&tenant)
        {
            return Err(ErrorReport::invalid_input(
                "userId",
                "userId is not the user the client acts for (its accessToken's user, or actingFor)",
            ));
        }
        Ok((settings, tenant))
    }
}

/// The work one tool call needs: the text to embed (if any) and how to build the RPC.
#[derive(Debug)]
pub struct Plan {
    /// Text for the embedding callback, when this call needs a vector.
    pub embed: Option<String>,
    call: Box<dyn tools::Tool>,
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
    let mut call = tools::parse(tool, input, settings)?;
    call.know_content(known_content);
    let embed = call.embed_text().map(str::to_owned);
    Ok(Plan { embed, call })
}

impl Plan {
    /// The RPC for this call, given the embedding of [`Plan::embed`] (if it asked for one).
    pub fn request(&self, settings: &Settings, embedding: Option<&[f32]>) -> Result<Rpc, MemoryError> {
        if self.embed.is_some() != embedding.is_some() {
            return Err(MemoryError::EmbeddingFailed("internal: embedding presence does not match the plan".into()));
        }
        let vector = embedding.map_or(Value::Null, |v| value!(v));
        Ok(self.call.rpc(settings, vector))
    }

    /// What the tool returns, from the RPC's JSON result.
    pub fn result(&self, data: Value) -> Result<Value, MemoryError> {
        self.call.result(data)
    }
}

parameters!(
    /// A memory tool's call (`call`'s `args` for the capability `memory`): every tool takes
    /// the same three arguments.
    ToolCall {
        /// `MemoryTools` options, checked by [`Settings::parse`].
        options: Option<JsonText> = "options",
        /// The tool's input as the model gave it (not given: `{}`).
        input: Value = "input",
        /// What the caller last saw of an `update_memory`'s memory (see [`operation`]).
        known_content: Option<String> = "knownContent",
    } -> "MemoryToolResult"
);

/// One tool call as an operation: embed (when the call needs a vector), then ONE RPC,
/// then the tool's result. `known_content` is what the caller last saw of an
/// `update_memory`'s memory (see [`plan_knowing`]); should it be stale, the database
/// refuses the update with [`STALE_CONTENT`], nothing is written, and the call embeds the
/// new content and sends once more.
pub fn operation(
    target: &Target,
    settings: Settings,
    tool: &str,
    input: Value,
    known_content: Option<&str>,
) -> Result<Step, ErrorReport> {
    let plan = plan_knowing(tool, &input, &settings, known_content)?;
    let retry = known_content.is_some().then(|| (tool.to_owned(), input));
    embed_then_send(target.clone(), settings, plan, retry)
}

/// The plan's embedding (if it needs one), then its RPC. `retry` is the call to plan again,
/// without known content, if the database says that content was stale.
fn embed_then_send(
    target: Target,
    settings: Settings,
    plan: Plan,
    retry: Option<(String, Value)>,
) -> Result<Step, ErrorReport> {
    let Some(text) = plan.embed.clone() else {
        return send(target, settings, plan, None, retry);
    };
    let (dimensions, timeout_ms) = (settings.dimensions, settings.embed_timeout_ms);
    Ok(Step::Embed(Embed::new(text, dimensions, timeout_ms, move |vectors| {
        let mut checked = embedding::check(vectors, 1, dimensions)?;
        send(target, settings, plan, Some(checked.remove(0)), retry)
    })))
}

fn send(
    target: Target,
    settings: Settings,
    plan: Plan,
    vector: Option<Vec<f32>>,
    retry: Option<(String, Value)>,
) -> Result<Step, ErrorReport> {
    let rpc = plan.request(&settings, vector.as_deref())?;
    let options = RpcOptions {
        idempotent: rpc.idempotent,
        read: ReadOptions { columns: rpc.columns.map(str::to_owned), ..ReadOptions::default() },
        ..RpcOptions::default()
    };
    let req = request::rpc(&target, rpc.function, &rpc.args, &options)?;
    Ok(Step::Send(Op::answered(req, move |answer| match answer {
        Ok(decoded) => Ok(Step::json(plan.result(decoded.json()?)?)),
        // What the caller knew about the memory's content was stale: nothing was written;
        // embed the new content and send once more.
        Err(report) if report.pgrst_code.as_deref() == Some(STALE_CONTENT) && retry.is_some() => {
            let (tool, input) = retry.unwrap_or_default();
            let plan = plan_knowing(&tool, &input, &settings, None)?;
            embed_then_send(target, settings, plan, None)
        }
        Err(report) => Err(refine(report)),
    })))
}

/// The settings of the tests: 3 dimensions, a session, a fixed clock.
#[cfg(test)]
pub(crate) fn test_settings() -> Settings {
    Settings {
        agent_id: "agent".into(),
        session_id: Some("s".into()),
        dimensions: 3,
        match_threshold: DEFAULT_MATCH_THRESHOLD,
        now_ms: 1.7e12,
        embed_timeout_ms: 1_000,
    }
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
