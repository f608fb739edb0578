//! create_memory: stores a memory with the embedding of its content.

use super::*;
use crate::memory::names::{MAX_CONTENT_CHARS, REFERENCE_TYPES};

pub const FIELDS: &[&str] =
    &["content", "memory_type", "importance_score", "reference_type", "reference_id", "expires_at"];

/// What create_agent_memory sends back (its row without embedding and tsvector).
const CREATED_COLUMNS: &str = "id,content,memory_type,importance_score,expires_at,created_at,updated_at";

#[derive(Debug)]
struct Create {
    content: String,
    memory_type: MemoryType,
    importance: f64,
    reference: Option<(String, String)>,
    expires_at: Option<String>,
}

pub fn parse(f: &Object, s: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    let content = input::text(f.required("content")?, "content", MAX_CONTENT_CHARS)?;
    let memory_type: MemoryType = input::choose("memory_type", f.required("memory_type")?)?;
    let importance = importance(f, "importance_score")?.unwrap_or(memory_type.default_importance());
    let reference = match (f.get("reference_type"), uuid(f, "reference_id")?) {
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
    Ok(Box::new(Create { content, memory_type, importance, reference, expires_at: expiry(f, "expires_at", s.now_ms)? }))
}

impl Tool for Create {
    fn embed_text(&self) -> Option<&str> {
        Some(&self.content)
    }

    fn rpc(&self, s: &Settings, vector: Value) -> Rpc {
        Rpc {
            function: "create_agent_memory",
            args: value!({
                "p_agent_id": s.agent_id, "p_content": self.content, "p_memory_type": self.memory_type.as_str(),
                "p_importance_score": self.importance, "p_embedding": vector, "p_session_id": s.session_id,
                "p_metadata": Value::Object(Map::new()), "p_expires_at": self.expires_at,
                "p_reference": self.reference.as_ref().map(|(t, id)| value!({"reference_type": t, "reference_id": id})),
            }),
            idempotent: false,
            columns: Some(CREATED_COLUMNS),
        }
    }

    fn result(&self, data: Value) -> Result<Value, MemoryError> {
        Ok(value!({ "success": true, "memory": shown(&data) }))
    }
}
