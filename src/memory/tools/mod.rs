//! The memory tools, one file each: what the tool accepts (checked strictly: a model that
//! sends `importance` instead of `importance_score` is told so, instead of having it
//! silently dropped), the one RPC it becomes, and what the model reads back.
//!
//! A tool is its file here: its [`Definition`] (`TOOL`: its name, the fields it reads and
//! how, the SQL it needs when that is a migration of its own), what a model is told of it
//! (`DEFINITION`: Anthropic's shape but the name, from which `definitions` writes the other
//! vendors'; when to call it and the schema of its input, whose properties its `FIELDS`
//! must list exactly, as a test checks; the registry joins them into [`DEFINITIONS`]),
//! its reading of the input and its [`Tool`] impl. `registry.rs`, which
//! `scripts/generate.sh` writes from the files of this folder, lists them in [`TOOLS`];
//! the JavaScript names and the `.d.ts` union of tool names are written from that list.

include!("registry.rs");

use std::fmt::Debug;

use serde_json::{Map, Value};

use super::names::MemoryType;
use super::{MemoryError, Rpc, Settings};
use crate::error::Invalid;
use crate::input::{self, Object};
use crate::time;

/// A validated tool call.
pub trait Tool: Debug {
    /// The text to embed, when the call needs a vector.
    fn embed_text(&self) -> Option<&str> {
        None
    }

    /// What the caller last saw of the memory's content; a tool whose text would be
    /// embedded again skips the embedding when it is unchanged.
    fn know_content(&mut self, _content: Option<&str>) {}

    /// The RPC of this call, given the embedding of its text (`null` when it needs none).
    fn rpc(&self, s: &Settings, vector: Value) -> Rpc;

    /// What the tool returns, from the RPC's JSON answer.
    fn result(&self, data: Value) -> Result<Value, MemoryError>;
}

/// Reads a tool's call from its input's fields.
type Parse = fn(&Object, &Settings) -> Result<Box<dyn Tool>, Invalid>;

/// A tool: the name a model calls it by, the fields of its input and how to read them,
/// and the migration of its SQL when the tool brings one of its own (the first tools'
/// functions are in [`MIGRATION`]). What a model is told of it is its file's
/// `DEFINITION`, in [`DEFINITIONS`].
pub struct Definition {
    pub name: &'static str,
    fields: &'static [&'static str],
    parse: Parse,
    pub migration: Option<crate::migration::Migration>,
}

/// What this capability's migration creates ([`crate::migration::Migration`]).
pub const MIGRATION: crate::migration::Migration = (
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
        "agent_memory_vectors",
        "agentmem.copy_memory_vector",
        "agentmem.index_memory_vectors",
        "agentmem.check_embedding",
        "agentmem.memory_candidates",
        "agentmem.memory_exact",
        "agentmem.memory_vector_copy",
        "agentmem.memory_nearest",
        "agentmem.record_memory_access",
        "agentmem.memory_match",
        "memory_references",
    ],
);

/// Reads a call of the tool `name` (`invalid_input` on `name` for a tool that does not exist).
pub fn parse(name: &str, input: &Value, s: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    let tool = &TOOLS[input::choose_index("name", &Value::String(name.to_owned()), &names)?];
    (tool.parse)(&Object::fields(input, "", "input", tool.fields)?, s)
}

/// A memory id as the tools read it: a UUID in any case and any of its forms, around
/// whitespace, written lowercase and hyphenated. The facade keys what it knows of a
/// memory's content by this (`callSync("memoryId")`), so both sides mean the same memory.
pub fn memory_id(text: &str) -> Option<String> {
    uuid::Uuid::try_parse(text.trim()).ok().map(|u| u.hyphenated().to_string())
}

/// A memory id ([`memory_id`]).
fn uuid(o: &Object, k: &str) -> Result<Option<String>, Invalid> {
    o.read_with(k, |v, field| {
        v.as_str()
            .and_then(memory_id)
            .ok_or_else(|| input::expected(field, "a UUID like 3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", v))
    })
}

