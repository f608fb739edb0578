//! The one RPC each tool call becomes: the SQL function and its named arguments.

use serde_json::Value;

use super::call::Call;
use super::{Rpc, Settings};

/// This capability's migration and every table and function it creates (`public` ones by
/// bare name, the `agentmem` schema's with it), so that a "no such function" answer about
/// one of them names the file to apply (`crate::schema`, whose test checks the list
/// against the SQL).
pub const MIGRATION: (&str, &[&str]) = (
    "20261122000200_agent_memories.sql",
    &[
        "agent_memories",
        "agent_memories_set_updated_at",
        "agent_memory_dimensions",
        "set_agent_memory_dimensions",
        "cleanup_expired_memories",
        "create_agent_memory",
        "update_agent_memory",
        "delete_agent_memory",
        "search_agent_memories",
        "get_memory_context",
        "get_memory_statistics",
        "update_memory_access",
        "memory_access_log",
        "agent_memory_counters",
        "agentmem.check_embedding",
        "agentmem.memory_candidates",
        "agentmem.memory_nearest",
        "agentmem.record_memory_access",
        "agentmem.memory_match",
        "memory_references",
    ],
);

/// What create_agent_memory sends back (its row without embedding and tsvector).
const CREATED_COLUMNS: &str = "id,content,memory_type,importance_score,expires_at,created_at,updated_at";

impl Call {
    /// The RPC of this call, given the embedding of its text (`null` when it needs none).
    pub fn rpc(&self, s: &Settings, vector: Option<Value>) -> Rpc {
        let v = vector.unwrap_or(Value::Null);
        match self {
            Call::Create { content, memory_type, importance, reference, expires_at, metadata } => Rpc {
                function: "create_agent_memory",
                args: value!({
                    "p_agent_id": s.agent_id, "p_content": content, "p_memory_type": memory_type.as_str(),
                    "p_importance_score": importance, "p_embedding": v, "p_session_id": s.session_id,
                    "p_metadata": metadata, "p_expires_at": expires_at,
                    "p_reference": reference.as_ref().map(|(t, id)| value!({"reference_type": t, "reference_id": id})),
                }),
                idempotent: false,
                columns: Some(CREATED_COLUMNS),
            },
            Call::Search { types, limit, .. } => Rpc {
                function: "search_agent_memories",
                args: value!({
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
                args: value!({
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
                args: value!({ "p_memory_id": id }),
                idempotent: true,
                columns: None,
            },
            Call::Context { max_chars, max_memories, min_importance, .. } => Rpc {
                function: "get_memory_context",
                args: value!({
                    "p_agent_id": s.agent_id, "p_query_embedding": v, "p_max_chars": max_chars,
                    "p_max_memories": max_memories, "p_min_importance": min_importance,
                }),
                idempotent: false,
                columns: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::memory::{plan, plan_knowing, test_settings as settings};

    #[test]
    fn create_normalises_and_defaults() {
        let p = plan("create_memory", &json!({"content": "  likes tea  ", "memory_type": "decision"}), &settings())
            .unwrap();
        assert_eq!(p.embed.as_deref(), Some("  likes tea  "), "text is stored and embedded as given");
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
    fn update_embeds_only_content_not_known_to_be_current() {
        let id = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
        let s = settings();
        let input = json!({"memory_id": id, "content": "new text"});
        assert_eq!(plan_knowing("update_memory", &input, &s, None).unwrap().embed.as_deref(), Some("new text"));
        assert_eq!(
            plan_knowing("update_memory", &input, &s, Some("old text")).unwrap().embed.as_deref(),
            Some("new text")
        );
        assert_eq!(
            plan_knowing("update_memory", &input, &s, Some(" new text ")).unwrap().embed.as_deref(),
            Some("new text"),
            "text is compared as given"
        );
        let same = plan_knowing("update_memory", &input, &s, Some("new text")).unwrap();
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
}
