//! The unified-memory codec: which state fields are saved, how messages are
//! written (`[{content, type: "ai"|"human"}]`) and read back, and the conversation
//! metadata and checkpoint snapshot taken from a state.

use serde_json::{Map, Value};

use crate::error::Invalid;
use crate::input;
use crate::json::object;
use crate::state::StateError;

/// COIA's PERSISTENT_STATE_FIELDS, in the original's order.
pub const PERSISTENT_STATE_FIELDS: [&str; 34] = [
    "messages",
    "company_name",
    "contractor_profile",
    "business_info",
    "research_findings",
    "specialties",
    "certifications",
    "years_in_business",
    "extraction_completed",
    "research_completed",
    "intelligence_completed",
    "website_summary",
    "online_presence",
    "service_areas",
    "project_types",
    "budget_range",
    "contact_name",
    "contact_email",
    "contact_phone",
    "business_address",
    "license_number",
    "insurance_info",
    "employee_count",
    "annual_revenue",
    "growth_trajectory",
    "competitive_advantages",
    "target_customer",
    "pricing_strategy",
    "marketing_channels",
    "recent_projects",
    "customer_reviews",
    "social_media_presence",
    "bid_history",
    "submitted_bids",
];

/// The record every save writes itself; a state field of that name cannot be saved.
pub const LAST_STATE_UPDATE: &str = "last_state_update";

/// What the lightweight checkpoint keeps (the original's create_checkpoint), besides the
/// `checkpoint_timestamp` the database adds.
pub const CHECKPOINT_FIELDS: [&str; 6] = [
    "company_name",
    "current_mode",
    "extraction_completed",
    "research_completed",
    "intelligence_completed",
    "contractor_created",
];

/// State keys copied into `unified_conversations.metadata`.
pub const METADATA_FIELDS: [&str; 4] = ["journey_stage", "interface", "company_name", "research_completed"];

const FLAGS: [&str; 4] = ["extraction_completed", "research_completed", "intelligence_completed", "contractor_created"];
const TEXTS: [&str; 3] = ["company_name", "journey_stage", "interface"];

string_enum!(
    /// Who sent a message. The original wrote only `ai` and `human` (and read anything
    /// that is not `ai` as human); `system` and `tool` are kept as such rather than turned
    /// into human.
    MessageType {
        Human = "human",
        Ai = "ai",
        System = "system",
        Tool = "tool",
    }
);

impl MessageType {
    /// The chat-API role of restored messages.
    pub const fn role(self) -> &'static str {
        match self {
            MessageType::Human => "user",
            MessageType::Ai => "assistant",
            MessageType::System => "system",
            MessageType::Tool => "tool",
        }
    }

    fn from_role(role: &str) -> Option<MessageType> {
        match role {
            "user" | "human" => Some(MessageType::Human),
            "assistant" | "ai" => Some(MessageType::Ai),
            "system" => Some(MessageType::System),
            "tool" => Some(MessageType::Tool),
            _ => None,
        }
    }

    /// A LangChain message class (`HumanMessage`, `AIMessageChunk`, ...).
    fn from_class(class: &str) -> Option<MessageType> {
        match class.strip_suffix("Chunk").unwrap_or(class) {
            "HumanMessage" => Some(MessageType::Human),
            "AIMessage" => Some(MessageType::Ai),
            "SystemMessage" => Some(MessageType::System),
            "ToolMessage" => Some(MessageType::Tool),
            _ => None,
        }
    }
}

/// One message as stored: `{content, type}` plus, only when the message has them, the
/// fields tool use needs.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    /// A string, or LangChain's array of content blocks.
    pub content: Value,
    /// Written as `type`.
    pub kind: MessageType,
    pub name: Option<String>,
    pub id: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_calls: Option<Vec<Value>>,
}