fn required_uuid(o: &Object, k: &str) -> Result<String, Invalid> {
    uuid(o, k)?.ok_or_else(|| input::missing(k))
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

/// An importance: a number from 0 to 1.
fn importance(o: &Object, k: &str) -> Result<Option<f64>, Invalid> {
    o.number_in(k, 0.0, 1.0)
}

/// A whole number from 1 to `max`.
fn count(o: &Object, k: &str, max: u64) -> Result<Option<u64>, Invalid> {
    o.whole(k, 1, max as i64).map(|n| n.map(|n| n as u64))
}

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

/// The rows of an answer, each as [`shown`].
fn memories(data: Value) -> Vec<Value> {
    let rows = match data {
        Value::Array(a) => a,
        Value::Null => Vec::new(),
        other => vec![other],
    };
    rows.iter().map(shown).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::memory::{MemoryError, plan, plan_knowing, test_settings as settings};

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

    /// The parser accepts exactly the properties of each tool's declared schema
    /// (its `DEFINITION`): a field the model was never offered is refused by name, not stored.
    #[test]
    fn accepted_fields_are_the_declared_ones() {
        let definitions = crate::memory::definitions::definitions("anthropic", false).unwrap();
        let definitions = definitions.as_array().unwrap();
        assert_eq!(definitions.len(), super::TOOLS.len());
        for (tool, definition) in super::TOOLS.iter().zip(definitions) {
            assert_eq!(definition["name"], tool.name);
            let mut declared: Vec<&str> =
                definition["input_schema"]["properties"].as_object().unwrap().keys().map(String::as_str).collect();
            let mut accepted = tool.fields.to_vec();
            declared.sort_unstable();
            accepted.sort_unstable();
            assert_eq!(accepted, declared, "{}", tool.name);
        }
        let id = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
        assert_eq!(
            field_of("create_memory", json!({"content": "x", "memory_type": "fact", "metadata": {}})),
            "metadata"
        );
        assert_eq!(field_of("update_memory", json!({"memory_id": id, "metadata": {"a": 1}})), "metadata");
        assert_eq!(field_of("search_memories", json!({"query": "x", "match_threshold": 0.1})), "match_threshold");
    }

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

    #[test]
    fn results_show_the_model_only_what_it_needs() {
        let s = settings();
        let search = plan("search_memories", &json!({"query": "tea"}), &s).unwrap();
        let rows = json!([{"id": "1", "content": "likes tea", "memory_type": "preference", "importance_score": 0.9, "similarity": 0.8, "user_id": "u", "access_count": 3, "expires_at": null}]);
        assert_eq!(
            search.result(rows).unwrap(),
            json!({"success": true, "count": 1, "memories": [{"id": "1", "content": "likes tea", "memory_type": "preference", "importance_score": 0.9, "similarity": 0.8}]})
        );
        // The nearest ones under the threshold are asked for, and only counted in the answer.
        assert_eq!(search.request(&s, Some(&[1.0; 384])).unwrap().args["p_include_below"], json!(true));
        let rows = json!([
            {"id": "1", "content": "likes tea", "memory_type": "preference", "similarity": 0.8},
            {"id": "2", "content": "in Denver", "memory_type": "fact", "similarity": 0.21},
            {"id": "3", "content": "has a dog", "memory_type": "fact", "similarity": 0.05},
        ]);
        let out = search.result(rows).unwrap();
        assert_eq!((out["count"].clone(), out["memories"][0]["id"].clone()), (json!(1), json!("1")));
        assert_eq!(out["held_back"]["count"], json!(2));
        assert_eq!(out["held_back"]["best_similarity"], json!(0.21));
        assert_eq!(out["held_back"]["threshold"], json!(s.match_threshold));
        assert!(!out.to_string().contains("Denver"), "no content of what was held back: {out}");
        assert_eq!(out["held_back"].as_object().unwrap().len(), 3, "count, best_similarity, threshold: {out}");
        let none = search.result(json!([])).unwrap();
        assert_eq!(none, json!({"success": true, "count": 0, "memories": []}), "nothing stored: nothing held back");
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
