//! What each tool accepts, checked strictly (a model that sends `importance` instead of
//! `importance_score` is told so, instead of having it silently dropped), and the RPC
//! each call becomes.

use serde_json::{Map, Value, json};

use super::{MemoryError, Rpc, Settings};
use crate::time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    CreateMemory,
    SearchMemories,
    UpdateMemory,
    DeleteMemory,
    GetMemoryContext,
}

impl ToolName {
    pub const ALL: [ToolName; 5] = [
        ToolName::CreateMemory,
        ToolName::SearchMemories,
        ToolName::UpdateMemory,
        ToolName::DeleteMemory,
        ToolName::GetMemoryContext,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            ToolName::CreateMemory => "create_memory",
            ToolName::SearchMemories => "search_memories",
            ToolName::UpdateMemory => "update_memory",
            ToolName::DeleteMemory => "delete_memory",
            ToolName::GetMemoryContext => "get_memory_context",
        }
    }

    pub fn parse(name: &str) -> Result<ToolName, MemoryError> {
        Self::ALL.into_iter().find(|t| t.as_str() == name).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|t| t.as_str()).collect();
            MemoryError::invalid("name", format!("unknown memory tool {name:?}; the tools are {}", names.join(", ")))
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryType {
    Conversation,
    Preference,
    Fact,
    Decision,
    Context,
}

impl MemoryType {
    pub const ALL: [MemoryType; 5] =
        [MemoryType::Conversation, MemoryType::Preference, MemoryType::Fact, MemoryType::Decision, MemoryType::Context];

    pub const fn as_str(self) -> &'static str {
        match self {
            MemoryType::Conversation => "conversation",
            MemoryType::Preference => "preference",
            MemoryType::Fact => "fact",
            MemoryType::Decision => "decision",
            MemoryType::Context => "context",
        }
    }

    /// Spec 003's guidance: explicit preferences matter most, passing conversation least.
    pub const fn default_importance(self) -> f64 {
        match self {
            MemoryType::Preference => 0.9,
            MemoryType::Decision => 0.7,
            MemoryType::Fact => 0.6,
            MemoryType::Context => 0.5,
            MemoryType::Conversation => 0.3,
        }
    }

    fn parse(field: &str, v: &Value) -> Result<MemoryType, MemoryError> {
        let s = v.as_str().unwrap_or("");
        Self::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| {
            MemoryError::invalid(
                field,
                format!("{field} must be one of conversation, preference, fact, decision, context (got {v})"),
            )
        })
    }
}

pub const REFERENCE_TYPES: [&str; 5] = ["rfp", "bid", "artifact", "message", "user_profile"];
pub const MAX_CONTENT_CHARS: usize = 10_000;
pub const MAX_QUERY_CHARS: usize = 2_000;
pub const MAX_SEARCH_LIMIT: u64 = 50;
pub const MAX_CONTEXT_CHARS: u64 = 100_000;
pub const MAX_CONTEXT_MEMORIES: u64 = 100;

/// A validated tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    Create {
        content: String,
        memory_type: MemoryType,
        importance: f64,
        reference: Option<(String, String)>,
        expires_at: Option<String>,
        metadata: Value,
    },
    Search {
        query: String,
        types: Option<Vec<MemoryType>>,
        limit: u64,
    },
    Update {
        id: String,
        content: Option<String>,
        /// The content this instance last saw for the memory; equal content needs no new
        /// embedding.
        known_content: Option<String>,
        memory_type: Option<MemoryType>,
        importance: Option<f64>,
        /// `Some(None)`: clear the expiry.
        expires_at: Option<Option<String>>,
        metadata: Option<Value>,
    },
    Delete {
        id: String,
    },
    Context {
        query: Option<String>,
        max_chars: u64,
        max_memories: u64,
        min_importance: f64,
    },
}