impl StoredMessage {
    /// Accepts `{type, content}` (the stored form), `{role, content}` (chat APIs), and a
    /// serialized LangChain message (`{lc: 1, type: "constructor", id: [..., "AIMessage"],
    /// kwargs: {...}}`, what JSON.stringify makes of a LangChain JS message).
    pub fn parse(v: &Value, path: &str) -> Result<StoredMessage, StateError> {
        let m = input::object(v, path)?;
        let (kind, body, body_path) = if m.get("lc").is_some() && m.get("type") == Some(&value!("constructor")) {
            let class = m.get("id").and_then(Value::as_array).and_then(|id| id.last()).and_then(Value::as_str);
            let kind = class.and_then(MessageType::from_class).ok_or_else(|| {
                StateError::invalid(
                    input::key(path, "id"),
                    format!(
                        "{path} is a serialized LangChain object of class {}; messages must be HumanMessage, AIMessage, SystemMessage or ToolMessage",
                        class.map_or_else(|| "(none)".into(), |c| crate::error::Quoted(c).to_string())
                    ),
                )
            })?;
            let kwargs_path = input::key(path, "kwargs");
            (kind, input::object(input::required(m, path, "kwargs")?, &kwargs_path)?, kwargs_path)
        } else {
            let (k, value) = match (m.get("type"), m.get("role")) {
                (Some(t), _) => ("type", t),
                (None, Some(r)) => ("role", r),
                (None, None) => {
                    return Err(StateError::invalid(
                        input::key(path, "type"),
                        format!(
                            "{path} needs a type (human, ai, system, tool) or a role (user, assistant, system, tool)"
                        ),
                    ));
                }
            };
            let kind = value.as_str().and_then(MessageType::from_role).ok_or_else(|| {
                StateError::invalid(
                    input::key(path, k),
                    format!(
                        "{} must be one of human, ai, system, tool (or the roles user, assistant) (got {})",
                        input::key(path, k),
                        crate::json::Text(value)
                    ),
                )
            })?;
            (kind, m, path.to_owned())
        };
        let content = match body.get("content") {
            Some(c @ (Value::String(_) | Value::Array(_))) => c.clone(),
            Some(other) => {
                return Err(StateError::invalid(
                    input::key(&body_path, "content"),
                    format!(
                        "{} must be a string or an array of content blocks (got {})",
                        input::key(&body_path, "content"),
                        input::describe(other)
                    ),
                ));
            }
            None => {
                return Err(StateError::invalid(
                    input::key(&body_path, "content"),
                    format!("{} is required", input::key(&body_path, "content")),
                ));
            }
        };
        let text = |k: &str| -> Result<Option<String>, Invalid> {
            input::get(body, k).map(|v| input::string(v, &input::key(&body_path, k))).transpose()
        };
        let tool_calls = match input::get(body, "tool_calls") {
            None => None,
            Some(v) => Some(input::array(v, &input::key(&body_path, "tool_calls"))?.clone()).filter(|c| !c.is_empty()),
        };
        Ok(StoredMessage {
            content,
            kind,
            name: text("name")?,
            id: text("id")?,
            tool_call_id: text("tool_call_id")?,
            tool_calls,
        })
    }

    /// The message as `restoreState` returns it: the stored fields plus `role`.
    pub fn restored(&self) -> Value {
        let mut v = self.to_json();
        v["role"] = value!(self.kind.role());
        v
    }

    /// The stored form: `{content, type}` and the tool-use fields the message has.
    fn to_json(&self) -> Value {
        let text = |v: &Option<String>| v.as_deref().map(Value::from);
        Value::Object(object(vec![
            ("content", Some(self.content.clone())),
            ("type", Some(self.kind.as_str().into())),
            ("name", text(&self.name)),
            ("id", text(&self.id)),
            ("tool_call_id", text(&self.tool_call_id)),
            ("tool_calls", self.tool_calls.clone().map(Value::Array)),
        ]))
    }

    /// Reads a stored message back. Lenient like the original reader (anything that is not
    /// a known type is a human message; missing content is empty), because rows written by
    /// other programs must still restore.
    fn read(v: &Value) -> StoredMessage {
        let kind = v.get("type").and_then(Value::as_str).and_then(MessageType::from_role).unwrap_or(MessageType::Human);
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        StoredMessage {
            content: match v.get("content") {
                Some(c @ (Value::String(_) | Value::Array(_))) => c.clone(),
                _ => value!(""),
            },
            kind,
            name: text("name"),
            id: text("id"),
            tool_call_id: text("tool_call_id"),
            tool_calls: v.get("tool_calls").and_then(Value::as_array).cloned().filter(|c| !c.is_empty()),
        }
    }
}

