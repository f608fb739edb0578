//! Exports for `crate::memory`: tool definitions, option checks, and one tool call
//! (validate → embedding callback → one RPC → tool result) behind `MemoryTools`.

use js_sys::{Array, Float64Array, Function, Promise, Reflect};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::transport::{Client, client};
use super::{JsResult, args, from_js, js_error, json_arg, to_js};
use crate::error::{ErrorCode, ErrorReport};
use crate::memory::{self, Settings, embedding};
use crate::transport::request::{self, RpcOptions};

/// `MemoryTools` options other than `client` and `embed` (which the facade passes apart).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MemoryOptions {
    agent_id: String,
    session_id: Option<String>,
    user_id: Option<String>,
    dimensions: Option<f64>,
    match_threshold: Option<f64>,
    embed_timeout_ms: Option<f64>,
}

const DEFAULT_DIMENSIONS: u32 = 384;
/// Long enough for a hosted embedding API on a bad day; a callback that hangs (a stuck
/// connection, a model that never loads) then fails the call instead of holding it forever.
const DEFAULT_EMBED_TIMEOUT_MS: u32 = 30_000;
const MAX_EMBED_TIMEOUT_MS: u32 = 600_000;

#[wasm_bindgen(raw_module = "./io.js")]
extern "C" {
    /// Calls the embedding callback; resolves (never rejects) to `{ vectors }` (one
    /// Float64Array per text) or `{ code, message, cause }`.
    #[wasm_bindgen(js_name = embedOnce)]
    fn embed_once(embed: &Function, texts: &Array, timeout_ms: u32, dimensions: u32) -> Promise;
}

/// Settings of one call, and the embedding callback's time limit.
struct CallSettings {
    settings: Settings,
    embed_timeout_ms: u32,
}

/// Checks the options against the client; returns the settings of one call and the id
/// of the user the tools act for.
fn settings(c: &Client, options: &JsValue) -> Result<(CallSettings, String), ErrorReport> {
    let o: MemoryOptions = from_js("options", options)?;
    let agent_id = o.agent_id.trim().to_owned();
    if agent_id.is_empty() || agent_id.chars().count() > 255 {
        return Err(ErrorReport::invalid_input(
            "agentId",
            "agentId must be a non-empty string of at most 255 characters",
        ));
    }
    if o.session_id.as_ref().is_some_and(|s| s.is_empty() || s.chars().count() > 255) {
        return Err(ErrorReport::invalid_input("sessionId", "sessionId must be 1 to 255 characters"));
    }
    // 16000: pgvector's limit.
    let dimensions = args::integer_option("dimensions", o.dimensions, DEFAULT_DIMENSIONS, 1, 16_000)?;
    let embed_timeout_ms =
        args::integer_option("embedTimeoutMs", o.embed_timeout_ms, DEFAULT_EMBED_TIMEOUT_MS, 1, MAX_EMBED_TIMEOUT_MS)?;
    let match_threshold = o.match_threshold.unwrap_or(0.5);
    if !(match_threshold.is_finite() && (-1.0..=1.0).contains(&match_threshold)) {
        return Err(ErrorReport::invalid_input(
            "matchThreshold",
            "matchThreshold must be a cosine similarity from -1 to 1",
        ));
    }
    // The key space the memories live in: the signed-in user's, or for a service-role
    // client the user it acts for (actingFor), else the service tenant's own.
    // No identity is what the server would refuse with 401 (anon has no key space).
    let Some(tenant) = c.target.tenant() else {
        return Err(ErrorReport {
            field: Some("client".into()),
            ..ErrorReport::new(
                ErrorCode::Unauthorized,
                "MemoryTools needs an identity: a signed-in user's accessToken, or the service role (with actingFor to act for a user)",
            )
        });
    };
    if let Some(user_id) = &o.user_id
        && !user_id.trim().eq_ignore_ascii_case(&tenant)
    {
        return Err(ErrorReport::invalid_input(
            "userId",
            "userId is not the user the client acts for (its accessToken's user, or actingFor)",
        ));
    }
    let settings = Settings {
        agent_id,
        session_id: o.session_id,
        dimensions: dimensions as usize,
        match_threshold,
        now_ms: js_sys::Date::now(),
    };
    Ok((CallSettings { settings, embed_timeout_ms }, tenant))
}

