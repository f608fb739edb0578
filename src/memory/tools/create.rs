//! create_memory: stores a memory with the embedding of its content.

use super::*;
use crate::memory::names::{MAX_CONTENT_CHARS, REFERENCE_TYPES};

const FIELDS: &[&str] =
    &["content", "memory_type", "importance_score", "reference_type", "reference_id", "expires_at"];

/// The tool as a model calls it.
pub const TOOL: Definition = Definition {
    name: "create_memory",
    fields: FIELDS,
    parse,
    migration: None,
};

/// What a model is told of it.
pub const DEFINITION: &str = r#"{
  "description": "Store something worth remembering about this user for future conversations. Use it whenever the user states a preference (\"I prefer US-based vendors\"), makes a decision, or shares a fact or context that will matter later; do not tell the user you will remember something without calling this tool. One memory per distinct piece of information, written as a clear standalone sentence. Importance: preference 0.9, decision 0.7, fact 0.6, context 0.5, conversation 0.3 (the defaults when omitted).",
  "input_schema": {
    "type": "object",
    "properties": {
      "content": {
        "description": "The memory as a clear, standalone sentence (at most 10000 characters).",
        "type": "string"
      },
      "memory_type": {
        "description": "preference = likes, dislikes, requirements; decision = choices made; fact = information about the user or their business; context = details of the current RFP, bid or project; conversation = notable moments of the conversation.",
        "enum": [
          "conversation",
          "preference",
          "fact",
          "decision",
          "context"
        ],
        "type": "string"
      },
      "importance_score": {
        "description": "0.0-1.0. Use 0.9 for explicit preferences, 0.7 for decisions, 0.6 for facts, 0.5 for context, 0.3 for conversation.",
        "maximum": 1,
        "minimum": 0,
        "type": "number"
      },
      "reference_type": {
        "description": "Optional: what kind of entity this memory relates to (with reference_id).",
        "enum": [
          "rfp",
          "bid",
          "artifact",
          "message",
          "user_profile"
        ],
        "type": "string"
      },
      "reference_id": {
        "description": "Optional: UUID of the related entity (with reference_type).",
        "format": "uuid",
        "type": "string"
      },
      "expires_at": {
        "description": "Optional: ISO 8601 date or date-time after which the memory no longer applies (temporary context). Omit for lasting memories.",
        "type": "string"
      }
    },
    "required": [
      "content",
      "memory_type"
    ],
    "additionalProperties": false
  }
}"#;

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

fn parse(f: &Object, s: &Settings) -> Result<Box<dyn Tool>, Invalid> {
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