/// The fields of one tool's input object, checked for unknown keys.
struct Fields<'a> {
    tool: ToolName,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn new(tool: ToolName, input: &'a Value, allowed: &[&str]) -> Result<Fields<'a>, MemoryError> {
        let Value::Object(map) = input else {
            return Err(MemoryError::invalid("input", format!("{} needs an object input", tool.as_str())));
        };
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(MemoryError::invalid(
                k.clone(),
                format!("{} does not take {k:?}; it takes {}", tool.as_str(), allowed.join(", ")),
            ));
        }
        Ok(Fields { tool, map })
    }

    /// Present and not null.
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }

    fn required(&self, k: &str) -> Result<&'a Value, MemoryError> {
        self.get(k).ok_or_else(|| MemoryError::invalid(k, format!("{} needs {k}", self.tool.as_str())))
    }

    fn text(&self, k: &str, max: usize) -> Result<Option<String>, MemoryError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let s = v.as_str().ok_or_else(|| MemoryError::invalid(k, format!("{k} must be a string")))?;
        let t = s.trim();
        if t.is_empty() {
            return Err(MemoryError::invalid(k, format!("{k} must not be empty")));
        }
        let n = t.chars().count();
        if n > max {
            return Err(MemoryError::invalid(k, format!("{k} is {n} characters; the limit is {max}")));
        }
        Ok(Some(t.to_owned()))
    }

    fn number(&self, k: &str, lo: i32, hi: i32) -> Result<Option<f64>, MemoryError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        match v.as_f64() {
            Some(x) if x.is_finite() && (f64::from(lo)..=f64::from(hi)).contains(&x) => Ok(Some(x)),
            _ => Err(MemoryError::invalid(k, format!("{k} must be a number from {lo} to {hi} (got {v})"))),
        }
    }

    fn integer(&self, k: &str, lo: u64, hi: u64) -> Result<Option<u64>, MemoryError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let n = v.as_f64().filter(|x| x.fract() == 0.0 && *x >= lo as f64 && *x <= hi as f64);
        n.map(|x| Some(x as u64))
            .ok_or_else(|| MemoryError::invalid(k, format!("{k} must be a whole number from {lo} to {hi} (got {v})")))
    }

    fn uuid(&self, k: &str) -> Result<Option<String>, MemoryError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let parsed = v.as_str().and_then(|s| uuid::Uuid::try_parse(s.trim()).ok());
        parsed.map(|u| Some(u.hyphenated().to_string())).ok_or_else(|| {
            MemoryError::invalid(k, format!("{k} must be a UUID like 3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b (got {v})"))
        })
    }

    fn types(&self, k: &str) -> Result<Option<Vec<MemoryType>>, MemoryError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let items =
            v.as_array().ok_or_else(|| MemoryError::invalid(k, format!("{k} must be an array of memory types")))?;
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let t = MemoryType::parse(&format!("{k}[{i}]"), item)?;
            if !out.contains(&t) {
                out.push(t);
            }
        }
        Ok(if out.is_empty() { None } else { Some(out) })
    }

    /// A future instant; dates alone mean midnight UTC.
    fn expiry(&self, k: &str, now_ms: f64) -> Result<Option<String>, MemoryError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let s = v.as_str().unwrap_or("");
        let ms = time::parse_iso8601_ms(s).ok_or_else(|| {
            MemoryError::invalid(
                k,
                format!(
                    "{k} must be an ISO 8601 date or date-time such as 2027-01-31 or 2027-01-31T12:00:00Z (got {v})"
                ),
            )
        })?;
        if ms <= now_ms {
            return Err(MemoryError::invalid(
                k,
                format!("{k} {s} is in the past; omit it for a memory that never expires"),
            ));
        }
        Ok(Some(time::format_ms(ms)))
    }

    fn metadata(&self, k: &str) -> Result<Option<Value>, MemoryError> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::Object(_)) if v.to_string().len() <= 16_384 => Ok(Some(v.clone())),
            Some(Value::Object(_)) => Err(MemoryError::invalid(k, format!("{k} is larger than 16 KB"))),
            Some(_) => Err(MemoryError::invalid(k, format!("{k} must be an object"))),
        }
    }
}

