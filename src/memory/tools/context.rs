//! get_memory_context: the memories that matter most now (nearest to a query, when one is
//! given), as a text block for the model's prompt.

use super::*;
use crate::memory::names::{MAX_CONTEXT_CHARS, MAX_CONTEXT_MEMORIES, MAX_QUERY_CHARS};

const FIELDS: &[&str] = &["query", "max_chars", "max_memories", "min_importance"];

/// The tool as a model calls it.
pub const TOOL: Definition = Definition {
    name: "get_memory_context",
    fields: FIELDS,
    parse,
    migration: None,
};

/// What a model is told of it.
pub const DEFINITION: &str = r#"{
  "description": "Load the most important memories about this user, within a size budget, to ground the start of a session or a new task. Give a query to prefer memories relevant to the task at hand.",
  "input_schema": {
    "type": "object",
    "properties": {
      "query": {
        "description": "Optional: the task or topic, to rank relevant memories first among equally important ones.",
        "type": "string"
      },
      "max_chars": {
        "description": "Budget for the total length of the memories (default 4000).",
        "maximum": 100000,
        "minimum": 1,
        "type": "integer"
      },
      "max_memories": {
        "description": "At most this many memories (default 20).",
        "maximum": 100,
        "minimum": 1,
        "type": "integer"
      },
      "min_importance": {
        "description": "Skip memories below this importance (default 0).",
        "maximum": 1,
        "minimum": 0,
        "type": "number"
      }
    },
    "additionalProperties": false
  }
}"#;

#[derive(Debug)]
struct Context {
    query: Option<String>,
    max_chars: u64,
    max_memories: u64,
    min_importance: f64,
}

fn parse(f: &Object, _: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    Ok(Box::new(Context {
        query: f.text("query", MAX_QUERY_CHARS)?,
        max_chars: count(f, "max_chars", MAX_CONTEXT_CHARS)?.unwrap_or(4_000),
        max_memories: count(f, "max_memories", MAX_CONTEXT_MEMORIES)?.unwrap_or(20),
        min_importance: importance(f, "min_importance")?.unwrap_or(0.0),
    }))
}

impl Tool for Context {
    fn embed_text(&self) -> Option<&str> {
        self.query.as_deref()
    }

    fn rpc(&self, s: &Settings, vector: Value) -> Rpc {
        Rpc {
            function: "get_memory_context",
            args: value!({
                "p_agent_id": s.agent_id, "p_query_embedding": vector, "p_max_chars": self.max_chars,
                "p_max_memories": self.max_memories, "p_min_importance": self.min_importance,
            }),
            idempotent: false,
            columns: None,
        }
    }

    fn result(&self, data: Value) -> Result<Value, MemoryError> {
        let memories = memories(data);
        let context = memories
            .iter()
            .map(|m| {
                format!("- [{}] {}", m["memory_type"].as_str().unwrap_or("memory"), m["content"].as_str().unwrap_or(""))
            })
            .collect::<Vec<_>>()
            .join("\n");
        Ok(value!({ "success": true, "count": memories.len(), "memories": memories, "context": context }))
    }
}
