//! The tool definitions a model sees, in Anthropic (`input_schema`) and OpenAI
//! (`parameters`) shapes. The descriptions carry the guidance on when to remember
//! and how important each kind of memory is, because that is what makes a model use them.

use serde_json::Value;

use super::MemoryError;

/// The definitions in Anthropic's shape, each tool's kept as data beside it
/// (`memory::tools`): reviewable as text, and parsed at run time, which costs far fewer
/// wasm bytes than building them in code. The limits they state are checked against the
/// validator's by the tests below.
fn tools() -> Vec<Value> {
    let Ok(Value::Array(list)) = crate::json::parse(super::tools::DEFINITIONS) else {
        unreachable!("DEFINITIONS is a JSON array (checked by the tests)")
    };
    list.into_iter()
        .zip(super::tools::TOOLS)
        .map(|(definition, tool)| match definition {
            Value::Object(mut d) => {
                d.insert("name".into(), value!(tool.name));
                Value::Object(d)
            }
            _ => unreachable!("a tool's definition is a JSON object (checked by the tests)"),
        })
        .collect()
}

string_enum!(
    /// The shapes a model vendor's SDK takes tool definitions in.
    Format {
        /// Anthropic Messages API: `{ name, description, input_schema }`.
        Anthropic = "anthropic",
        /// OpenAI Chat Completions: `{ type: "function", function: { name, description, parameters } }`.
        OpenAi = "openai",
        /// OpenAI Responses API: `{ type: "function", name, description, parameters }`.
        OpenAiResponses = "openai-responses",
    }
);

/// The `strict` option of `definitions(format, options)`; options are JSON text, `None`
/// when not given.
pub fn strict_option(options: Option<&str>) -> Result<bool, crate::error::Invalid> {
    crate::input::options(options, |v| crate::input::Object::new(v, "", "options", &OPTIONS)?.flag("strict"))
}

/// The options of `definitions(format, options)`.
pub const OPTIONS: [&str; 1] = ["strict"];

/// All five definitions in `format`. With `strict`, each schema keeps to the vendor's
/// documented subset for grammar-constrained tool calls (`strict: true` on each tool):
/// - OpenAI: every property listed in `required`, the optional ones made nullable (null
///   means "not given" to `handle()`), `additionalProperties: false`;
/// - Anthropic: no numeric bounds (`minimum`/`maximum`), which it refuses; the bounds move
///   into the descriptions, and the validator still enforces them.
pub fn definitions(format: &str, strict: bool) -> Result<Value, MemoryError> {
    let format: Format = crate::input::choose_str("format", format)?;
    let list = tools()
        .into_iter()
        .map(|tool| {
            let (name, description) = (tool["name"].clone(), tool["description"].clone());
            let mut schema = tool["input_schema"].clone();
            if strict {
                match format {
                    Format::Anthropic => bounds_into_descriptions(&mut schema),
                    Format::OpenAi | Format::OpenAiResponses => all_required(&mut schema),
                }
            }
            let mut out = match format {
                Format::Anthropic => value!({ "name": name, "description": description, "input_schema": schema }),
                Format::OpenAi => value!({ "type": "function", "function": value!({
                    "name": name, "description": description, "parameters": schema }) }),
                Format::OpenAiResponses => {
                    value!({ "type": "function", "name": name, "description": description, "parameters": schema })
                }
            };
            // The Responses API's tool type has `strict` as a required field.
            if strict || format == Format::OpenAiResponses {
                let target = if format == Format::OpenAi { &mut out["function"] } else { &mut out };
                target["strict"] = value!(strict);
            }
            out
        })
        .collect();
    Ok(Value::Array(list))
}

fn properties(schema: &mut Value) -> impl Iterator<Item = (&String, &mut Value)> {
    schema.get_mut("properties").and_then(Value::as_object_mut).into_iter().flat_map(|p| p.iter_mut())
}

/// OpenAI strict mode: every property required; an optional one also accepts null.
fn all_required(schema: &mut Value) {
    let required: Vec<Value> = schema["required"].as_array().cloned().unwrap_or_default();
    let mut names = Vec::new();
    for (name, prop) in properties(schema) {
        names.push(value!(name));
        if required.contains(&value!(name)) {
            continue;
        }
        let kind = prop["type"].clone();
        prop["type"] = match kind {
            Value::Array(mut kinds) => {
                if !kinds.contains(&value!("null")) {
                    kinds.push(value!("null"));
                }
                Value::Array(kinds)
            }
            one => value!([one, "null"]),
        };
        if let Some(values) = prop.get_mut("enum").and_then(Value::as_array_mut)
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
    }
    schema["required"] = Value::Array(names);
}

