//! The tool definitions a model sees, in Anthropic (`input_schema`) and OpenAI
//! (`parameters`) shapes. The descriptions carry spec 003's guidance on when to remember
//! and how important each kind of memory is, because that is what makes a model use them.

use serde_json::{Value, json};

use super::MemoryError;

/// The definitions in Anthropic's shape, kept as data: reviewable as text, and parsed
/// at run time, which costs far fewer wasm bytes than building them in code. The limits
/// they state are checked against the validator's by the tests below.
const TOOLS: &str = include_str!("tools.json");

fn tools() -> Vec<Value> {
    match serde_json::from_str(TOOLS) {
        Ok(Value::Array(list)) => list,
        _ => unreachable!("tools.json is a JSON array (checked by the tests)"),
    }
}

/// All five definitions in `format`: `"anthropic"` or `"openai"`.
pub fn definitions(format: &str) -> Result<Value, MemoryError> {
    let list: Vec<Value> = match format {
        "anthropic" => tools(),
        "openai" => tools()
            .into_iter()
            .map(|t| {
                json!({ "type": "function", "function": { "name": t["name"], "description": t["description"], "parameters": t["input_schema"] } })
            })
            .collect(),
        other => {
            return Err(MemoryError::invalid("format", format!("format must be \"anthropic\" or \"openai\" (got {other:?})")));
        }
    };
    Ok(Value::Array(list))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Settings, ToolName, plan};

    #[test]
    fn both_formats_describe_the_same_five_tools() {
        let a = definitions("anthropic").unwrap();
        let o = definitions("openai").unwrap();
        let names: Vec<_> = a.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ToolName::ALL.map(ToolName::as_str));
        for (x, y) in a.as_array().unwrap().iter().zip(o.as_array().unwrap()) {
            assert_eq!(x["input_schema"], y["function"]["parameters"]);
            assert_eq!(x["name"], y["function"]["name"]);
            assert_eq!(y["type"], "function");
        }
        assert!(definitions("gemini").is_err());
    }

    /// The limits the definitions state are the validator's.
    #[test]
    fn stated_limits_match_the_validator() {
        use crate::memory::input::{
            MAX_CONTENT_CHARS, MAX_CONTEXT_CHARS, MAX_CONTEXT_MEMORIES, MAX_SEARCH_LIMIT, REFERENCE_TYPES,
        };
        let a = definitions("anthropic").unwrap();
        let prop = |tool: usize, name: &str| a[tool]["input_schema"]["properties"][name].clone();
        assert!(prop(0, "content")["description"].as_str().unwrap().contains(&MAX_CONTENT_CHARS.to_string()));
        assert_eq!(prop(0, "reference_type")["enum"], json!(REFERENCE_TYPES));
        assert_eq!(prop(1, "limit")["maximum"], json!(MAX_SEARCH_LIMIT));
        assert_eq!(prop(4, "max_chars")["maximum"], json!(MAX_CONTEXT_CHARS));
        assert_eq!(prop(4, "max_memories")["maximum"], json!(MAX_CONTEXT_MEMORIES));
        for tool in a.as_array().unwrap() {
            for t in ["memory_type"].iter().filter_map(|k| tool["input_schema"]["properties"].get(*k)) {
                assert_eq!(t["enum"], json!(crate::memory::MemoryType::ALL.map(crate::memory::MemoryType::as_str)));
            }
        }
    }

    /// Every property a definition advertises is accepted by the validator, and every
    /// required one is really required: the schema and the parser cannot drift apart.
    #[test]
    fn schemas_and_validation_agree() {
        let settings =
            Settings { agent_id: "a".into(), session_id: None, dimensions: 3, match_threshold: 0.5, now_ms: 0.0 };
        let samples = json!({
            "content": "User prefers US-based vendors", "memory_type": "preference", "importance_score": 0.9,
            "reference_type": "rfp", "reference_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", "expires_at": "2999-01-01",
            "query": "vendors", "memory_types": ["preference"], "limit": 5, "memory_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b",
            "max_chars": 100, "max_memories": 3, "min_importance": 0.1
        });
        for tool in definitions("anthropic").unwrap().as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            let props: Vec<&String> = tool["input_schema"]["properties"].as_object().unwrap().keys().collect();
            let full: serde_json::Map<String, Value> =
                props.iter().map(|k| ((*k).clone(), samples[k.as_str()].clone())).collect();
            plan(name, &Value::Object(full.clone()), &settings).unwrap_or_else(|e| panic!("{name}: {e}"));
            for required in tool["input_schema"]["required"].as_array().into_iter().flatten() {
                let mut missing = full.clone();
                missing.remove(required.as_str().unwrap());
                assert!(plan(name, &Value::Object(missing), &settings).is_err(), "{name} without {required}");
            }
        }
    }
}
