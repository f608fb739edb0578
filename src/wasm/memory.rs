//! Exports for `crate::memory`: tool definitions, option checks, and one tool call
//! (validate → embedding callback → one RPC → tool result) behind `MemoryTools`.

use js_sys::{Array, Float64Array, Function, Promise, Reflect};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::transport::{Client, client};
use super::{JsResult, args, from_js, js_error, to_js};
use crate::error::{ErrorCode, ErrorReport};
use crate::memory::{self, MemoryError, Settings, embedding};
use crate::transport::request::{self, RpcOptions};

/// `MemoryTools` options other than `client` and `embed` (which the facade passes apart).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MemoryOptions {
    agent_id: String,
    session_id: Option<String>,
    user_id: Option<String>,
    dimensions: Option<u32>,
    match_threshold: Option<f64>,
}

const DEFAULT_DIMENSIONS: u32 = 384;

/// Checks the options against the client; returns the settings of one call and the id
/// of the user the tools act for.
fn settings(c: &Client, options: &JsValue) -> Result<(Settings, String), ErrorReport> {
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
    let dimensions = o.dimensions.unwrap_or(DEFAULT_DIMENSIONS);
    if !(1..=16_000).contains(&dimensions) {
        return Err(ErrorReport::invalid_input(
            "dimensions",
            "dimensions must be between 1 and 16000 (pgvector's limit)",
        ));
    }
    let match_threshold = o.match_threshold.unwrap_or(0.5);
    if !(match_threshold.is_finite() && (-1.0..=1.0).contains(&match_threshold)) {
        return Err(ErrorReport::invalid_input(
            "matchThreshold",
            "matchThreshold must be a cosine similarity from -1 to 1",
        ));
    }
    // The key space the memories live in: the signed-in user's, or for a service-role
    // client the user it acts for (actingFor), else the service tenant's own.
    let Some(tenant) = c.target.tenant() else {
        return Err(ErrorReport::invalid_input(
            "client",
            "MemoryTools needs an identity: a signed-in user's accessToken, or the service role (with actingFor to act for a user)",
        ));
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
    Ok((settings, tenant))
}

/// The five tool definitions in `"anthropic"`, `"openai"` or `"openai-responses"` format;
/// `options.strict` makes them fit the vendor's strict mode.
#[wasm_bindgen(js_name = memoryDefinitions)]
pub fn memory_definitions(format: JsValue, options: JsValue) -> JsResult<JsValue> {
    let format = args::optional_string("format", &format)?.unwrap_or_else(|| "anthropic".into());
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
    let (s, _) = settings(&c, &options)?;
    let embed: Function = embed.dyn_into().map_err(|_| {
        ErrorReport::invalid_input("embed", "embed must be a function (texts: string[]) => Promise<number[][]>")
    })?;
    let name = args::string("name", &name)?;
    let input: Value = if input.is_undefined() { Value::Object(Default::default()) } else { from_js("input", &input)? };
    let known = args::optional_string("knownContent", &known_content)?;
    let mut plan = memory::plan_knowing(&name, &input, &s, known.as_deref()).map_err(ErrorReport::from)?;
    let mut stale_retry_left = known.is_some();
    loop {
        let vector = match &plan.embed {
            Some(text) => Some(embed_one(&embed, text, s.dimensions).await?),
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

/// Calls the embedding callback for one text and checks what it returned.
async fn embed_one(embed: &Function, text: &str, dimensions: usize) -> JsResult<Vec<f32>> {
    let failed = |what: &str, cause: JsValue| {
        let message =
            Reflect::get(&cause, &"message".into()).ok().and_then(|m| m.as_string()).or_else(|| cause.as_string());
        js_error(
            ErrorReport::new(
                ErrorCode::EmbeddingFailed,
                format!("{what}: {}", message.unwrap_or_else(|| "no message".into())),
            ),
            Some(cause),
        )
    };
    let texts = Array::of1(&JsValue::from_str(text));
    let returned = embed.call1(&JsValue::NULL, &texts).map_err(|e| failed("the embedding callback threw", e))?;
    let resolved =
        JsFuture::from(Promise::resolve(&returned)).await.map_err(|e| failed("the embedding callback rejected", e))?;
    let vectors =
        vectors_of(&resolved).map_err(|m| JsValue::from(ErrorReport::from(MemoryError::EmbeddingFailed(m))))?;
    let mut checked = embedding::check(vectors, 1, dimensions).map_err(ErrorReport::from)?;
    Ok(checked.remove(0))
}

/// `number[][]` or an array of typed arrays, as f64 components (`None` for non-numbers).
fn vectors_of(v: &JsValue) -> Result<Vec<Vec<Option<f64>>>, String> {
    let outer: &Array =
        v.dyn_ref().ok_or("the embedding callback must resolve to an array with one vector per text")?;
    outer
        .iter()
        .enumerate()
        .map(|(i, item)| {
            if let Some(a) = item.dyn_ref::<Array>() {
                Ok(a.iter().map(|x| x.as_f64()).collect())
            } else if js_sys::ArrayBuffer::is_view(&item) && !item.is_instance_of::<js_sys::DataView>() {
                Ok(Float64Array::new(&item).to_vec().into_iter().map(Some).collect())
            } else {
                Err(format!("embedding {i} is neither an array of numbers nor a Float32Array/Float64Array"))
            }
        })
        .collect()
}
