//! search_memories: the memories nearest in meaning to a query.

use super::*;
use crate::memory::names::{MAX_QUERY_CHARS, MAX_SEARCH_LIMIT};

const FIELDS: &[&str] = &["query", "memory_types", "limit"];

/// The tool as a model calls it.
pub const TOOL: Definition = Definition {
    name: "search_memories",
    fields: FIELDS,
    parse,
    migration: None,
};

/// What a model is told of it.
pub const DEFINITION: &str = r#"{
  "description": "Search what you remember about this user by meaning. Use it at the start of a new session, whenever the user refers to earlier preferences or decisions (\"as I said before\", \"my usual vendors\"), and before making recommendations, so your answer reflects what you already know.",
  "input_schema": {
    "type": "object",
    "properties": {
      "query": {
        "description": "What to look for, in natural language (e.g. \"vendor location preferences\").",
        "type": "string"
      },
      "memory_types": {
        "description": "Optional: only these kinds of memory.",
        "items": {
          "enum": [
            "conversation",
            "preference",
            "fact",
            "decision",
            "context"
          ],
          "type": "string"
        },
        "type": "array"
      },
      "limit": {
        "description": "Maximum number of memories to return (default 10).",
        "maximum": 50,
        "minimum": 1,
        "type": "integer"
      }
    },
    "required": [
      "query"
    ],
    "additionalProperties": false
  }
}"#;

#[derive(Debug)]
struct Search {
    query: String,
    types: Option<Vec<MemoryType>>,
    limit: u64,
    /// The similarity a memory needs to be returned (the tools' `matchThreshold`).
    threshold: f64,
}

/// A row's similarity (every search row has one), read by the host's number parser
/// (Value::as_f64 would bring the core float parser into the module).
fn similarity(row: &Value) -> f64 {
    row.get("similarity").and_then(crate::number::of).unwrap_or(f64::NEG_INFINITY)
}

fn parse(f: &Object, s: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    Ok(Box::new(Search {
        query: input::text(f.required("query")?, "query", MAX_QUERY_CHARS)?,
        types: types(f, "memory_types")?,
        limit: count(f, "limit", MAX_SEARCH_LIMIT)?.unwrap_or(10),
        threshold: s.match_threshold,
    }))
}

impl Tool for Search {
    fn embed_text(&self) -> Option<&str> {
        Some(&self.query)
    }

    fn rpc(&self, s: &Settings, vector: Value) -> Rpc {
        Rpc {
            function: "search_agent_memories",
            args: value!({
                "p_query_embedding": vector, "p_agent_id": s.agent_id, "p_match_threshold": s.match_threshold,
                "p_match_count": self.limit,
                "p_memory_types": self.types.as_ref().map(|t| t.iter().map(|t| t.as_str()).collect::<Vec<_>>()),
                "p_record_access": true,
                // The nearest ones under the threshold too (not counted as accessed), so the
                // answer can say what the threshold held back: a model must be able to tell
                // "nothing stored" from "nothing close enough".
                "p_include_below": true,
            }),
            // It records access: a retried search would count twice.
            idempotent: false,
            columns: None,
        }
    }

    fn result(&self, data: Value) -> Result<Value, MemoryError> {
        let mut rows = memories(data);
        // Most similar first: those under the threshold are the tail.
        let passing = rows.iter().take_while(|m| similarity(m) >= self.threshold).count();
        let below = rows.split_off(passing);
        let mut out = value!({ "success": true, "count": rows.len(), "memories": rows });
        // Only how many and how close: a model that wants them asks again, more broadly.
        if let Some(best) = below.first().and_then(|m| m.get("similarity")) {
            out["held_back"] =
                value!({ "count": below.len(), "best_similarity": best.clone(), "threshold": self.threshold });
        }
        Ok(out)
    }
}
