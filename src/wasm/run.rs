//! Runs an operation to its result with JavaScript driving: the module never awaits a
//! promise itself. `crate::op::run` is polled here, synchronously; where it needs the host
//! (a request sent through the caller's fetch, a wait between retries, the caller's
//! embedding callback) it hands JavaScript an *action* and stops, and `pkg-template/wasm.js`
//! performs it (through `io.js`, whose promises always resolve to a plain object) and
//! resumes the run with the outcome.
//!
//! Every entry into the module is therefore a synchronous call from `wasm.js`, the one
//! place where a trap can be caught: no microtask of the module's runs where no caller can
//! catch it, and the module needs no async executor (wasm-bindgen-futures) of its own.
//! A run waiting on its action is the one thing kept in the instance between calls; a trap
//! discards the instance with it, and `wasm.js` rejects the calls that were waiting.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::{Array, Float64Array, Reflect};
use wasm_bindgen::prelude::*;

use super::JsResult;
use crate::boundary::Action;
use crate::error::{ErrorCode, ErrorReport};
use crate::json::write_str;
use crate::op::{Embed, Host};
use crate::transport::client::{Failure, Http, SendError};
use crate::transport::request::HttpRequest;
use crate::transport::response::HttpResponse;

/// The action a run waits on and, once JavaScript performed it, its outcome.
#[derive(Default)]
struct Exchange {
    action: Cell<Option<Array>>,
    outcome: Cell<Option<JsValue>>,
}

/// A wait for the host: ready once the run is resumed with the outcome of `action`.
struct Ask {
    exchange: Rc<Exchange>,
    action: Option<Array>,
}

impl Future for Ask {
    type Output = JsValue;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<JsValue> {
        if let Some(action) = self.action.take() {
            self.exchange.action.set(Some(action));
            return Poll::Pending;
        }
        match self.exchange.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => Poll::Pending,
        }
    }
}

/// The host as a run sees it: every effect is an action for JavaScript.
pub struct JsHost {
    exchange: Rc<Exchange>,
}

impl JsHost {
    fn ask(&self, action: Array) -> Ask {
        Ask { exchange: self.exchange.clone(), action: Some(action) }
    }
}

/// The request's headers as the text of a JSON object, in their order, which io.js parses
/// into the fetch's `init.headers`: one string across the boundary instead of a property
/// set per header.
fn headers_json(req: &HttpRequest) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in req.headers.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(&mut out, k);
        out.push(':');
        write_str(&mut out, v);
    }
    out.push('}');
    out
}

/// A property of an outcome object io.js built (plain data: reading it cannot throw).
fn get(outcome: &JsValue, key: &str) -> JsValue {
    Reflect::get(outcome, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

impl Http for JsHost {
    type Cause = JsValue;

    async fn send(&self, req: &HttpRequest, timeout_ms: u32) -> Result<HttpResponse, SendError<JsValue>> {
        let body = req.body.as_deref().map_or(JsValue::UNDEFINED, JsValue::from_str);
        let action: Array = [
            JsValue::from_str(Action::Fetch.as_str()),
            JsValue::from_str(&req.url),
            JsValue::from_str(req.method),
            JsValue::from(headers_json(req)),
            body,
            JsValue::from(timeout_ms),
        ]
        .iter()
        .collect();
        let outcome = self.ask(action).await;
        if let Some(status) = get(&outcome, "status").as_f64() {
            return Ok(HttpResponse {
                status: status as u16,
                content_range: get(&outcome, "contentRange").as_string(),
                body: get(&outcome, "body").as_string().unwrap_or_default(),
            });
        }
        if get(&outcome, "timeout").is_truthy() {
            return Err(SendError::Timeout);
        }
        let message = get(&outcome, "message").as_string().unwrap_or_else(|| "fetch failed".into());
        Err(SendError::Network { message, cause: get(&outcome, "cause") })
    }

    async fn sleep(&self, ms: u32) {
        self.ask(Array::of2(&Action::Sleep.as_str().into(), &ms.into())).await;
    }

    fn random(&self) -> f64 {
        js_sys::Math::random()
    }
}

impl Host for JsHost {
    async fn embed(&self, embed: &Embed) -> Result<Vec<Vec<Option<f64>>>, Failure<JsValue>> {
        let texts = Array::of1(&JsValue::from_str(&embed.text));
        let action = Array::of4(
            &Action::Embed.as_str().into(),
            &texts,
            &embed.timeout_ms.into(),
            &JsValue::from(embed.dimensions as u32),
        );
        let outcome = self.ask(action).await;
        if let Some(vectors) = get(&outcome, "vectors").dyn_ref::<Array>() {
            return Ok(vectors
                .iter()
                .map(|v| v.unchecked_into::<Float64Array>().to_vec().into_iter().map(Some).collect())
                .collect());
        }
        let code = match get(&outcome, "code").as_string().as_deref() {
            Some("dimension_mismatch") => ErrorCode::DimensionMismatch,
            _ => ErrorCode::EmbeddingFailed,
        };
        let message = get(&outcome, "message").as_string().unwrap_or_else(|| "the embedding callback failed".into());
        let cause = get(&outcome, "cause");
        Err(Failure { report: ErrorReport::new(code, message), cause: (!cause.is_undefined()).then_some(cause) })
    }
}

/// An operation on its way: the future of its result and what it waits on.
struct Run {
    future: Pin<Box<dyn Future<Output = JsResult<JsValue>>>>,
    exchange: Rc<Exchange>,
}

thread_local! {
    /// The runs waiting on an action, by id (a free slot is `None`).
    static RUNS: RefCell<Vec<Option<Run>>> = const { RefCell::new(Vec::new()) };
}

/// Starts a run: `operation` gets the host to run with and is the future of the result.
pub fn start<F: Future<Output = JsResult<JsValue>> + 'static>(
    operation: impl FnOnce(JsHost) -> F,
) -> JsResult<JsValue> {
    let exchange = Rc::new(Exchange::default());
    let future = Box::pin(operation(JsHost { exchange: exchange.clone() }));
    advance(Run { future, exchange })
}

/// Resumes the run `id` with the outcome of its action.
pub fn resume(id: JsValue, outcome: JsValue) -> JsResult<JsValue> {
    let run = id.as_f64().and_then(|i| RUNS.with_borrow_mut(|runs| runs.get_mut(i as usize).and_then(Option::take)));
    let Some(run) = run else {
        return Err(ErrorReport::new(ErrorCode::Internal, "resume: no run waits under this id").into());
    };
    run.exchange.outcome.set(Some(outcome));
    advance(run)
}

/// Polls `run` until it needs the host: `[id, action]` for JavaScript to perform and
/// resume, or `[-1, result]` when it is done (an error is thrown).
fn advance(mut run: Run) -> JsResult<JsValue> {
    match run.future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => Ok(Array::of2(&JsValue::from(-1), &result?).into()),
        Poll::Pending => {
            let Some(action) = run.exchange.action.take() else {
                return Err(ErrorReport::new(ErrorCode::Internal, "a run stopped without an action").into());
            };
            let id = RUNS.with_borrow_mut(|runs| {
                let free = runs.iter().position(Option::is_none).unwrap_or(runs.len());
                if free == runs.len() {
                    runs.push(None);
                }
                runs[free] = Some(run);
                free
            });
            Ok(Array::of2(&JsValue::from(id as u32), &action).into())
        }
    }
}