/// The five tool definitions in `"anthropic"`, `"openai"` or `"openai-responses"` format;
/// `options.strict` makes them fit the vendor's strict mode.
#[wasm_bindgen(js_name = memoryDefinitions)]
pub fn memory_definitions(format: JsValue, options: JsValue) -> JsResult<JsValue> {
    let format = args::optional_string("format", &format)?.unwrap_or_else(|| "anthropic".into());
    // JSON text (wasm.js), or undefined for no options.
    let strict = if options.is_undefined() || options.is_null() {
        false
    } else {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct DefinitionOptions {
            #[serde(default)]
            strict: bool,
        }
        from_js::<DefinitionOptions>("options", &options)?.strict
    };
    to_js(&memory::definitions::definitions(&format, strict).map_err(ErrorReport::from)?)
}

/// Validates `MemoryTools` options up front; returns the user id the tools act for.
#[wasm_bindgen(js_name = checkMemoryOptions)]
pub fn check_memory_options(client_options: JsValue, options: JsValue) -> JsResult<String> {
    let c = client(&client_options)?;
    Ok(settings(&c, &options)?.1)
}

/// Runs one tool call; resolves to the tool's result object (`{ success: true, ... }`).
#[wasm_bindgen(js_name = memoryCall)]
pub async fn memory_call(
    client_options: JsValue,
    options: JsValue,
    embed: JsValue,
    name: JsValue,
    input: JsValue,
    known_content: JsValue,
) -> JsResult<JsValue> {
    let c = client(&client_options)?;
    let (CallSettings { settings: s, embed_timeout_ms }, _) = settings(&c, &options)?;
    let embed: Function = embed.dyn_into().map_err(|_| {
        ErrorReport::invalid_input("embed", "embed must be a function (texts: string[]) => Promise<number[][]>")
    })?;
    let name = args::string("name", &name)?;
    let input = match json_arg("input", &input)? {
        Value::Null => Value::Object(Default::default()),
        input => input,
    };
    let known = args::optional_string("knownContent", &known_content)?;
    let mut plan = memory::plan_knowing(&name, &input, &s, known.as_deref()).map_err(ErrorReport::from)?;
    let mut stale_retry_left = known.is_some();
    loop {
        let vector = match &plan.embed {
            Some(text) => Some(embed_one(&embed, text, s.dimensions, embed_timeout_ms).await?),
            None => None,
        };
        let rpc = plan.request(&s, vector.as_deref()).map_err(ErrorReport::from)?;
        let options =
            RpcOptions { idempotent: rpc.idempotent, columns: rpc.columns.map(str::to_owned), ..Default::default() };
        let req = request::rpc(&c.target, rpc.function, &rpc.args, &options).map_err(ErrorReport::from)?;
        match c.send_raw(&req).await {
            Ok(decoded) => return to_js(&plan.result(decoded.json()?).map_err(ErrorReport::from)?),
            // What this instance knew about the memory's content was stale: nothing was
            // written; embed the new content and send once more.
            Err(f) if stale_retry_left && f.report.pgrst_code.as_deref() == Some(memory::STALE_CONTENT) => {
                stale_retry_left = false;
                plan = memory::plan_knowing(&name, &input, &s, None).map_err(ErrorReport::from)?;
            }
            Err(f) => return Err(js_error(memory::refine(f.report), f.cause)),
        }
    }
}

/// Calls the embedding callback for one text (through io.js, with its time limit) and
/// checks what it returned.
async fn embed_one(embed: &Function, text: &str, dimensions: usize, timeout_ms: u32) -> JsResult<Vec<f32>> {
    let texts = Array::of1(&JsValue::from_str(text));
    let outcome =
        JsFuture::from(embed_once(embed, &texts, timeout_ms, dimensions as u32)).await.unwrap_or(JsValue::UNDEFINED);
    let get = |key: &str| Reflect::get(&outcome, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let Some(vectors) = get("vectors").dyn_ref::<Array>().map(|a| {
        a.iter().map(|v| v.unchecked_into::<Float64Array>().to_vec().into_iter().map(Some).collect()).collect()
    }) else {
        let code = match get("code").as_string().as_deref() {
            Some("dimension_mismatch") => ErrorCode::DimensionMismatch,
            _ => ErrorCode::EmbeddingFailed,
        };
        let message = get("message").as_string().unwrap_or_else(|| "the embedding callback failed".into());
        let cause = get("cause");
        return Err(js_error(ErrorReport::new(code, message), (!cause.is_undefined()).then_some(cause)));
    };
    let mut checked = embedding::check(vectors, 1, dimensions).map_err(ErrorReport::from)?;
    Ok(checked.remove(0))
}