pub fn parse(tool: ToolName, input: &Value, s: &Settings) -> Result<Call, MemoryError> {
    Ok(match tool {
        ToolName::CreateMemory => {
            let f = Fields::new(
                tool,
                input,
                &[
                    "content",
                    "memory_type",
                    "importance_score",
                    "reference_type",
                    "reference_id",
                    "expires_at",
                    "metadata",
                ],
            )?;
            let content = f
                .text("content", MAX_CONTENT_CHARS)?
                .ok_or_else(|| MemoryError::invalid("content", "create_memory needs content"))?;
            let memory_type = MemoryType::parse("memory_type", f.required("memory_type")?)?;
            let importance = f.number("importance_score", 0, 1)?.unwrap_or(memory_type.default_importance());
            let reference = match (f.get("reference_type"), f.uuid("reference_id")?) {
                (None, None) => None,
                (Some(t), Some(id)) => {
                    let t = t.as_str().filter(|t| REFERENCE_TYPES.contains(t)).ok_or_else(|| {
                        MemoryError::invalid(
                            "reference_type",
                            format!("reference_type must be one of {}", REFERENCE_TYPES.join(", ")),
                        )
                    })?;
                    Some((t.to_owned(), id))
                }
                (Some(_), None) => {
                    return Err(MemoryError::invalid("reference_id", "reference_type needs a reference_id"));
                }
                (None, Some(_)) => {
                    return Err(MemoryError::invalid("reference_type", "reference_id needs a reference_type"));
                }
            };
            Call::Create {
                content,
                memory_type,
                importance,
                reference,
                expires_at: f.expiry("expires_at", s.now_ms)?,
                metadata: f.metadata("metadata")?.unwrap_or_else(|| json!({})),
            }
        }
        ToolName::SearchMemories => {
            let f = Fields::new(tool, input, &["query", "memory_types", "limit"])?;
            Call::Search {
                query: f
                    .text("query", MAX_QUERY_CHARS)?
                    .ok_or_else(|| MemoryError::invalid("query", "search_memories needs a query"))?,
                types: f.types("memory_types")?,
                limit: f.integer("limit", 1, MAX_SEARCH_LIMIT)?.unwrap_or(10),
            }
        }
        ToolName::UpdateMemory => {
            let f = Fields::new(
                tool,
                input,
                &["memory_id", "content", "memory_type", "importance_score", "expires_at", "metadata"],
            )?;
            let id = f
                .uuid("memory_id")?
                .ok_or_else(|| MemoryError::invalid("memory_id", "update_memory needs memory_id"))?;
            // "never" removes the expiry. null means "not given", as for every field: a model
            // in a strict mode sends every field, null for those it leaves alone.
            let expires_at = match input.get("expires_at") {
                Some(Value::String(t)) if t.trim() == "never" => Some(None),
                Some(Value::Null) | None => None,
                Some(_) => Some(f.expiry("expires_at", s.now_ms)?),
            };
            let call = Call::Update {
                id,
                content: f.text("content", MAX_CONTENT_CHARS)?,
                known_content: None,
                memory_type: f.get("memory_type").map(|v| MemoryType::parse("memory_type", v)).transpose()?,
                importance: f.number("importance_score", 0, 1)?,
                expires_at,
                metadata: f.metadata("metadata")?,
            };
            if let Call::Update {
                content: None,
                memory_type: None,
                importance: None,
                expires_at: None,
                metadata: None,
                ..
            } = call
            {
                return Err(MemoryError::invalid(
                    "input",
                    "update_memory needs at least one of content, memory_type, importance_score, expires_at, metadata",
                ));
            }
            call
        }
        ToolName::DeleteMemory => {
            let f = Fields::new(tool, input, &["memory_id"])?;
            Call::Delete {
                id: f
                    .uuid("memory_id")?
                    .ok_or_else(|| MemoryError::invalid("memory_id", "delete_memory needs memory_id"))?,
            }
        }
        ToolName::GetMemoryContext => {
            let f = Fields::new(tool, input, &["query", "max_chars", "max_memories", "min_importance"])?;
            Call::Context {
                query: f.text("query", MAX_QUERY_CHARS)?,
                max_chars: f.integer("max_chars", 1, MAX_CONTEXT_CHARS)?.unwrap_or(4_000),
                max_memories: f.integer("max_memories", 1, MAX_CONTEXT_MEMORIES)?.unwrap_or(20),
                min_importance: f.number("min_importance", 0, 1)?.unwrap_or(0.0),
            }
        }
    })
}