/// Checks the fields whose type the original relied on (messages, company name, the
/// completion flags, the metadata strings) and encodes messages.
fn encode_field(k: &str, v: &Value, path: &str) -> Result<Value, StateError> {
    if k == "messages" {
        let messages = input::array(v, path)?;
        let mut stored = Vec::with_capacity(messages.len());
        for (i, m) in messages.iter().enumerate() {
            stored.push(StoredMessage::parse(m, &input::index(path, i))?.to_json());
        }
        return Ok(Value::Array(stored));
    }
    if !v.is_null() {
        if TEXTS.contains(&k) {
            input::string(v, path)?;
        } else if FLAGS.contains(&k) {
            input::boolean(v, path)?;
        }
    }
    Ok(v.clone())
}

/// The original skipped None, "", {} and []; with `skip_empty` so does this.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// What one save writes, taken from a state.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    /// Field → stored value, for the fields of `fields` present in the state.
    pub fields: Map<String, Value>,
    /// The saved field names, in the order of the field list.
    pub saved: Vec<String>,
    /// Conversation metadata (present, non-null keys of METADATA_FIELDS).
    pub metadata: Map<String, Value>,
}

/// Encodes the fields of `fields` that `state` has (a key with any value, null included,
/// unless `skip_empty`); other keys are not saved.
pub fn encode(state: &Value, fields: &[String], skip_empty: bool) -> Result<Encoded, StateError> {
    let map = input::object(state, "state")?;
    let mut out = Encoded { fields: Map::new(), saved: Vec::new(), metadata: Map::new() };
    for f in fields {
        let Some(v) = map.get(f) else { continue };
        if skip_empty && is_empty(v) {
            continue;
        }
        out.fields.insert(f.clone(), encode_field(f, v, &input::key("state", f))?);
        out.saved.push(f.clone());
    }
    for k in METADATA_FIELDS {
        if let Some(v) = input::get(map, k) {
            out.metadata.insert(k.to_owned(), encode_field(k, v, &input::key("state", k))?);
        }
    }
    Ok(out)
}

/// The restored state from `restore_unified_state`'s object: messages become message
/// objects with a role; every other key (known or not) comes back as stored.
pub fn decode(stored: Value) -> Result<Value, StateError> {
    let mut map = match stored {
        Value::Null => return Ok(Value::Null),
        Value::Object(m) => m,
        other => {
            return Err(StateError::Server(format!("restore_unified_state returned a {}", input::describe(&other))));
        }
    };
    if let Some(messages) = map.get_mut("messages") {
        // The Python original stored json.dumps(messages): a string holding the array.
        if let Value::String(text) = messages {
            // Corrupt history is the server's problem to report, not an empty conversation.
            *messages = crate::json::parse(text).map_err(|e| {
                StateError::Server(format!(
                    "the stored messages are not valid JSON ({e}); the row was written by something else"
                ))
            })?;
        }
        if let Value::Array(items) = messages {
            *items = items.iter().map(|m| StoredMessage::read(m).restored()).collect();
        }
    }
    Ok(Value::Object(map))
}

