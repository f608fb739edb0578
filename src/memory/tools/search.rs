//! search_memories: the memories nearest in meaning to a query.

use super::*;
use crate::memory::names::{MAX_QUERY_CHARS, MAX_SEARCH_LIMIT};

pub const FIELDS: &[&str] = &["query", "memory_types", "limit"];

#[derive(Debug)]
struct Search {
    query: String,
    types: Option<Vec<MemoryType>>,
    limit: u64,
}

pub fn parse(f: &Object, _: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    Ok(Box::new(Search {
        query: input::text(f.required("query")?, "query", MAX_QUERY_CHARS)?,
        types: types(f, "memory_types")?,
        limit: count(f, "limit", MAX_SEARCH_LIMIT)?.unwrap_or(10),
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
            }),
            // It records access: a retried search would count twice.
            idempotent: false,
            columns: None,
        }
    }

    fn result(&self, data: Value) -> Result<Value, MemoryError> {
        let memories = memories(data);
        Ok(value!({ "success": true, "count": memories.len(), "memories": memories }))
    }
}
