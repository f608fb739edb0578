//! update_memory: changes a memory's content (embedded again), type, importance or
//! expiry.

use super::*;
use crate::memory::names::MAX_CONTENT_CHARS;

const FIELDS: &[&str] = &["memory_id", "content", "memory_type", "importance_score", "expires_at"];

/// The tool as a model calls it.
pub const TOOL: Definition = Definition {
    name: "update_memory",
    fields: FIELDS,
    parse,
    migration: None,
};

/// What a model is told of it.
pub const DEFINITION: &str = r#"{
  "description": "Correct or refine a memory you found with search_memories or get_memory_context, e.g. when the user changes a preference. Pass the memory_id and only the fields that change.",
  "input_schema": {
    "type": "object",
    "properties": {
      "content": {
        "description": "The new text of the memory.",
        "type": "string"
      },
      "memory_type": {
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
        "maximum": 1,
        "minimum": 0,
        "type": "number"
      },
      "expires_at": {
        "description": "ISO 8601 date or date-time after which the memory no longer applies, or \"never\" to remove its expiry.",
        "type": "string"
      },
      "memory_id": {
        "description": "The id of the memory, as returned by search_memories or get_memory_context.",
        "format": "uuid",
        "type": "string"
      }
    },
    "required": [
      "memory_id"
    ],
    "additionalProperties": false
  }
}"#;

#[derive(Debug)]
struct Update {
    id: String,
    content: Option<String>,
    /// The content this instance last saw for the memory; equal content needs no new
    /// embedding.
    known_content: Option<String>,
    memory_type: Option<MemoryType>,
    importance: Option<f64>,
    /// `Some(None)`: clear the expiry.
    expires_at: Option<Option<String>>,
}

fn parse(f: &Object, s: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    let id = required_uuid(f, "memory_id")?;
    // "never" removes the expiry. null means "not given", as for every field: a model
    // in a strict mode sends every field, null for those it leaves alone.
    let expires_at = match f.get("expires_at") {
        Some(Value::String(t)) if t.trim() == "never" => Some(None),
        None => None,
        Some(_) => Some(expiry(f, "expires_at", s.now_ms)?),
    };
    let update = Update {
        id,
        content: f.text("content", MAX_CONTENT_CHARS)?,
        known_content: None,
        memory_type: f.choice("memory_type")?,
        importance: importance(f, "importance_score")?,
        expires_at,
    };
    if let Update { content: None, memory_type: None, importance: None, expires_at: None, .. } = update {
        return Err(Invalid::new(
            "input",
            "update_memory needs at least one of content, memory_type, importance_score, expires_at",
        ));
    }
    Ok(Box::new(update))
}

impl Tool for Update {
    fn embed_text(&self) -> Option<&str> {
        let content = self.content.as_deref()?;
        (self.known_content.as_deref() != Some(content)).then_some(content)
    }

    fn know_content(&mut self, content: Option<&str>) {
        self.known_content = content.map(str::to_owned);
    }

    fn rpc(&self, _: &Settings, vector: Value) -> Rpc {
        Rpc {
            function: "update_agent_memory",
            args: value!({
                "p_memory_id": self.id, "p_content": self.content, "p_embedding": vector,
                "p_memory_type": self.memory_type.map(|t| t.as_str()), "p_importance_score": self.importance,
                "p_expires_at": self.expires_at.clone().flatten(), "p_clear_expiry": matches!(self.expires_at, Some(None)),
                "p_metadata": Value::Null,
            }),
            idempotent: true,
            columns: None,
        }
    }

    fn result(&self, data: Value) -> Result<Value, MemoryError> {
        // A composite-returning function that returns NULL comes back through PostgREST as
        // an object of nulls, not as null.
        if data.get("id").is_none_or(Value::is_null) {
            return Err(MemoryError::NotFound(self.id.clone()));
        }
        Ok(value!({ "success": true, "memory": shown(&data) }))
    }
}
