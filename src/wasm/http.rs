//! The host side of `crate::op::run`: HTTP over the caller's `fetch` (or the global one),
//! timers, and the caller's embedding callback. The attempts themselves (time limits,
//! abort signals, reading the Response, copying the vectors) run in `pkg-template/io.js`,
//! whose promises always resolve to a plain object: the caller's functions never run, nor
//! throw, while a wasm frame is on the stack.

use js_sys::{Array, Float64Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::error::{ErrorCode, ErrorReport};
use crate::json::write_str;
use crate::op::{Embed, Host};
use crate::transport::client::{Failure, Http, SendError};
use crate::transport::request::HttpRequest;
use crate::transport::response::HttpResponse;

#[wasm_bindgen(raw_module = "./io.js")]
extern "C" {
    /// `headers` is a JSON object's text, `body` a string or `undefined`.
    #[wasm_bindgen(js_name = fetchOnce)]
    fn fetch_once(fetch: &Function, url: &str, method: &str, headers: &str, body: JsValue, timeout_ms: u32) -> Promise;
    #[wasm_bindgen(js_name = sleep)]
    fn sleep_ms(ms: u32) -> Promise;
    /// Calls the embedding callback; resolves (never rejects) to `{ vectors }` (one
    /// Float64Array per text) or `{ code, message, cause }`.
    #[wasm_bindgen(js_name = embedOnce)]
    fn embed_once(embed: &JsValue, texts: &Array, timeout_ms: u32, dimensions: u32) -> Promise;
}

pub struct JsHttp {
    pub fetch: Function,
    /// The memory tools' embedding callback (checked by the facade); `undefined` elsewhere.
    pub embed: JsValue,
}

/// The request's headers as the text of a JSON object, in their order, which io.js parses
/// into the fetch's `init.headers`: one string across the boundary instead of a
/// `Reflect.set` per header.
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

impl Http for JsHttp {
    type Cause = JsValue;

    async fn send(&self, req: &HttpRequest, timeout_ms: u32) -> Result<HttpResponse, SendError<JsValue>> {
        let body = req.body.as_deref().map_or(JsValue::UNDEFINED, JsValue::from_str);
        let promise = fetch_once(&self.fetch, &req.url, req.method, &headers_json(req), body, timeout_ms);
        let outcome = JsFuture::from(promise).await.unwrap_or(JsValue::UNDEFINED);
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
        let _ = JsFuture::from(sleep_ms(ms)).await;
    }

    fn random(&self) -> f64 {
        js_sys::Math::random()
    }
}

impl Host for JsHttp {
    async fn embed(&self, embed: &Embed) -> Result<Vec<Vec<Option<f64>>>, Failure<JsValue>> {
        let texts = Array::of1(&JsValue::from_str(&embed.text));
        let promise = embed_once(&self.embed, &texts, embed.timeout_ms, embed.dimensions as u32);
        let outcome = JsFuture::from(promise).await.unwrap_or(JsValue::UNDEFINED);
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