/// Anthropic strict mode: numeric bounds said in words instead of keywords.
fn bounds_into_descriptions(schema: &mut Value) {
    for (_, prop) in properties(schema) {
        let Some(p) = prop.as_object_mut() else { continue };
        let (min, max) = (p.remove("minimum"), p.remove("maximum"));
        let range = match (min, max) {
            (Some(a), Some(b)) => format!("From {} to {}.", crate::json::Text(&a), crate::json::Text(&b)),
            (Some(a), None) => format!("At least {}.", crate::json::Text(&a)),
            (None, Some(b)) => format!("At most {}.", crate::json::Text(&b)),
            (None, None) => continue,
        };
        let text = match p.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d} {range}"),
            None => range,
        };
        p.insert("description".into(), value!(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::plan;
    use serde_json::json;

    #[test]
    fn both_formats_describe_the_same_five_tools() {
        let a = definitions("anthropic", false).unwrap();
        let o = definitions("openai", false).unwrap();
        let names: Vec<_> = a.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, crate::memory::tools::TOOLS.iter().map(|t| t.name).collect::<Vec<_>>());
        for (x, y) in a.as_array().unwrap().iter().zip(o.as_array().unwrap()) {
            assert_eq!(x["input_schema"], y["function"]["parameters"]);
            assert_eq!(x["name"], y["function"]["name"]);
            assert_eq!(y["type"], "function");
        }
        assert!(definitions("gemini", false).is_err());
        let r = definitions("openai-responses", false).unwrap();
        for (x, y) in o.as_array().unwrap().iter().zip(r.as_array().unwrap()) {
            assert_eq!(x["function"]["parameters"], y["parameters"]);
            assert_eq!(x["function"]["name"], y["name"]);
            assert_eq!(y["type"], "function");
        }
    }

    /// The limits the definitions state are the validator's.
    #[test]
    fn stated_limits_match_the_validator() {
        use crate::memory::names::{
            MAX_CONTENT_CHARS, MAX_CONTEXT_CHARS, MAX_CONTEXT_MEMORIES, MAX_SEARCH_LIMIT, REFERENCE_TYPES,
        };
        let a = definitions("anthropic", false).unwrap();
        let prop = |tool: usize, name: &str| a[tool]["input_schema"]["properties"][name].clone();
        assert!(prop(0, "content")["description"].as_str().unwrap().contains(&MAX_CONTENT_CHARS.to_string()));
        assert_eq!(prop(0, "reference_type")["enum"], json!(REFERENCE_TYPES));
        assert_eq!(prop(1, "limit")["maximum"], json!(MAX_SEARCH_LIMIT));
        assert_eq!(prop(4, "max_chars")["maximum"], json!(MAX_CONTEXT_CHARS));
        assert_eq!(prop(4, "max_memories")["maximum"], json!(MAX_CONTEXT_MEMORIES));
        for tool in a.as_array().unwrap() {
            for t in ["memory_type"].iter().filter_map(|k| tool["input_schema"]["properties"].get(*k)) {
                assert_eq!(t["enum"], json!(crate::memory::MemoryType::ALL));
            }
        }
    }

    /// Every property a definition advertises is accepted by the validator, and every
    /// required one is really required: the schema and the parser cannot drift apart.
    #[test]
    fn schemas_and_validation_agree() {
        let settings = crate::memory::test_settings();
        let samples = json!({
            "content": "User prefers US-based vendors", "memory_type": "preference", "importance_score": 0.9,
            "reference_type": "rfp", "reference_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", "expires_at": "2999-01-01",
            "query": "vendors", "memory_types": ["preference"], "limit": 5, "memory_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b",
            "max_chars": 100, "max_memories": 3, "min_importance": 0.1
        });
        for tool in definitions("anthropic", false).unwrap().as_array().unwrap() {
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

    fn walk<'a>(schema: &'a Value, out: &mut Vec<&'a Value>) {
        out.push(schema);
        for (_, p) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
            walk(p, out);
        }
        if let Some(items) = schema.get("items") {
            walk(items, out);
        }
    }

    /// OpenAI's strict mode (Structured Outputs for function calling): every object has
    /// `additionalProperties: false` and lists every property in `required`; optional
    /// fields are nullable instead; only the documented keywords and formats appear.
    #[test]
    fn openai_strict_schemas_keep_to_openai_rules() {
        let keywords = [
            "type",
            "description",
            "enum",
            "items",
            "properties",
            "required",
            "additionalProperties",
            "minimum",
            "maximum",
            "format",
            "minItems",
            "maxItems",
            "pattern",
            "anyOf",
            "const",
        ];
        let formats = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
        for format in ["openai", "openai-responses"] {
            let plain = definitions(format, false).unwrap();
            for (tool, loose) in
                definitions(format, true).unwrap().as_array().unwrap().iter().zip(plain.as_array().unwrap())
            {
                let f = if format == "openai" { &tool["function"] } else { tool };
                let loose = if format == "openai" { &loose["function"] } else { loose };
                assert_eq!(f["strict"], json!(true));
                let schema = &f["parameters"];
                let mut nodes = Vec::new();
                walk(schema, &mut nodes);
                for node in nodes {
                    for key in node.as_object().unwrap().keys() {
                        assert!(keywords.contains(&key.as_str()), "{}: {key}", f["name"]);
                    }
                    if let Some(fmt) = node.get("format") {
                        assert!(formats.contains(&fmt.as_str().unwrap()), "{fmt}");
                    }
                    if node["type"] == "object" {
                        assert_eq!(node["additionalProperties"], json!(false));
                        let props: Vec<_> = node["properties"].as_object().unwrap().keys().map(|k| json!(k)).collect();
                        assert_eq!(node["required"].as_array().unwrap(), &props, "{}: all required", f["name"]);
                    }
                }
                // What was optional accepts null now (handle() reads null as "not given");
                // what was required does not.
                let required = loose["parameters"]["required"].as_array().cloned().unwrap_or_default();
                for (name, prop) in schema["properties"].as_object().unwrap() {
                    let nullable = prop["type"].as_array().is_some_and(|t| t.contains(&json!("null")));
                    assert_eq!(nullable, !required.contains(&json!(name)), "{}.{name}", f["name"]);
                    if let Some(values) = prop.get("enum") {
                        assert_eq!(values.as_array().unwrap().contains(&Value::Null), nullable, "{}.{name}", f["name"]);
                    }
                }
            }
        }
    }

    /// Anthropic's strict tool use: `additionalProperties: false` on objects, no numeric or
    /// length bounds, `minItems` only 0 or 1, its formats only, at most 24 optional
    /// parameters and 16 union-typed ones across all strict tools of a request.
    #[test]
    fn anthropic_strict_schemas_keep_to_anthropic_rules() {
        let refused = [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "maxItems",
        ];
        let formats = ["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
        let (mut optional, mut unions) = (0, 0);
        let loose = definitions("anthropic", false).unwrap();
        for (tool, plain) in
            definitions("anthropic", true).unwrap().as_array().unwrap().iter().zip(loose.as_array().unwrap())
        {
            assert_eq!(tool["strict"], json!(true));
            let schema = &tool["input_schema"];
            let mut nodes = Vec::new();
            walk(schema, &mut nodes);
            for node in nodes {
                for key in refused {
                    assert!(node.get(key).is_none(), "{}: {key}", tool["name"]);
                }
                if let Some(n) = node.get("minItems") {
                    assert!(n == &json!(0) || n == &json!(1));
                }
                if let Some(fmt) = node.get("format") {
                    assert!(formats.contains(&fmt.as_str().unwrap()), "{fmt}");
                }
                if node["type"] == "object" {
                    assert_eq!(node["additionalProperties"], json!(false));
                }
                if node.get("anyOf").is_some() || node["type"].is_array() {
                    unions += 1;
                }
            }
            let required = schema["required"].as_array().map_or(0, Vec::len);
            optional += schema["properties"].as_object().unwrap().len() - required;
            // The bounds are still stated, in words.
            for (name, prop) in plain["input_schema"]["properties"].as_object().unwrap() {
                if let Some(max) = prop.get("maximum") {
                    let said = schema["properties"][name]["description"].as_str().unwrap();
                    assert!(said.contains(&max.to_string()), "{}.{name}: {said}", tool["name"]);
                }
            }
        }
        assert!(optional <= 24, "{optional} optional parameters");
        assert!(unions <= 16, "{unions} union-typed parameters");
    }

    /// A model in OpenAI's strict mode sends every field, null for what it leaves out:
    /// the validator reads null as "not given", so such a call means the same as without.
    #[test]
    fn strict_calls_with_nulls_mean_what_they_say() {
        let settings = crate::memory::test_settings();
        let id = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
        let calls = [
            ("create_memory", json!({"content": "x", "memory_type": "fact"})),
            ("search_memories", json!({"query": "x"})),
            ("update_memory", json!({"memory_id": id, "content": "y"})),
            ("delete_memory", json!({"memory_id": id})),
            ("get_memory_context", json!({})),
        ];
        let strict = definitions("openai", true).unwrap();
        for ((name, given), tool) in calls.iter().zip(strict.as_array().unwrap()) {
            let mut full = given.as_object().unwrap().clone();
            for key in tool["function"]["parameters"]["properties"].as_object().unwrap().keys() {
                full.entry(key.clone()).or_insert(Value::Null);
            }
            let args = |input: &Value| {
                let p = plan(name, input, &settings).unwrap();
                let vector = p.embed.as_ref().map(|_| &[1.0, 0.0, 0.0][..]);
                p.request(&settings, vector).unwrap().args
            };
            assert_eq!(args(given), args(&Value::Object(full)), "{name}");
        }
    }
}
