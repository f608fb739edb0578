//! `createClient` options: where requests go, with which credentials, and how they are
//! retried. Checked once when the client is made, and again on every call (the facade
//! keeps the options as JSON text; no Rust object outlives a call).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::client::RetryPolicy;
use super::credentials;
use super::request::Target;
use crate::error::ErrorReport;
use crate::input;

/// `createClient` options, as the user writes them (`fetch` is the facade's).
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
    headers: BTreeMap<String, String>,
    acting_for: Option<String>,
    #[serde(default)]
    dangerously_allow_secret_key_in_browser: bool,
}

/// The target and retry policy of `options` (JSON text). `in_browser` refuses keys that
/// bypass row-level security unless the options opt in.
pub fn configure(options: Option<&str>, in_browser: bool) -> Result<(Target, RetryPolicy), ErrorReport> {
    if !options.is_some_and(|t| t.trim_start().starts_with('{')) {
        return Err(ErrorReport::invalid_input("options", "createClient needs an options object { url, apiKey, ... }"));
    }
    let o: ClientOptions = input::parse("options", options)?;
    let mut target = Target::new(&o.url, &o.api_key, o.access_token.as_deref())?;
    credentials::check_browser_use(
        &o.api_key,
        o.access_token.as_deref(),
        in_browser,
        o.dangerously_allow_secret_key_in_browser,
    )?;
    target.set_schema_and_headers(o.schema, o.headers.into_iter().collect())?;
    if let Some(user) = &o.acting_for {
        target.act_for(user)?;
    }
    let defaults = RetryPolicy::default();
    let retries = input::integer_option("retries", o.retries, defaults.retries, 0, RetryPolicy::MAX_RETRIES)?;
    let timeout_ms =
        input::integer_option("timeoutMs", o.timeout_ms, defaults.timeout_ms, 1, RetryPolicy::MAX_TIMEOUT_MS)?;
    Ok((target, RetryPolicy { retries, timeout_ms, ..defaults }))
}