/// What create_agent_memory sends back (its row without embedding and tsvector).
const CREATED_COLUMNS: &str = "id,content,memory_type,importance_score,expires_at,created_at,updated_at";

/// Columns a tool result shows the model (never the embedding or bookkeeping).
const SHOWN: [&str; 8] =
    ["id", "content", "memory_type", "importance_score", "expires_at", "created_at", "updated_at", "similarity"];

fn shown(row: &Value) -> Value {
    let mut out = Map::new();
    for k in SHOWN {
        if let Some(v) = row.get(k).filter(|v| !v.is_null()) {
            out.insert(k.to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

fn rows(data: Value) -> Vec<Value> {
    match data {
        Value::Array(a) => a,
        Value::Null => Vec::new(),
        other => vec![other],
    }
}

impl Call {
    pub fn embed_text(&self) -> Option<&str> {
        match self {
            Call::Create { content, .. } => Some(content),
            Call::Search { query, .. } => Some(query),
            Call::Update { content: Some(c), known_content, .. } if known_content.as_deref() != Some(c.as_str()) => {
                Some(c)
            }
            Call::Context { query, .. } => query.as_deref(),
            _ => None,
        }
    }

    pub fn rpc(&self, s: &Settings, vector: Option<Value>) -> Rpc {
        let v = vector.unwrap_or(Value::Null);
        match self {
            Call::Create { content, memory_type, importance, reference, expires_at, metadata } => Rpc {
                function: "create_agent_memory",
                args: json!({
                    "p_agent_id": s.agent_id, "p_content": content, "p_memory_type": memory_type.as_str(),
                    "p_importance_score": importance, "p_embedding": v, "p_session_id": s.session_id,
                    "p_metadata": metadata, "p_expires_at": expires_at,
                    "p_reference": reference.as_ref().map(|(t, id)| json!({"reference_type": t, "reference_id": id})),
                }),
                idempotent: false,
                columns: Some(CREATED_COLUMNS),
            },
            Call::Search { types, limit, .. } => Rpc {
                function: "search_agent_memories",
                args: json!({
                    "p_query_embedding": v, "p_agent_id": s.agent_id, "p_match_threshold": s.match_threshold,
                    "p_match_count": limit, "p_memory_types": types.as_ref().map(|t| t.iter().map(|t| t.as_str()).collect::<Vec<_>>()),
                    "p_record_access": true,
                }),
                // It records access: a retried search would count twice.
                idempotent: false,
                columns: None,
            },
            Call::Update { id, content, memory_type, importance, expires_at, metadata, .. } => Rpc {
                function: "update_agent_memory",
                args: json!({
                    "p_memory_id": id, "p_content": content, "p_embedding": v,
                    "p_memory_type": memory_type.map(|t| t.as_str()), "p_importance_score": importance,
                    "p_expires_at": expires_at.clone().flatten(), "p_clear_expiry": matches!(expires_at, Some(None)),
                    "p_metadata": metadata,
                }),
                idempotent: true,
                columns: None,
            },
            Call::Delete { id } => Rpc {
                function: "delete_agent_memory",
                args: json!({ "p_memory_id": id }),
                idempotent: true,
                columns: None,
            },
            Call::Context { max_chars, max_memories, min_importance, .. } => Rpc {
                function: "get_memory_context",
                args: json!({
                    "p_agent_id": s.agent_id, "p_query_embedding": v, "p_max_chars": max_chars,
                    "p_max_memories": max_memories, "p_min_importance": min_importance,
                }),
                idempotent: false,
                columns: None,
            },
        }
    }

    pub fn result(&self, data: Value) -> Result<Value, MemoryError> {
        Ok(match self {
            Call::Create { .. } => json!({ "success": true, "memory": shown(&data) }),
            Call::Search { .. } => {
                let memories: Vec<Value> = rows(data).iter().map(shown).collect();
                json!({ "success": true, "count": memories.len(), "memories": memories })
            }
            Call::Update { id, .. } => {
                // A composite-returning function that returns NULL comes back through
                // PostgREST as an object of nulls, not as null.
                if data.get("id").is_none_or(Value::is_null) {
                    return Err(MemoryError::NotFound(id.clone()));
                }
                json!({ "success": true, "memory": shown(&data) })
            }
            Call::Delete { id } => {
                if data != Value::Bool(true) {
                    return Err(MemoryError::NotFound(id.clone()));
                }
                json!({ "success": true, "deleted": id })
            }
            Call::Context { .. } => {
                let memories: Vec<Value> = rows(data).iter().map(shown).collect();
                let context = memories
                    .iter()
                    .map(|m| {
                        format!(
                            "- [{}] {}",
                            m["memory_type"].as_str().unwrap_or("memory"),
                            m["content"].as_str().unwrap_or("")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                json!({ "success": true, "count": memories.len(), "memories": memories, "context": context })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::memory::{Settings, plan, plan_knowing};

    fn settings() -> Settings {
        Settings {
            agent_id: "agent".into(),
            session_id: Some("s".into()),
            dimensions: 3,
            match_threshold: 0.5,
            now_ms: 1.7e12,
            embed_timeout_ms: 1_000,
        }
    }

    fn field_of(tool: &str, input: Value) -> String {
        match plan(tool, &input, &settings()).unwrap_err() {
            MemoryError::InvalidInput { field, .. } => field,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn create_normalises_and_defaults() {
        let p = plan("create_memory", &json!({"content": "  likes tea  ", "memory_type": "decision"}), &settings())
            .unwrap();
        assert_eq!(p.embed.as_deref(), Some("likes tea"));
        let rpc = p.request(&settings(), Some(&[0.1, 0.2, 0.3])).unwrap();
        assert_eq!(rpc.function, "create_agent_memory");
        assert_eq!(rpc.args["p_importance_score"], json!(0.7));
        assert_eq!(rpc.args["p_embedding"], json!([0.1f32, 0.2f32, 0.3f32]));
        assert_eq!(rpc.args["p_session_id"], json!("s"));
        assert_eq!(rpc.args["p_reference"], Value::Null);
        assert!(!rpc.idempotent, "a create is never retried");
        let p = plan(
            "create_memory",
            &json!({"content": "x", "memory_type": "fact", "reference_type": "rfp", "reference_id": "3F2B8A9E-1C4D-4E5F-9A0B-1C2D3E4F5A6B", "expires_at": "2099-01-01"}),
            &settings(),
        )
        .unwrap();
        let args = p.request(&settings(), Some(&[1.0, 0.0, 0.0])).unwrap().args;
        assert_eq!(
            args["p_reference"],
            json!({"reference_type": "rfp", "reference_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"})
        );
        assert_eq!(args["p_expires_at"], json!("2099-01-01T00:00:00.000Z"));
    }

    #[test]
    fn bad_model_input_names_the_field() {
        assert_eq!(field_of("create_memory", json!({"content": "x", "memory_type": "opinion"})), "memory_type");
        assert_eq!(
            field_of("create_memory", json!({"content": "x", "memory_type": "fact", "importance_score": 2})),
            "importance_score"
        );
        assert_eq!(
            field_of("create_memory", json!({"content": "x", "memory_type": "fact", "importance_score": "0.5"})),
            "importance_score"
        );
        assert_eq!(field_of("create_memory", json!({"content": "", "memory_type": "fact"})), "content");
        assert_eq!(field_of("create_memory", json!({"content": "é".repeat(10_001), "memory_type": "fact"})), "content");
        assert!(
            plan("create_memory", &json!({"content": "é".repeat(10_000), "memory_type": "fact"}), &settings()).is_ok(),
            "characters, not bytes"
        );
        assert_eq!(field_of("create_memory", json!({"content": "x", "memory_type": "fact", "tags": []})), "tags");
        assert_eq!(
            field_of(
                "create_memory",
                json!({"content": "x", "memory_type": "fact", "reference_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"})
            ),
            "reference_type"
        );
        assert_eq!(
            field_of(
                "create_memory",
                json!({"content": "x", "memory_type": "fact", "reference_type": "deal", "reference_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"})
            ),
            "reference_type"
        );
        assert_eq!(
            field_of("create_memory", json!({"content": "x", "memory_type": "fact", "expires_at": "2020-01-01"})),
            "expires_at"
        );
        assert_eq!(field_of("create_memory", json!(["x"])), "input");
        assert_eq!(field_of("search_memories", json!({"query": "x", "limit": 2.5})), "limit");
        assert_eq!(field_of("search_memories", json!({"query": "x", "limit": 51})), "limit");
        assert_eq!(field_of("search_memories", json!({"query": "x", "memory_types": "fact"})), "memory_types");
        assert_eq!(field_of("update_memory", json!({"memory_id": "x", "content": "y"})), "memory_id");
        assert_eq!(field_of("update_memory", json!({"memory_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"})), "input");
        assert_eq!(field_of("delete_memory", json!({})), "memory_id");
        assert_eq!(field_of("get_memory_context", json!({"max_memories": 101})), "max_memories");
        assert_eq!(field_of("remember", json!({})), "name");
    }

    #[test]
    fn update_embeds_only_content_not_known_to_be_current() {
        let id = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
        let s = settings();
        let input = json!({"memory_id": id, "content": "new text"});
        assert_eq!(plan_knowing("update_memory", &input, &s, None).unwrap().embed.as_deref(), Some("new text"));
        assert_eq!(
            plan_knowing("update_memory", &input, &s, Some("old text")).unwrap().embed.as_deref(),
            Some("new text")
        );
        let same = plan_knowing("update_memory", &input, &s, Some(" new text ")).unwrap();
        assert_eq!(same.embed, None);
        let args = same.request(&s, None).unwrap().args;
        assert_eq!((args["p_content"].clone(), args["p_embedding"].clone()), (json!("new text"), Value::Null));
        let clear = plan("update_memory", &json!({"memory_id": id, "expires_at": "never"}), &s).unwrap();
        assert_eq!(clear.request(&s, None).unwrap().args["p_clear_expiry"], json!(true));
        let unchanged =
            plan("update_memory", &json!({"memory_id": id, "expires_at": null, "importance_score": 0.1}), &s);
        assert_eq!(unchanged.unwrap().request(&s, None).unwrap().args["p_clear_expiry"], json!(false));
        assert!(plan("update_memory", &json!({"memory_id": id, "importance_score": 0.2}), &s).unwrap().embed.is_none());
    }

    #[test]
    fn results_show_the_model_only_what_it_needs() {
        let s = settings();
        let search = plan("search_memories", &json!({"query": "tea"}), &s).unwrap();
        let rows = json!([{"id": "1", "content": "likes tea", "memory_type": "preference", "importance_score": 0.9, "similarity": 0.8, "user_id": "u", "access_count": 3, "expires_at": null}]);
        assert_eq!(
            search.result(rows).unwrap(),
            json!({"success": true, "count": 1, "memories": [{"id": "1", "content": "likes tea", "memory_type": "preference", "importance_score": 0.9, "similarity": 0.8}]})
        );
        let update = plan(
            "update_memory",
            &json!({"memory_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", "importance_score": 0.1}),
            &s,
        )
        .unwrap();
        assert!(matches!(update.result(json!({"id": null, "content": null})), Err(MemoryError::NotFound(_))));
        let delete = plan("delete_memory", &json!({"memory_id": "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"}), &s).unwrap();
        assert!(matches!(delete.result(json!(false)), Err(MemoryError::NotFound(_))));
        let context = plan("get_memory_context", &json!({}), &s).unwrap();
        let out = context.result(json!([{"id": "1", "content": "likes tea", "memory_type": "preference"}, {"id": "2", "content": "in Denver", "memory_type": "fact"}])).unwrap();
        assert_eq!(out["context"], json!("- [preference] likes tea\n- [fact] in Denver"));
    }
}
