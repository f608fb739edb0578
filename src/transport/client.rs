//! Sending with time limits and retries. The HTTP implementation is injected (`Http`): the
//! wasm boundary implements it with the caller's `fetch` and an AbortController; tests
//! implement it with a script of outcomes.
//!
//! Retry rules: only requests marked idempotent (reads, upserts with a conflict target,
//! PATCH/DELETE, RPCs declared idempotent), only after a network failure, a timeout or a
//! transient server error ([`transient`]), at most `retries` times, with exponential
//! backoff and jitter. A plain insert is never retried: a lost response does not mean a
//! lost write.

use super::TransportError;
use super::request::HttpRequest;
use super::response::{Decoded, HttpResponse, decode};
use crate::error::ErrorReport;

/// How a send can fail without an HTTP response. `C` is the platform's own error value
/// (a JS exception), kept so callers can see the real cause.
#[derive(Debug)]
pub enum SendError<C> {
    Timeout,
    Network { message: String, cause: C },
}

#[allow(async_fn_in_trait)] // single-threaded by design (wasm); no Send bound wanted
pub trait Http {
    type Cause;
    async fn send(&self, req: &HttpRequest, timeout_ms: u32) -> Result<HttpResponse, SendError<Self::Cause>>;
    async fn sleep(&self, ms: u32);
    /// Uniform in [0, 1), for jitter.
    fn random(&self) -> f64;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub retries: u32,
    pub timeout_ms: u32,
    pub base_delay_ms: u32,
    pub max_delay_ms: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { retries: 2, timeout_ms: 15_000, base_delay_ms: 100, max_delay_ms: 2_000 }
    }
}

impl RetryPolicy {
    pub const MAX_RETRIES: u32 = 10;
    pub const MAX_TIMEOUT_MS: u32 = 600_000;

    /// "Equal jitter": half the exponential step, plus a random part of the other half.
    pub fn backoff_ms(&self, attempt: u32, random: f64) -> u32 {
        let step =
            self.base_delay_ms.saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX)).min(self.max_delay_ms);
        step / 2 + (f64::from(step / 2) * random.clamp(0.0, 1.0)) as u32
    }
}

/// Whether an error response says "try again shortly": a gateway or PostgREST that could
/// not reach Postgres (502, 503, 504), or Postgres going down or coming up under the
/// request: class 08 (connection exception, PostgREST answers 503) and 57P01
/// admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (PostgREST answers
/// 500 for class 57). The server ran nothing for such a request, or rolled it back.
pub fn transient(status: u16, pgrst_code: Option<&str>) -> bool {
    matches!(status, 502..=504)
        || (status >= 500
            && pgrst_code.is_some_and(|c| c.starts_with("08") || matches!(c, "57P01" | "57P02" | "57P03")))
}

/// A failed request: what to report, and the platform's underlying error if there was one.
#[derive(Debug)]
pub struct Failure<C> {
    pub report: ErrorReport,
    pub cause: Option<C>,
}

/// Replaces every occurrence of a secret by `[redacted]`, so keys and tokens never leak
/// through error texts (a server may echo a header or a filter back).
pub fn redact(report: &mut ErrorReport, secrets: &[&str]) {
    for text in [Some(&mut report.message), report.details.as_mut(), report.hint.as_mut()].into_iter().flatten() {
        for s in secrets.iter().filter(|s| s.len() >= 8) {
            if text.contains(*s) {
                *text = text.replace(*s, "[redacted]");
            }
        }
    }
}

