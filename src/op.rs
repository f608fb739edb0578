//! One shape for every operation of every capability (the PostgREST client, the memory
//! tools, the state stores, the checkpoint saver): the core plans a [`Step`], and [`run`]
//! carries it out with what only the host has (the caller's `fetch`, its embedding
//! callback, timers). A step is one request to send and what to do with the answer, one
//! text to embed and what to do with the vector, or the result. Planning is pure, so every
//! request and every reading of an answer is tested natively; the wasm boundary only
//! converts values and polls [`run`] (`src/wasm/run.rs`), handing JavaScript what it waits on.

use serde_json::Value;

use crate::error::ErrorReport;
use crate::transport::client::{Failure, Http, RetryPolicy, execute};
use crate::transport::request::HttpRequest;
use crate::transport::response::Decoded;

/// What a sent request came back with: the decoded answer, or the error it is (already
/// retried where that is safe, keys and tokens redacted).
pub type Answer = Result<Decoded, ErrorReport>;

type Then<T> = Box<dyn FnOnce(T) -> Result<Step, ErrorReport>>;

/// What an operation needs next.
pub enum Step {
    /// Send a request, then continue with its answer.
    Send(Op),
    /// Embed a text with the caller's callback, then continue with the vector.
    Embed(Embed),
    /// The operation's result.
    Done(Output),
}

/// One request and what its answer becomes.
pub struct Op {
    pub request: HttpRequest,
    then: Then<Answer>,
}

/// A text for the embedding callback, and what its vector becomes.
pub struct Embed {
    pub text: String,
    /// What every vector must have (checked again by `then`).
    pub dimensions: usize,
    /// How long the callback may take.
    pub timeout_ms: u32,
    /// Takes the callback's vectors (components as f64, `None` where one was not a number).
    then: Then<Vec<Vec<Option<f64>>>>,
}

/// The result of an operation, as the boundary hands it to JavaScript.
#[derive(Debug)]
pub enum Output {
    /// A JSON value.
    Json(Value),
    /// A PostgREST answer as it came (the body still JSON text): `{ data, count, status }`.
    Response(Decoded),
    /// JSON text, and the byte buffers it refers to by index, which JSON cannot carry
    /// (a checkpoint read's serialized values): `[text, [Uint8Array, …]]` in JavaScript.
    Buffers(String, Vec<Vec<u8>>),
}

impl Op {
    /// Sends `request`; a good answer goes through `finish`, an error is the operation's.
    pub fn new(request: HttpRequest, finish: impl FnOnce(Decoded) -> Result<Step, ErrorReport> + 'static) -> Op {
        Op { request, then: Box::new(move |answer| finish(answer?)) }
    }

    /// Sends `request`; `then` sees errors too, to refine them or to try another step.
    pub fn answered(request: HttpRequest, then: impl FnOnce(Answer) -> Result<Step, ErrorReport> + 'static) -> Op {
        Op { request, then: Box::new(then) }
    }

    /// Sends `request`; the JSON body (`null` when empty) goes through `finish`, whose
    /// value is the result.
    pub fn json<E: Into<ErrorReport>>(
        request: HttpRequest,
        finish: impl FnOnce(Value) -> Result<Value, E> + 'static,
    ) -> Op {
        Op::new(request, move |d| Ok(Step::Done(Output::Json(finish(d.json()?).map_err(Into::into)?))))
    }

    /// This operation with its errors (the server's, and its own reading of the answer)
    /// passed through `refine`.
    pub fn map_err(self, refine: fn(ErrorReport) -> ErrorReport) -> Op {
        let then = self.then;
        Op { request: self.request, then: Box::new(move |answer| then(answer.map_err(refine)).map_err(refine)) }
    }

    /// What the answer makes of the operation.
    pub fn then(self, answer: Answer) -> Result<Step, ErrorReport> {
        (self.then)(answer)
    }
}

impl Embed {
    pub fn new(
        text: String,
        dimensions: usize,
        timeout_ms: u32,
        then: impl FnOnce(Vec<Vec<Option<f64>>>) -> Result<Step, ErrorReport> + 'static,
    ) -> Embed {
        Embed { text, dimensions, timeout_ms, then: Box::new(then) }
    }

    pub fn then(self, vectors: Vec<Vec<Option<f64>>>) -> Result<Step, ErrorReport> {
        (self.then)(vectors)
    }
}

impl Step {
    pub fn json(value: Value) -> Step {
        Step::Done(Output::Json(value))
    }
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Send(op) => f.debug_tuple("Send").field(&op.request).finish(),
            Step::Embed(e) => f.debug_tuple("Embed").field(&e.text).finish(),
            Step::Done(out) => f.debug_tuple("Done").field(out).finish(),
        }
    }
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Op").field("request", &self.request).finish_non_exhaustive()
    }
}

/// What [`run`] needs of the host besides HTTP: the caller's embedding callback.
#[allow(async_fn_in_trait)] // single-threaded by design (wasm); no Send bound wanted
pub trait Host: Http {
    /// The callback's vectors for `[text]`, or why there are none (`embedding_failed`,
    /// `dimension_mismatch`).
    async fn embed(&self, embed: &Embed) -> Result<Vec<Vec<Option<f64>>>, Failure<Self::Cause>>;
}

/// Carries out `step` to its result: sends (with `policy`'s retries), embeds, and feeds
/// each answer to the plan. A failed send's report goes through `refine` first (what the
/// package makes of the server's errors: `schema::refine` names a missing migration),
/// so plans see the error callers will. An error keeps the platform's cause of a failed
/// send (fetch's exception), whatever the plan made of the report.
pub async fn run<H: Host>(
    host: &H,
    policy: &RetryPolicy,
    secrets: &[&str],
    refine: fn(ErrorReport) -> ErrorReport,
    mut step: Step,
) -> Result<Output, Failure<H::Cause>> {
    loop {
        step = match step {
            Step::Done(output) => return Ok(output),
            Step::Send(op) => {
                let (answer, cause) = match execute(host, policy, &op.request, secrets).await {
                    Ok(decoded) => (Ok(decoded), None),
                    Err(f) => (Err(refine(f.report)), f.cause),
                };
                op.then(answer).map_err(|report| Failure { report, cause })?
            }
            Step::Embed(embed) => {
                let vectors = host.embed(&embed).await?;
                embed.then(vectors).map_err(|report| Failure { report, cause: None })?
            }
        };
    }
}

// Kept with the tests: it formats a step with Debug, which shipped code must not
// (see error::tests::shipped_code_never_formats_with_debug).
#[cfg(test)]
mod tests {
    use super::*;

    impl Op {
        /// The result of a JSON answer whose body is `body`, for tests of a plan.
        pub fn finish(self, body: Value) -> Result<Value, ErrorReport> {
            let body = (!body.is_null()).then(|| body.to_string());
            match self.then(Ok(Decoded { status: 200, body, count: None }))? {
                Step::Done(Output::Json(v)) => Ok(v),
                other => Err(ErrorReport::new(crate::ErrorCode::Internal, format!("not a JSON result: {other:?}"))),
            }
        }
    }
}
