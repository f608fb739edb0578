//! What each tool accepts, checked strictly (a model that sends `importance` instead of
//! `importance_score` is told so, instead of having it silently dropped), read into a
//! [`Call`].

use serde_json::Value;

use super::Settings;
use super::names::*;
use crate::error::Invalid;
use crate::input::{self, Object};
use crate::time;

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
}

/// A memory id: a UUID in any case, written lowercase and hyphenated.
fn uuid(o: &Object, k: &str) -> Result<Option<String>, Invalid> {
    o.read_with(k, |v, field| {
        let parsed = v.as_str().and_then(|s| uuid::Uuid::try_parse(s.trim()).ok());
        parsed
            .map(|u| u.hyphenated().to_string())
            .ok_or_else(|| input::expected(field, "a UUID like 3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", v))
    })
}

/// Memory types, each once; none is no filter.
fn types(o: &Object, k: &str) -> Result<Option<Vec<MemoryType>>, Invalid> {
    let Some(items) = o.read_with(k, input::array)? else { return Ok(None) };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let t = input::choose(&input::index(k, i), item)?;
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(if out.is_empty() { None } else { Some(out) })
}

/// A future instant; dates alone mean midnight UTC.
fn expiry(o: &Object, k: &str, now_ms: f64) -> Result<Option<String>, Invalid> {
    o.read_with(k, |v, field| {
        let ms = v.as_str().and_then(time::parse_iso8601_ms).ok_or_else(|| {
            input::expected(field, "an ISO 8601 date or date-time such as 2027-01-31 or 2027-01-31T12:00:00Z", v)
        })?;
        if ms <= now_ms {
            return Err(Invalid::new(
                field,
                format!("{field} {} is in the past; omit it for a memory that never expires", v.as_str().unwrap_or("")),
            ));
        }
        Ok(time::format_ms(ms))
    })
}

/// An object of at most 16 KB (as JSON text).
fn metadata(o: &Object, k: &str) -> Result<Option<Value>, Invalid> {
    o.read_with(k, |v, field| {
        input::object(v, field)?;
        if crate::json::text(v).len() > 16_384 {
            return Err(Invalid::new(field, format!("{field} is larger than 16 KB")));
        }
        Ok(v.clone())
    })
}

/// The fields of `tool`'s input object, each one of `keys`.
fn fields<'a>(input: &'a Value, keys: &[&str]) -> Result<Object<'a>, Invalid> {
    Object::fields(input, "", "input", keys)
}

pub fn parse(tool: ToolName, input: &Value, s: &Settings) -> Result<Call, Invalid> {
    let whole = |f: &Object, k: &str, max: u64| f.whole(k, 1, max as i64).map(|n| n.map(|n| n as u64));
    let importance = |f: &Object, k: &str| f.number_in(k, 0.0, 1.0);
    Ok(match tool {
        ToolName::CreateMemory => {
            let f = fields(
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
            let content = input::text(f.required("content")?, "content", MAX_CONTENT_CHARS)?;
            let memory_type: MemoryType = input::choose("memory_type", f.required("memory_type")?)?;
            let importance = importance(&f, "importance_score")?.unwrap_or(memory_type.default_importance());
            let reference = match (f.get("reference_type"), uuid(&f, "reference_id")?) {
                (None, None) => None,
                (Some(t), Some(id)) => {
                    let t = t.as_str().filter(|t| REFERENCE_TYPES.contains(t)).ok_or_else(|| {
                        input::expected("reference_type", &format!("one of {}", REFERENCE_TYPES.join(", ")), t)
                    })?;
                    Some((t.to_owned(), id))
                }
                (Some(_), None) => {
                    return Err(Invalid::new("reference_id", "reference_id is required with a reference_type"));
                }
                (None, Some(_)) => {
                    return Err(Invalid::new("reference_type", "reference_type is required with a reference_id"));
                }
            };
            Call::Create {
                content,
                memory_type,
                importance,
                reference,
                expires_at: expiry(&f, "expires_at", s.now_ms)?,
                metadata: metadata(&f, "metadata")?.unwrap_or_else(|| value!({})),
            }
        }
        ToolName::SearchMemories => {
            let f = fields(input, &["query", "memory_types", "limit"])?;
            Call::Search {
                query: input::text(f.required("query")?, "query", MAX_QUERY_CHARS)?,
                types: types(&f, "memory_types")?,
                limit: whole(&f, "limit", MAX_SEARCH_LIMIT)?.unwrap_or(10),
            }
        }
        ToolName::UpdateMemory => {
            let f =
                fields(input, &["memory_id", "content", "memory_type", "importance_score", "expires_at", "metadata"])?;
            let id = uuid(&f, "memory_id")?.ok_or_else(|| input::missing("memory_id"))?;
            // "never" removes the expiry. null means "not given", as for every field: a model
            // in a strict mode sends every field, null for those it leaves alone.
            let expires_at = match f.get("expires_at") {
                Some(Value::String(t)) if t.trim() == "never" => Some(None),
                None => None,
                Some(_) => Some(expiry(&f, "expires_at", s.now_ms)?),
            };
            let call = Call::Update {
                id,
                content: f.text("content", MAX_CONTENT_CHARS)?,
                known_content: None,
                memory_type: f.choice("memory_type")?,
                importance: importance(&f, "importance_score")?,
                expires_at,
                metadata: metadata(&f, "metadata")?,
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
                return Err(Invalid::new(
                    "input",
                    "update_memory needs at least one of content, memory_type, importance_score, expires_at, metadata",
                ));
            }
            call
        }
        ToolName::DeleteMemory => {
            let f = fields(input, &["memory_id"])?;
            Call::Delete { id: uuid(&f, "memory_id")?.ok_or_else(|| input::missing("memory_id"))? }
        }
        ToolName::GetMemoryContext => {
            let f = fields(input, &["query", "max_chars", "max_memories", "min_importance"])?;
            Call::Context {
                query: f.text("query", MAX_QUERY_CHARS)?,
                max_chars: whole(&f, "max_chars", MAX_CONTEXT_CHARS)?.unwrap_or(4_000),
                max_memories: whole(&f, "max_memories", MAX_CONTEXT_MEMORIES)?.unwrap_or(20),
                min_importance: importance(&f, "min_importance")?.unwrap_or(0.0),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::memory::{MemoryError, plan, test_settings as settings};

    fn field_of(tool: &str, input: Value) -> String {
        match plan(tool, &input, &settings()).unwrap_err() {
            MemoryError::InvalidInput(e) => e.field,
            other => panic!("{other:?}"),
        }
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
}
