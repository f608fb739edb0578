//! `createClient` options: where requests go, with which credentials, and how they are
//! retried. Checked once when the client is made, and again on every call (the facade
//! keeps the options as JSON text) unless the boundary configured the same text last
//! (`src/wasm/client.rs`): the result depends on the text and `in_browser` alone.

use super::client::RetryPolicy;
use super::credentials;
use super::target::Target;
use crate::error::ErrorReport;
use crate::input::{self, Object};

/// `createClient` options as the user writes them, in the order a message lists them.
/// (`fetch` is the facade's, which takes it out before the options reach the module.)
pub const OPTIONS: [&str; 10] = [
    "url",
    "apiKey",
    "accessToken",
    "fetch",
    "timeoutMs",
    "retries",
    "schema",
    "headers",
    "actingFor",
    "dangerouslyAllowSecretKeyInBrowser",
];

/// The target and retry policy of `options` (JSON text). `in_browser` refuses keys that
/// bypass row-level security unless the options opt in.
pub fn configure(options: Option<&str>, in_browser: bool) -> Result<(Target, RetryPolicy), ErrorReport> {
    if !options.is_some_and(|t| t.trim_start().starts_with('{')) {
        return Err(ErrorReport::invalid_input("options", "createClient needs an options object { url, apiKey, ... }"));
    }
    let value = input::value("options", options)?;
    let o = Object::new(&value, "", "options", &OPTIONS)?;
    let (url, api_key, access_token) =
        (o.required_string("url")?, o.required_string("apiKey")?, o.string("accessToken")?);
    let (timeout_ms, retries, schema) = (o.get("timeoutMs"), o.get("retries"), o.string("schema")?);
    let (headers, acting_for) = (o.string_map("headers")?, o.string("actingFor")?);
    let allow_secret_key = o.flag("dangerouslyAllowSecretKeyInBrowser")?;
    let mut target = Target::new(&url, &api_key, access_token.as_deref())?;
    credentials::check_browser_use(&api_key, access_token.as_deref(), in_browser, allow_secret_key)?;
    target.set_schema_and_headers(schema, headers)?;
    if let Some(user) = &acting_for {
        target.act_for(user)?;
    }
    let defaults = RetryPolicy::default();
    let retries = input::integer_option("retries", retries, defaults.retries, 0, RetryPolicy::MAX_RETRIES)?;
    let timeout_ms =
        input::integer_option("timeoutMs", timeout_ms, defaults.timeout_ms, 1, RetryPolicy::MAX_TIMEOUT_MS)?;
    Ok((target, RetryPolicy { retries, timeout_ms, ..defaults }))
}