/// The lightweight checkpoint of a state: CHECKPOINT_FIELDS, null where absent.
pub fn checkpoint(state: &Value) -> Result<Map<String, Value>, StateError> {
    let map = input::object(state, "state")?;
    let mut out = Map::new();
    for k in CHECKPOINT_FIELDS {
        let v = map.get(k).cloned().unwrap_or(Value::Null);
        out.insert(k.to_owned(), encode_field(k, &v, &input::key("state", k))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::Gen;
    use serde_json::json;

    fn all_fields() -> Vec<String> {
        PERSISTENT_STATE_FIELDS.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn messages_serialize_to_content_and_type_from_every_input_shape() {
        let state = json!({"messages": [
            {"role": "user", "content": "hi"},
            {"type": "ai", "content": "hello"},
            {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"], "kwargs": {"content": "lc human", "additional_kwargs": {}}},
            {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessageChunk"], "kwargs": {"content": [{"type": "text", "text": "x"}], "tool_calls": [{"name": "f", "args": {}, "id": "c1"}], "id": "m1"}},
            {"role": "tool", "content": "42", "tool_call_id": "c1"},
            {"role": "system", "content": "be brief"},
        ]});
        let enc = encode(&state, &all_fields(), false).unwrap();
        assert_eq!(
            enc.fields["messages"],
            json!([
                {"content": "hi", "type": "human"},
                {"content": "hello", "type": "ai"},
                {"content": "lc human", "type": "human"},
                {"content": [{"type": "text", "text": "x"}], "type": "ai", "id": "m1", "tool_calls": [{"name": "f", "args": {}, "id": "c1"}]},
                {"content": "42", "type": "tool", "tool_call_id": "c1"},
                {"content": "be brief", "type": "system"},
            ])
        );
        let restored = decode(json!({"messages": enc.fields["messages"].clone()})).unwrap();
        assert_eq!(restored["messages"][0], json!({"content": "hi", "type": "human", "role": "user"}));
        assert_eq!(restored["messages"][1]["role"], json!("assistant"));
        assert_eq!(restored["messages"][4]["role"], json!("tool"));
    }

    #[test]
    fn bad_messages_name_the_field() {
        let field = |m: Value| {
            encode(&json!({"messages": [{"role": "user", "content": "ok"}, m]}), &all_fields(), false)
                .unwrap_err()
                .field()
                .map(str::to_owned)
        };
        assert_eq!(field(json!({"role": "robot", "content": "x"})).as_deref(), Some("state.messages[1].role"));
        assert_eq!(field(json!({"type": "bot", "content": "x"})).as_deref(), Some("state.messages[1].type"));
        assert_eq!(field(json!({"content": "x"})).as_deref(), Some("state.messages[1].type"));
        assert_eq!(field(json!({"role": "user"})).as_deref(), Some("state.messages[1].content"));
        assert_eq!(field(json!({"role": "user", "content": 3})).as_deref(), Some("state.messages[1].content"));
        assert_eq!(field(json!("hi")).as_deref(), Some("state.messages[1]"));
        assert_eq!(
            field(json!({"lc": 1, "type": "constructor", "id": ["x", "FunctionMessage"], "kwargs": {"content": ""}}))
                .as_deref(),
            Some("state.messages[1].id")
        );
        assert_eq!(
            field(json!({"lc": 1, "type": "constructor", "id": ["x", "AIMessage"], "kwargs": {"content": null}}))
                .as_deref(),
            Some("state.messages[1].kwargs.content")
        );
        let e = encode(&json!({"messages": "hi"}), &all_fields(), false).unwrap_err();
        assert_eq!(e.field(), Some("state.messages"));
        let e = encode(&json!({"company_name": 7}), &all_fields(), false).unwrap_err();
        assert_eq!(e.field(), Some("state.company_name"));
        let e = encode(&json!({"research_completed": "yes"}), &all_fields(), false).unwrap_err();
        assert_eq!(e.field(), Some("state.research_completed"));
        let e = encode(&json!({"interface": 1}), &all_fields(), false).unwrap_err();
        assert_eq!(e.field(), Some("state.interface"), "metadata fields are typed even when not saved");
        assert_eq!(encode(&json!([]), &all_fields(), false).unwrap_err().field(), Some("state"));
    }

    #[test]
    fn only_listed_present_fields_are_saved_and_skip_empty_mimics_the_original() {
        let state = json!({
            "company_name": "Acme", "specialties": [], "business_info": {}, "contact_name": "",
            "years_in_business": 0, "website_summary": null, "current_mode": "chat", "interface": "landing_page",
        });
        let enc = encode(&state, &all_fields(), false).unwrap();
        assert_eq!(
            enc.saved,
            ["company_name", "business_info", "specialties", "years_in_business", "website_summary", "contact_name"],
            "field-list order; current_mode and interface are not in the list"
        );
        assert_eq!(enc.fields["website_summary"], Value::Null, "null is saved (it clears the field)");
        assert_eq!(
            enc.metadata,
            json!({"company_name": "Acme", "interface": "landing_page"}).as_object().unwrap().clone()
        );
        let skipped = encode(&state, &all_fields(), true).unwrap();
        assert_eq!(skipped.saved, ["company_name", "years_in_business"], "0 is not empty");
        let extended: Vec<String> = ["company_name", "current_mode"].iter().map(|s| s.to_string()).collect();
        assert_eq!(encode(&state, &extended, false).unwrap().saved, ["company_name", "current_mode"]);
    }

    #[test]
    fn decode_keeps_unknown_keys_and_reads_python_rows() {
        let stored = json!({
            "messages": "[{\"content\": \"hi\", \"type\": \"human\"}, {\"content\": \"yo\", \"type\": \"ai\"}, {\"type\": \"weird\"}]",
            "my_extra": {"a": 1},
            "last_state_update": "2026-01-01T00:00:00.000000Z",
        });
        let out = decode(stored).unwrap();
        assert_eq!(
            out["messages"],
            json!([
                {"content": "hi", "type": "human", "role": "user"},
                {"content": "yo", "type": "ai", "role": "assistant"},
                {"content": "", "type": "human", "role": "user"},
            ])
        );
        assert_eq!(out["my_extra"], json!({"a": 1}));
        assert_eq!(out["last_state_update"], json!("2026-01-01T00:00:00.000000Z"));
        assert_eq!(decode(Value::Null).unwrap(), Value::Null);
        assert!(matches!(decode(json!([1])), Err(StateError::Server(_))));
        assert!(
            matches!(decode(json!({"messages": "[{\"role\": \"user\""})), Err(StateError::Server(m)) if m.contains("not valid JSON")),
            "corrupt stored messages are an error, not an empty history"
        );
    }

    #[test]
    fn checkpoint_keeps_the_originals_fields_with_nulls() {
        let cp = checkpoint(
            &json!({"company_name": "Acme", "current_mode": "research", "research_completed": true, "other": 1}),
        )
        .unwrap();
        assert_eq!(
            Value::Object(cp),
            json!({"company_name": "Acme", "current_mode": "research", "extraction_completed": null,
                   "research_completed": true, "intelligence_completed": null, "contractor_created": null})
        );
        assert_eq!(
            checkpoint(&json!({"contractor_created": 1})).unwrap_err().field(),
            Some("state.contractor_created")
        );
    }

    /// A generated state, with the values encode accepts for each field.
    fn state(g: &mut Gen) -> Map<String, Value> {
        let mut m = Map::new();
        for f in PERSISTENT_STATE_FIELDS {
            if !g.chance(60) {
                continue;
            }
            let v = match f {
                "messages" => Value::Array(
                    (0..g.below(5))
                        .map(|_| {
                            let t = g.pick(MessageType::ALL);
                            let mut msg = json!({"type": t.as_str(), "content": if g.chance(80) { json!(g.text(20)) } else { json!([{"type": "text", "text": g.text(5)}]) }});
                            if g.chance(30) {
                                msg["id"] = json!(g.word(8));
                            }
                            if t == MessageType::Tool {
                                msg["tool_call_id"] = json!(g.word(6));
                            }
                            msg
                        })
                        .collect(),
                ),
                "company_name" => json!(g.text(15)),
                f if FLAGS.contains(&f) => json!(g.chance(50)),
                _ => g.value(3),
            };
            m.insert(f.to_owned(), v);
        }
        for _ in 0..g.below(3) {
            m.insert(format!("extra_{}", g.text(5)), g.value(2));
        }
        m
    }

    #[test]
    fn generated_states_round_trip_through_encode_and_decode() {
        for seed in 0..300 {
            let mut g = Gen::new(seed);
            let state = state(&mut g);
            let enc = encode(&Value::Object(state.clone()), &all_fields(), false).unwrap();
            // What the database hands back: the encoded fields (plus the save's stamp).
            let mut stored = enc.fields.clone();
            stored.insert(LAST_STATE_UPDATE.into(), json!("2026-11-22T00:00:00.000000Z"));
            let restored = decode(Value::Object(stored)).unwrap();
            let restored = restored.as_object().unwrap();
            for (k, v) in &state {
                if k.starts_with("extra_") {
                    assert!(!restored.contains_key(k), "seed {seed}: {k} is not in the field list");
                    continue;
                }
                if k == "messages" {
                    let back: Vec<Value> = restored[k]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|m| {
                            let mut m = m.clone();
                            m.as_object_mut().unwrap().remove("role");
                            m
                        })
                        .collect();
                    assert_eq!(&Value::Array(back), v, "seed {seed}: messages");
                    // Restored messages encode to the same stored form (restore → save is stable).
                    let again = encode(&json!({"messages": restored[k].clone()}), &all_fields(), false).unwrap();
                    assert_eq!(again.fields["messages"], enc.fields["messages"], "seed {seed}");
                } else {
                    assert_eq!(&restored[k], v, "seed {seed}: {k}");
                }
            }
            assert_eq!(restored.len(), enc.saved.len() + 1, "seed {seed}");
        }
    }
}
