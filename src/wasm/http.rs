//! `transport::client::Http` over the caller's `fetch` (or the global one): an
//! AbortController per attempt for the timeout, `setTimeout` for backoff sleeps. Only
//! js-sys is used (no web-sys), so the same code runs in Deno, Node and browsers.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::transport::client::{Http, SendError};
use crate::transport::request::HttpRequest;
use crate::transport::response::HttpResponse;

#[wasm_bindgen]
extern "C" {
    type AbortController;
    #[wasm_bindgen(constructor)]
    fn new() -> AbortController;
    #[wasm_bindgen(method, getter)]
    fn signal(this: &AbortController) -> JsValue;
    #[wasm_bindgen(method)]
    fn abort(this: &AbortController);

    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);

    type FetchResponse;
    #[wasm_bindgen(method, getter)]
    fn status(this: &FetchResponse) -> u16;
    #[wasm_bindgen(method, getter)]
    fn headers(this: &FetchResponse) -> FetchHeaders;
    #[wasm_bindgen(method, catch)]
    fn text(this: &FetchResponse) -> Result<Promise, JsValue>;

    type FetchHeaders;
    #[wasm_bindgen(method)]
    fn get(this: &FetchHeaders, name: &str) -> Option<String>;
}

pub struct JsHttp {
    pub fetch: Function,
}

fn error_message(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "fetch failed".into())
}

fn init_object(req: &HttpRequest, signal: &JsValue) -> Object {
    let init = Object::new();
    let headers = Object::new();
    for (k, v) in &req.headers {
        let _ = Reflect::set(&headers, &k.as_str().into(), &v.as_str().into());
    }
    let _ = Reflect::set(&init, &"method".into(), &req.method.into());
    let _ = Reflect::set(&init, &"headers".into(), &headers);
    if let Some(b) = &req.body {
        let _ = Reflect::set(&init, &"body".into(), &b.as_str().into());
    }
    let _ = Reflect::set(&init, &"signal".into(), signal);
    init
}

impl JsHttp {
    async fn attempt(&self, req: &HttpRequest, controller: &AbortController) -> Result<HttpResponse, JsValue> {
        let init = init_object(req, &controller.signal());
        let promise: Promise = self.fetch.call2(&js_sys::global(), &req.url.as_str().into(), &init)?.dyn_into()?;
        let resp: FetchResponse = JsFuture::from(promise).await?.unchecked_into();
        let status = resp.status();
        let content_range = resp.headers().get("content-range");
        let body = JsFuture::from(resp.text()?).await?.as_string().unwrap_or_default();
        Ok(HttpResponse { status, content_range, body })
    }
}

impl Http for JsHttp {
    type Cause = JsValue;

    async fn send(&self, req: &HttpRequest, timeout_ms: u32) -> Result<HttpResponse, SendError<JsValue>> {
        let controller = Rc::new(AbortController::new());
        let timed_out = Rc::new(Cell::new(false));
        let on_timeout = {
            let (controller, timed_out) = (controller.clone(), timed_out.clone());
            Closure::once(move || {
                timed_out.set(true);
                controller.abort();
            })
        };
        let timer = set_timeout(on_timeout.as_ref().unchecked_ref(), timeout_ms);
        let outcome = self.attempt(req, &controller).await;
        clear_timeout(&timer);
        drop(on_timeout);
        outcome.map_err(|cause| {
            if timed_out.get() {
                SendError::Timeout
            } else {
                SendError::Network { message: error_message(&cause), cause }
            }
        })
    }

    async fn sleep(&self, ms: u32) {
        let promise = Promise::new(&mut |resolve, _| {
            set_timeout(&resolve, ms);
        });
        let _ = JsFuture::from(promise).await;
    }

    fn random(&self) -> f64 {
        js_sys::Math::random()
    }
}