pub async fn execute<H: Http>(
    http: &H,
    policy: &RetryPolicy,
    req: &HttpRequest,
    secrets: &[&str],
) -> Result<Decoded, Failure<H::Cause>> {
    let mut attempt = 0;
    loop {
        let (retryable, mut failure) = match http.send(req, policy.timeout_ms).await {
            Ok(resp) => match decode(req, &resp) {
                Ok(d) => return Ok(d),
                Err(report) => (transient(resp.status, report.pgrst_code.as_deref()), Failure { report, cause: None }),
            },
            Err(SendError::Timeout) => {
                let origin = super::origin(&req.url).to_owned();
                let report = TransportError::Timeout { origin, timeout_ms: policy.timeout_ms }.report();
                (true, Failure { report, cause: None })
            }
            Err(SendError::Network { message, cause }) => {
                let origin = super::origin(&req.url).to_owned();
                (true, Failure { report: TransportError::Network { origin, message }.report(), cause: Some(cause) })
            }
        };
        if retryable && req.idempotent && attempt < policy.retries {
            http.sleep(policy.backoff_ms(attempt, http.random())).await;
            attempt += 1;
            continue;
        }
        failure.report.retries = Some(attempt);
        redact(&mut failure.report, secrets);
        return Err(failure);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::future::Future;

    use super::*;
    use crate::error::ErrorCode;
    use crate::transport::options::{ReadOptions, RpcOptions, WriteOptions};
    use crate::transport::request::{insert, rpc, select};
    use crate::transport::target::Target;

    /// Plays back a script of outcomes and records what it was asked to do.
    struct Script {
        outcomes: RefCell<Vec<Result<HttpResponse, SendError<&'static str>>>>,
        sends: RefCell<u32>,
        sleeps: RefCell<Vec<u32>>,
    }

    impl Script {
        fn new(mut outcomes: Vec<Result<HttpResponse, SendError<&'static str>>>) -> Script {
            outcomes.reverse();
            Script { outcomes: RefCell::new(outcomes), sends: RefCell::new(0), sleeps: RefCell::new(Vec::new()) }
        }
    }

    impl Http for Script {
        type Cause = &'static str;
        async fn send(&self, _: &HttpRequest, _: u32) -> Result<HttpResponse, SendError<&'static str>> {
            *self.sends.borrow_mut() += 1;
            self.outcomes.borrow_mut().pop().expect("script ran out")
        }
        async fn sleep(&self, ms: u32) {
            self.sleeps.borrow_mut().push(ms);
        }
        fn random(&self) -> f64 {
            0.5
        }
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    fn ok(body: &str) -> Result<HttpResponse, SendError<&'static str>> {
        Ok(HttpResponse { status: 200, content_range: None, body: body.into() })
    }
    fn status(s: u16) -> Result<HttpResponse, SendError<&'static str>> {
        Ok(HttpResponse { status: s, content_range: None, body: format!(r#"{{"code":"X","message":"status {s}"}}"#) })
    }
    fn dropped() -> Result<HttpResponse, SendError<&'static str>> {
        Err(SendError::Network { message: "connection reset".into(), cause: "TypeError: fetch failed" })
    }

    /// A JWT-shaped token (header `{}`, payload `{"sub":"u"}`).
    const USER_JWT: &str = "e30.eyJzdWIiOiJ1In0.user-token-abcdef";

    fn target() -> Target {
        Target::new("https://x", "anon-key-123456", Some(USER_JWT)).unwrap()
    }

    #[test]
    fn idempotent_reads_retry_network_errors_and_5xx_then_succeed() {
        let req = select(&target(), "t", &ReadOptions::default()).unwrap();
        let http = Script::new(vec![dropped(), status(503), ok("[1]")]);
        let d = block_on(execute(&http, &RetryPolicy::default(), &req, &[])).unwrap();
        assert_eq!(d.body.as_deref(), Some("[1]"));
        assert_eq!(*http.sends.borrow(), 3);
        assert_eq!(*http.sleeps.borrow(), [75, 150], "equal jitter with random 0.5 over 100 ms, 200 ms");
    }

    #[test]
    fn gives_up_after_the_budget_with_count_and_cause() {
        let req = select(&target(), "t", &ReadOptions::default()).unwrap();
        let http = Script::new(vec![dropped(), Err(SendError::Timeout), dropped()]);
        let f = block_on(execute(&http, &RetryPolicy::default(), &req, &[])).unwrap_err();
        assert_eq!(
            (f.report.code, f.report.retries, f.cause),
            (ErrorCode::Network, Some(2), Some("TypeError: fetch failed"))
        );
        let http = Script::new(vec![Err(SendError::Timeout)]);
        let policy = RetryPolicy { retries: 0, ..RetryPolicy::default() };
        let f = block_on(execute(&http, &policy, &req, &[])).unwrap_err();
        assert_eq!((f.report.code, f.report.retries), (ErrorCode::Timeout, Some(0)));
    }

    #[test]
    fn plain_inserts_and_undeclared_rpcs_are_never_retried() {
        for req in [
            insert(&target(), "t", &serde_json::json!({"a": 1}), &WriteOptions::default()).unwrap(),
            rpc(&target(), "f", &serde_json::json!({}), &RpcOptions::default()).unwrap(),
        ] {
            let http = Script::new(vec![dropped()]);
            let f = block_on(execute(&http, &RetryPolicy::default(), &req, &[])).unwrap_err();
            assert_eq!((*http.sends.borrow(), f.report.retries), (1, Some(0)));
            let http = Script::new(vec![status(503)]);
            assert_eq!(
                block_on(execute(&http, &RetryPolicy::default(), &req, &[])).unwrap_err().report.status,
                Some(503)
            );
        }
    }

    fn pg(status: u16, code: &str) -> Result<HttpResponse, SendError<&'static str>> {
        let body = format!(r#"{{"code":"{code}","message":"m","details":null,"hint":null}}"#);
        Ok(HttpResponse { status, content_range: None, body })
    }

    #[test]
    fn postgres_restarts_are_retried_for_idempotent_requests_only() {
        let read = select(&target(), "t", &ReadOptions::default()).unwrap();
        for transient in [pg(500, "57P01"), pg(500, "57P02"), pg(500, "57P03"), pg(503, "08006"), pg(503, "08001")] {
            let http = Script::new(vec![transient, ok("[1]")]);
            assert!(block_on(execute(&http, &RetryPolicy::default(), &read, &[])).is_ok());
            assert_eq!(*http.sends.borrow(), 2);
        }
        // Same budget and backoff as network errors: two retries, then the last error.
        let http = Script::new(vec![pg(500, "57P01"), pg(500, "57P03"), pg(500, "57P01")]);
        let f = block_on(execute(&http, &RetryPolicy::default(), &read, &[])).unwrap_err();
        assert_eq!((f.report.retries, f.report.pgrst_code.as_deref()), (Some(2), Some("57P01")));
        assert_eq!(*http.sleeps.borrow(), [75, 150]);
        // A plain insert is sent once, whatever the error.
        let write = insert(&target(), "t", &serde_json::json!({"a": 1}), &WriteOptions::default()).unwrap();
        let http = Script::new(vec![pg(500, "57P01")]);
        let f = block_on(execute(&http, &RetryPolicy::default(), &write, &[])).unwrap_err();
        assert_eq!((*http.sends.borrow(), f.report.retries), (1, Some(0)));
        // Other server errors are answers, not outages: not retried.
        for other in [pg(500, "XX000"), pg(500, "40P01"), pg(500, "57014"), pg(400, "08P01")] {
            let http = Script::new(vec![other]);
            block_on(execute(&http, &RetryPolicy::default(), &read, &[])).unwrap_err();
            assert_eq!(*http.sends.borrow(), 1);
        }
    }

    #[test]
    fn client_errors_are_not_retried() {
        let req = select(&target(), "t", &ReadOptions::default()).unwrap();
        for s in [400, 401, 403, 404, 409, 500] {
            let http = Script::new(vec![status(s)]);
            let f = block_on(execute(&http, &RetryPolicy::default(), &req, &[])).unwrap_err();
            assert_eq!((*http.sends.borrow(), f.report.status), (1, Some(s)));
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy::default();
        assert_eq!((p.backoff_ms(0, 0.0), p.backoff_ms(0, 1.0)), (50, 100));
        assert_eq!(p.backoff_ms(3, 1.0), 800);
        assert_eq!(p.backoff_ms(10, 1.0), 2000);
        assert_eq!(p.backoff_ms(40, 1.0), 2000);
    }

    #[test]
    fn secrets_are_redacted_from_errors() {
        let req = select(&target(), "t", &ReadOptions::default()).unwrap();
        let body = r#"{"code":"X","message":"bad token e30.eyJzdWIiOiJ1In0.user-token-abcdef","details":"key anon-key-123456","hint":null}"#;
        let http = Script::new(vec![Ok(HttpResponse { status: 400, content_range: None, body: body.into() })]);
        let f = block_on(execute(&http, &RetryPolicy::default(), &req, &["anon-key-123456", USER_JWT])).unwrap_err();
        assert_eq!(f.report.message, "bad token [redacted]");
        assert_eq!(f.report.details.as_deref(), Some("key [redacted]"));
    }
}
