//! Exports for `crate::transport`: client options, the request entry point behind the
//! facade's `AgentmemClient` methods, and token inspection.

use js_sys::{Function, Reflect};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use super::http::JsHttp;
use super::{JsResult, args, from_js, js_error, json_arg, to_js};
use crate::error::ErrorReport;
use crate::transport::client::{RetryPolicy, execute};
use crate::transport::credentials;
use crate::transport::request::{self, HttpRequest, Target};

/// `createClient` options, as the user writes them.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ClientOptions {
    url: String,
    api_key: String,
    access_token: Option<String>,
    timeout_ms: Option<f64>,
    retries: Option<f64>,
    schema: Option<String>,
    #[serde(default)]
    headers: std::collections::BTreeMap<String, String>,
    acting_for: Option<String>,
    #[serde(default)]
    dangerously_allow_secret_key_in_browser: bool,
}

/// The validated client, as the facade keeps it between calls.
pub(super) struct Client {
    pub(super) target: Target,
    pub(super) policy: RetryPolicy,
    pub(super) http: JsHttp,
}

/// JSON text of an options object; `undefined` (or JSON `null`) means the defaults.
fn optional<T: DeserializeOwned + Default>(field: &str, v: &JsValue) -> Result<T, ErrorReport> {
    if v.is_undefined() || v.is_null() || v.as_string().as_deref() == Some("null") {
        Ok(T::default())
    } else {
        from_js(field, v)
    }
}

/// A browser is where `document` exists, or `window` without `Deno` (Deno 1.x, which
/// Supabase's hosted edge runtime is built on, defines `window` too).
fn in_browser() -> bool {
    let global = js_sys::global();
    let has = |name: &str| Reflect::get(&global, &name.into()).is_ok_and(|v| !v.is_undefined());
    has("document") || (has("window") && !has("Deno"))
}

impl Client {
    /// Sends `req` with the client's retry policy; errors have keys and tokens redacted.
    pub(super) async fn send(&self, req: &HttpRequest) -> JsResult<crate::transport::response::Decoded> {
        self.send_raw(req).await.map_err(|f| js_error(f.report, f.cause))
    }

    /// [`Client::send`] with the failure still in Rust form, for callers that refine it.
    pub(super) async fn send_raw(
        &self,
        req: &HttpRequest,
    ) -> Result<crate::transport::response::Decoded, crate::transport::client::Failure<JsValue>> {
        let secrets: Vec<&str> =
            [Some(self.target.api_key.as_str()), self.target.access_token.as_deref()].into_iter().flatten().collect();
        execute(&self.http, &self.policy, req, &secrets).await
    }
}

/// `state` is what the facade keeps of a client: `{ options, fetch }`, the options as JSON
/// text and the caller's fetch function (or undefined).
pub(super) fn client(state: &JsValue) -> Result<Client, ErrorReport> {
    let text = Reflect::get(state, &"options".into()).unwrap_or(JsValue::UNDEFINED);
    if !text.as_string().is_some_and(|t| t.trim_start().starts_with('{')) {
        return Err(ErrorReport::invalid_input("options", "createClient needs an options object { url, apiKey, ... }"));
    }
    let o: ClientOptions = from_js("options", &text)?;
    let mut target = Target::new(&o.url, &o.api_key, o.access_token.as_deref())?;
    credentials::check_browser_use(
        &o.api_key,
        o.access_token.as_deref(),
        in_browser(),
        o.dangerously_allow_secret_key_in_browser,
    )?;
    target.set_schema_and_headers(o.schema, o.headers.into_iter().collect())?;
    if let Some(user) = &o.acting_for {
        target.act_for(user)?;
    }
    let defaults = RetryPolicy::default();
    let retries = args::integer_option("retries", o.retries, defaults.retries, 0, RetryPolicy::MAX_RETRIES)?;
    let timeout_ms =
        args::integer_option("timeoutMs", o.timeout_ms, defaults.timeout_ms, 1, RetryPolicy::MAX_TIMEOUT_MS)?;
    let fetch = Reflect::get(state, &"fetch".into()).unwrap_or(JsValue::UNDEFINED);
    let fetch = if fetch.is_undefined() || fetch.is_null() {
        Reflect::get(&js_sys::global(), &"fetch".into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        fetch
    };
    let fetch: Function = fetch.dyn_into().map_err(|_| {
        ErrorReport::invalid_input("fetch", "fetch must be a function (no global fetch in this runtime?)")
    })?;
    Ok(Client { target, policy: RetryPolicy { retries, timeout_ms, ..defaults }, http: JsHttp { fetch } })
}

/// Validates client options up front, so `createClient` fails fast on bad input.
#[wasm_bindgen(js_name = checkClientOptions)]
pub fn check_client_options(state: JsValue) -> JsResult<String> {
    Ok(client(&state)?.target.rest_url)
}

fn build(c: &Client, op: &str, name: &str, payload: &JsValue, options: &JsValue) -> Result<HttpRequest, ErrorReport> {
    let t = &c.target;
    let req = match op {
        "select" => request::select(t, name, &optional("options", options)?),
        "insert" => request::insert(t, name, &from_js("rows", payload)?, &optional("options", options)?),
        "upsert" => request::upsert(t, name, &from_js("rows", payload)?, &optional("options", options)?),
        "update" => request::update(t, name, &from_js("patch", payload)?, &optional("options", options)?),
        "delete" => request::delete(t, name, &optional("options", options)?),
        "rpc" => {
            let args = match json_arg("args", payload)? {
                serde_json::Value::Null => serde_json::json!({}),
                args => args,
            };
            request::rpc(t, name, &args, &optional("options", options)?)
        }
        other => return Err(ErrorReport::invalid_input("op", format!("unknown operation {other:?}"))),
    };
    req.map_err(ErrorReport::from)
}

/// Sends one request through the client; resolves to `{ data, count, status }`.
#[wasm_bindgen(js_name = clientRequest)]
pub async fn client_request(
    client_state: JsValue,
    op: JsValue,
    name: JsValue,
    payload: JsValue,
    request_options: JsValue,
) -> JsResult<JsValue> {
    let c = client(&client_state)?;
    let op = args::string("op", &op)?;
    let name = args::string(if op == "rpc" { "function" } else { "table" }, &name)?;
    let req = build(&c, &op, &name, &payload, &request_options)?;
    let decoded = c.send(&req).await?;
    let data = match &decoded.body {
        None => JsValue::NULL,
        Some(text) => js_sys::JSON::parse(text).map_err(|e| {
            js_error(ErrorReport::new(crate::ErrorCode::Server, "the server sent invalid JSON"), Some(e))
        })?,
    };
    let out = js_sys::Object::new();
    let _ = Reflect::set(&out, &"data".into(), &data);
    let _ = Reflect::set(&out, &"count".into(), &decoded.count.map_or(JsValue::NULL, |c| JsValue::from_f64(c as f64)));
    let _ = Reflect::set(&out, &"status".into(), &JsValue::from(decoded.status));
    Ok(out.into())
}

/// What a key or access token stands for (decoded, not verified).
#[wasm_bindgen(js_name = inspectToken)]
pub fn inspect_token(token: JsValue) -> JsResult<JsValue> {
    let token = args::string("token", &token)?;
    to_js(&credentials::inspect("token", &token).map_err(ErrorReport::from)?)
}
