//! The client as the boundary sees it (its options, checked, and the caller's fetch), the
//! client's own operations, and token inspection.

use std::cell::RefCell;

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::{JsResult, args, js_error, set, to_js};
use crate::client::ClientCall;
use crate::error::ErrorReport;
use crate::op::Step;
use crate::transport::client::RetryPolicy;
use crate::transport::config;
use crate::transport::credentials;
use crate::transport::response::Decoded;
use crate::transport::target::Target;

/// The validated client of one call.
pub(super) struct Client {
    pub(super) target: Target,
    pub(super) policy: RetryPolicy,
}

impl Client {
    /// What error texts must never show: the key and the token.
    pub(super) fn secrets(&self) -> Vec<&str> {
        [Some(self.target.api_key.as_str()), self.target.access_token.as_deref()].into_iter().flatten().collect()
    }
}

#[wasm_bindgen(raw_module = "./io.js")]
extern "C" {
    /// A browser is where `document` exists, or `window` without `Deno` (Deno 1.x, which
    /// Supabase's hosted edge runtime is built on, defines `window` too). Asked on every
    /// call, in one crossing: looked up from here, each global's name would cross as a
    /// new string and each lookup on its own.
    #[wasm_bindgen(js_name = inBrowser)]
    fn in_browser() -> bool;
}

thread_local! {
    /// The options text last configured, with the `in_browser` it was checked for, and the
    /// result. Every call hands the module its client's options again, and checking them
    /// (the URL, the key, decoding the token) would be the same work on every call, when a
    /// process mostly calls with one client. `configure` depends on
    /// nothing else, so an equal text configures equally. The entry lives in the instance:
    /// a module re-initialised after a panic starts empty.
    static CONFIGURED: RefCell<Option<(String, bool, Target, RetryPolicy)>> = const { RefCell::new(None) };
}

/// `config::configure(options, in_browser)`, remembered for the last options text (errors
/// are not: a bad text fails the same way every time).
fn configured(options: Option<String>, in_browser: bool) -> Result<(Target, RetryPolicy), ErrorReport> {
    let Some(text) = options else { return config::configure(None, in_browser) };
    let hit = CONFIGURED.with_borrow(|last| match last {
        Some((t, b, target, policy)) if *t == text && *b == in_browser => Some((target.clone(), *policy)),
        _ => None,
    });
    if let Some(hit) = hit {
        return Ok(hit);
    }
    let (target, policy) = config::configure(Some(&text), in_browser)?;
    CONFIGURED.set(Some((text, in_browser, target.clone(), policy)));
    Ok((target, policy))
}

/// `state` is what the facade keeps of a client: `{ options, fetch }`, the options as JSON
/// text and the caller's fetch function (or undefined: the global one, which wasm.js then
/// calls; checked here so that a client without one fails when it is created).
pub(super) fn client(state: &JsValue) -> Result<Client, ErrorReport> {
    let options = Reflect::get(state, &"options".into()).unwrap_or(JsValue::UNDEFINED);
    let (mut target, policy) = configured(options.as_string(), in_browser())?;
    // A client whose token comes from a function, as made (client.js): each call's state
    // carries the token instead (io.js `withToken`).
    target.token_from_function = Reflect::get(state, &"token".into()).is_ok_and(|t| !t.is_undefined());
    // The one check of a client's fetch (client.js hands on what the caller gave): `typeof`,
    // which no Proxy trap can run.
    let given = Reflect::get(state, &"fetch".into()).unwrap_or(JsValue::UNDEFINED);
    if given.is_undefined() || given.is_null() {
        if !Reflect::get(&js_sys::global(), &"fetch".into()).is_ok_and(|f| f.is_function()) {
            return Err(ErrorReport::invalid_input("fetch", "no global fetch in this runtime: pass fetch"));
        }
    } else if !given.is_function() {
        return Err(ErrorReport::invalid_input("fetch", "fetch must be a function like the global fetch"));
    }
    Ok(Client { target, policy })
}

/// Validates client options up front, so `createClient` fails fast on bad input.
pub(super) fn check_client_options(state: JsValue) -> JsResult<String> {
    Ok(client(&state)?.target.rest_url)
}

/// `args`: as `ClientCall` declares them (src/client.rs).
pub(super) fn plan(c: &Client, op: &str, args: &Array) -> Result<Step, ErrorReport> {
    let op = crate::boundary::named("op", "operation", op)?;
    crate::client::plan(&c.target, ClientCall::read(op, &mut super::args::ArrayArgs::new(args))?)
}

/// A PostgREST answer as `{ data, count, status }`, `data` parsed by the engine's JSON.
pub(super) fn response_js(decoded: Decoded) -> JsResult<JsValue> {
    let data = match &decoded.body {
        None => JsValue::NULL,
        Some(text) => js_sys::JSON::parse(text).map_err(|e| {
            js_error(ErrorReport::new(crate::ErrorCode::Server, "the server sent invalid JSON"), Some(e))
        })?,
    };
    let out = js_sys::Object::new();
    set(&out, "data", &data);
    set(&out, "count", &decoded.count.map_or(JsValue::NULL, |c| JsValue::from_f64(c as f64)));
    set(&out, "status", &JsValue::from(decoded.status));
    Ok(out.into())
}

/// What a key or access token stands for (decoded, not verified): `{ role, sub, exp, kind }`.
pub(super) fn inspect_token(token: JsValue) -> JsResult<JsValue> {
    let token = args::string("token", &token)?;
    let info = credentials::inspect("token", &token).map_err(ErrorReport::from)?;
    // Seconds since the epoch: a JS number holds them exactly.
    to_js(&value!({ "role": info.role, "sub": info.sub, "exp": info.exp, "kind": info.kind }))
}
