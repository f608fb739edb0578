//! What a tool call returns to the model, from its RPC's answer: only the columns a model
//! needs, and `not_found` where the SQL found nothing to change.

use serde_json::{Map, Value};

use super::MemoryError;
use super::call::Call;

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
    pub fn result(&self, data: Value) -> Result<Value, MemoryError> {
        Ok(match self {
            Call::Create { .. } => value!({ "success": true, "memory": shown(&data) }),
            Call::Search { .. } => {
                let memories: Vec<Value> = rows(data).iter().map(shown).collect();
                value!({ "success": true, "count": memories.len(), "memories": memories })
            }
            Call::Update { id, .. } => {
                // A composite-returning function that returns NULL comes back through
                // PostgREST as an object of nulls, not as null.
                if data.get("id").is_none_or(Value::is_null) {
                    return Err(MemoryError::NotFound(id.clone()));
                }
                value!({ "success": true, "memory": shown(&data) })
            }
            Call::Delete { id } => {
                if data != Value::Bool(true) {
                    return Err(MemoryError::NotFound(id.clone()));
                }
                value!({ "success": true, "deleted": id })
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
                value!({ "success": true, "count": memories.len(), "memories": memories, "context": context })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::memory::{MemoryError, plan, test_settings as settings};

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
