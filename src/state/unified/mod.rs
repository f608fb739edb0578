//! Unified conversation memory: COIA's `UnifiedStateManager`, where a save
//! is one atomic request instead of one upsert per field.
//!
//! Operations (SQL: supabase/migrations/20261122000300_unified_conversations.sql):
//! - `save(contractorLeadId, state, {conversationId?})` → `rpc/save_unified_state`, which
//!   also upserts the contractor lead when the state has a company_name (the
//!   original's separate call), in the same transaction
//! - `restore(contractorLeadId)` → `GET rpc/restore_unified_state`
//! - `createCheckpoint(contractorLeadId, state)` → `rpc/create_unified_checkpoint`
//! - `restoreCheckpoint(contractorLeadId)` → `GET rpc/restore_unified_checkpoint`
//! - `leadForConversation(conversationId)` → `GET unified_conversation_memory`
//! - `delete(contractorLeadId)` → `rpc/delete_unified_state`

pub mod codec;

use serde_json::Value;
use uuid::Uuid;

pub use codec::{CHECKPOINT_FIELDS, LAST_STATE_UPDATE, MessageType, PERSISTENT_STATE_FIELDS, StoredMessage};

use super::contractors::state_lead;
use super::{Context, Op, StateError, in_tenant, json_op};
use crate::arguments::Arguments;
use crate::error::{ErrorReport, Invalid};
use crate::ids;
use crate::input;
use crate::transport::options::{ReadOptions, RpcOptions};
use crate::transport::request;

/// What this capability's migration creates ([`crate::migration::Migration`]).
pub const MIGRATION: crate::migration::Migration = (
    "20261122000300_unified_conversations.sql",
    &[
        "unified_conversations",
        "unified_conversation_memory",
        "save_unified_state",
        "restore_unified_state",
        "delete_unified_state",
        "create_unified_checkpoint",
        "restore_unified_checkpoint",
        "agentmem.unified_iso_now",
        "agentmem.unified_check_ids",
        "agentmem.unified_conversation_write",
    ],
);

/// `UnifiedStateManager` options.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The persistent field list: PERSISTENT_STATE_FIELDS unless replaced (`fields`),
    /// plus `extraFields`.
    pub fields: Vec<String>,
    /// Skip null, "", {} and [] as the original did (default: save every present field).
    pub skip_empty: bool,
    /// The UUIDv5 namespace of conversation ids (default COIA's).
    pub namespace: Uuid,
    /// Upsert the contractor lead of a state with a company_name (default true).
    pub contractor_leads: bool,
}

/// Appends the names in `v` that `seen` does not hold yet, in order. `seen` makes the
/// de-duplication linear-logarithmic: the options are parsed on every call, and a linear
/// search per name made a long `extraFields` list block the caller for seconds. (A JSON
/// map as the set: its code is in the module already, a BTreeSet's would not be.)
fn field_names(
    v: &Value,
    path: &str,
    into: &mut Vec<String>,
    seen: &mut serde_json::Map<String, Value>,
) -> Result<(), Invalid> {
    for (i, item) in input::array(v, path)?.iter().enumerate() {
        let p = input::index(path, i);
        let name = input::text(item, &p, 255)?;
        if name == LAST_STATE_UPDATE {
            return Err(Invalid::new(
                p,
                format!("{LAST_STATE_UPDATE} is written by every save; it cannot be a state field"),
            ));
        }
        if seen.insert(name.clone(), Value::Null).is_none() {
            into.push(name);
        }
    }
    Ok(())
}

/// Checks the options; answers what the facade shows of them (`fields`, `namespace`).
pub fn check_options(options: &Value) -> Result<Value, Invalid> {
    Settings::parse(options).map(|s| s.describe())
}

/// `UnifiedStateManager`'s options, in the order a message lists them (`client` is the
/// facade's).
pub const OPTIONS: [&str; 6] = ["client", "fields", "extraFields", "skipEmpty", "namespace", "contractorLeads"];

impl Settings {
    pub fn parse(options: &Value) -> Result<Settings, Invalid> {
        let empty = serde_json::Map::new();
        let o = if options.is_null() { &empty } else { input::object(options, "options")? };
        input::only(o, "options", "option", &OPTIONS)?;
        let mut fields = Vec::new();
        let mut seen = serde_json::Map::new();
        match input::get(o, "fields") {
            Some(v) => field_names(v, "options.fields", &mut fields, &mut seen)?,
            None => {
                fields.extend(PERSISTENT_STATE_FIELDS.iter().map(|s| s.to_string()));
                seen.extend(fields.iter().map(|f| (f.clone(), Value::Null)));
            }
        }
        if let Some(v) = input::get(o, "extraFields") {
            field_names(v, "options.extraFields", &mut fields, &mut seen)?;
        }
        let skip_empty = input::get(o, "skipEmpty").map(|v| input::boolean(v, "options.skipEmpty")).transpose()?;
        let namespace = match input::get(o, "namespace") {
            None => ids::COIA_CONVERSATION_NAMESPACE,
            Some(v) => ids::parse_namespace(&input::string(v, "options.namespace")?)
                .map_err(|e| Invalid::new("options.namespace", e.to_string()))?,
        };
        let leads =
            input::get(o, "contractorLeads").map(|v| input::boolean(v, "options.contractorLeads")).transpose()?;
        Ok(Settings {
            fields,
            skip_empty: skip_empty.unwrap_or(false),
            namespace,
            contractor_leads: leads.unwrap_or(true),
        })
    }

    /// What the facade exposes: the effective field list and options.
    pub fn describe(&self) -> Value {
        value!({
            "fields": self.fields,
            "skipEmpty": self.skip_empty,
            "namespace": self.namespace.hyphenated().to_string(),
            "contractorLeads": self.contractor_leads,
        })
    }

    /// The conversation id of a lead (UUIDv5), checking the lead id.
    pub fn conversation_id(&self, lead: &Value) -> Result<(String, String), StateError> {
        let lead = input::text(lead, "contractorLeadId", 255)?;
        let id = ids::conversation_id(&lead, Some(&self.namespace))
            .map_err(|e| StateError::invalid("contractorLeadId", e.to_string()))?;
        Ok((lead, id))
    }
}

fn uuid_arg(v: &Value, path: &str) -> Result<String, StateError> {
    let s = input::string(v, path)?;
    Uuid::try_parse(s.trim())
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| StateError::invalid(path, format!("{path} must be a UUID (got {})", crate::error::Quoted(&s))))
}

operations!(
    /// The operations of `UnifiedStateManager` (`call`'s `op` for the capability `state`).
    Operation,
    /// A call of `UnifiedStateManager`, its arguments as the caller gave them (JSON).
    Call {
        Save = "save" {
            contractor_lead_id: Value = "contractorLeadId",
            state: Value = "state",
            options: Value = "options",
        } -> "SaveStateResult",
        Restore = "restore" { contractor_lead_id: Value = "contractorLeadId" } -> "RestoredCoiaState | null",
        CreateCheckpoint = "createCheckpoint" {
            contractor_lead_id: Value = "contractorLeadId",
            state: Value = "state",
        } -> "CoiaCheckpoint",
        RestoreCheckpoint = "restoreCheckpoint" { contractor_lead_id: Value = "contractorLeadId" } -> "CoiaCheckpoint | null",
        LeadForConversation = "leadForConversation" { conversation_id: Value = "conversationId" } -> "string | null",
        Delete = "delete" { contractor_lead_id: Value = "contractorLeadId" } -> "number",
    }
);

pub fn plan(op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Op, ErrorReport> {
    let s = Settings::parse(cx.options)?;
    let t = cx.target;
    let rpc_write = RpcOptions { idempotent: true, ..Default::default() };
    let rpc_read = RpcOptions { get: true, ..Default::default() };
    Ok(match Call::read(super::op_of("UnifiedStateManager", op)?, args)? {
        Call::Save { contractor_lead_id, state, options } => {
            let (lead, conversation_id) = s.conversation_id(&contractor_lead_id)?;
            let encoded = codec::encode(&state, &s.fields, s.skip_empty)?;
            let options = &options;
            let empty = serde_json::Map::new();
            let o = if options.is_null() { &empty } else { input::object(options, "options")? };
            input::only(o, "options", "option", &["conversationId"])?;
            let linked = input::get(o, "conversationId").map(|v| uuid_arg(v, "options.conversationId")).transpose()?;
            let state_lead =
                if s.contractor_leads { input::object(&state, "state").ok().and_then(state_lead) } else { None };
            let mut args = value!({
                "p_conversation_id": conversation_id, "p_contractor_lead_id": lead, "p_fields": encoded.fields,
                "p_metadata": encoded.metadata, "p_linked_conversation_id": linked,
            });
            // Sent only when there is a lead, so databases without the contractors
            // migration keep working for states without a company_name.
            let lead_summary = state_lead.map(|l| {
                args["p_lead"] = Value::Object(l.fields);
                value!({ "id": lead, "fields": l.copied, "skipped": l.skipped })
            });
            let req = request::rpc(t, "save_unified_state", &args, &rpc_write)?;
            let saved = encoded.saved;
            json_op(req, move |body| {
                let stamp = body.get("last_state_update").cloned().filter(Value::is_string).ok_or_else(|| {
                    StateError::Server(format!(
                        "save_unified_state returned {} instead of its summary",
                        crate::json::Text(&body)
                    ))
                })?;
                Ok(value!({
                    "conversationId": conversation_id, "savedFields": saved, "lastStateUpdate": stamp,
                    "lead": lead_summary.unwrap_or(Value::Null),
                }))
            })
        }
        Call::Restore { contractor_lead_id } => {
            let (_, id) = s.conversation_id(&contractor_lead_id)?;
            let req = request::rpc(t, "restore_unified_state", &value!({ "p_conversation_id": id }), &rpc_read)?;
            json_op(req, codec::decode)
        }
        Call::CreateCheckpoint { contractor_lead_id, state } => {
            let (lead, id) = s.conversation_id(&contractor_lead_id)?;
            let snapshot = codec::checkpoint(&state)?;
            let args = value!({ "p_conversation_id": id, "p_contractor_lead_id": lead, "p_checkpoint": snapshot });
            let req = request::rpc(t, "create_unified_checkpoint", &args, &rpc_write)?;
            json_op(req, |body| match body {
                Value::Object(_) => Ok(body),
                other => {
                    Err(StateError::Server(format!("create_unified_checkpoint returned {}", crate::json::Text(&other))))
                }
            })
        }
        Call::RestoreCheckpoint { contractor_lead_id } => {
            let (_, id) = s.conversation_id(&contractor_lead_id)?;
            let req = request::rpc(t, "restore_unified_checkpoint", &value!({ "p_conversation_id": id }), &rpc_read)?;
            json_op(req, Ok)
        }
        Call::LeadForConversation { conversation_id } => {
            let id = uuid_arg(&conversation_id, "conversationId")?;
            let read = ReadOptions {
                columns: Some("memory_value".into()),
                filters: in_tenant(
                    t,
                    vec![
                        value!(["conversation_id", "eq", id]),
                        value!(["memory_type", "eq", "contractor_mapping"]),
                        value!(["memory_key", "eq", "contractor_lead_id"]),
                    ],
                ),
                maybe_single: true,
                ..Default::default()
            };
            let req = request::select(t, "unified_conversation_memory", &read)?;
            json_op(req, |row| Ok(row.get("memory_value").cloned().filter(Value::is_string).unwrap_or(Value::Null)))
        }
        Call::Delete { contractor_lead_id } => {
            let (lead, id) = s.conversation_id(&contractor_lead_id)?;
            let args = value!({ "p_conversation_id": id, "p_contractor_lead_id": lead });
            let req = request::rpc(t, "delete_unified_state", &args, &rpc_write)?;
            json_op(req, |n| match n.as_u64() {
                Some(n) => Ok(value!(n)),
                None => Err(StateError::Server(format!("delete_unified_state returned {}", crate::json::Text(&n)))),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::target::Target;
    use serde_json::json;

    fn target() -> Target {
        Target::new("https://x.supabase.co", "anon-key", None).unwrap()
    }

    fn run(op: &str, args: &[Value], options: Value) -> Result<Op, ErrorReport> {
        let t = target();
        plan(op, &mut crate::arguments::Values::new(args), &Context { target: &t, options: &options, now_ms: 1.0 })
    }

    fn field_of(r: Result<Op, ErrorReport>) -> String {
        r.unwrap_err().field.unwrap_or_default()
    }

    #[test]
    fn save_is_one_idempotent_rpc_with_the_derived_conversation_id() {
        let op = run(
            "save",
            &[json!("landing-abc123def456"), json!({"company_name": "Acme", "messages": [{"role": "user", "content": "hi"}], "journey_stage": "research"}), json!({"conversationId": "3F2B8A9E-1C4D-4E5F-9A0B-1C2D3E4F5A6B"})],
            Value::Null,
        )
        .unwrap();
        assert_eq!(op.request.method, "POST");
        assert!(op.request.url.ends_with("/rest/v1/rpc/save_unified_state"), "{}", op.request.url);
        assert!(op.request.idempotent, "upserts only: safe to resend");
        let body: Value = serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap();
        assert_eq!(
            body["p_conversation_id"],
            json!("1636806e-18db-5536-b0d9-dcd21dd1699b"),
            "Python's uuid5 of the lead"
        );
        assert_eq!(body["p_contractor_lead_id"], json!("landing-abc123def456"));
        assert_eq!(body["p_fields"], json!({"company_name": "Acme", "messages": [{"content": "hi", "type": "human"}]}));
        assert_eq!(body["p_metadata"], json!({"company_name": "Acme", "journey_stage": "research"}));
        assert_eq!(body["p_linked_conversation_id"], json!("3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"));
        assert_eq!(body["p_lead"], json!({"company_name": "Acme"}), "the lead rides in the same request");
        let out = op
            .finish(json!({"conversation_id": "x", "last_state_update": "2026-11-22T00:00:00.000000Z", "rows": 3}))
            .unwrap();
        assert_eq!(
            out,
            json!({"conversationId": "1636806e-18db-5536-b0d9-dcd21dd1699b", "savedFields": ["messages", "company_name"], "lastStateUpdate": "2026-11-22T00:00:00.000000Z",
                   "lead": {"id": "landing-abc123def456", "fields": ["company_name"], "skipped": []}})
        );
    }

    #[test]
    fn long_field_lists_are_deduplicated_in_order_without_quadratic_time() {
        let mut names: Vec<String> = (0..100_000).map(|i| format!("f{i}")).collect();
        names.extend(["f7".into(), "messages".into(), "f99999".into()]);
        let started = std::time::Instant::now();
        let s = Settings::parse(&json!({"extraFields": names})).unwrap();
        // A linear search per name takes minutes here; the set, milliseconds.
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(s.fields.len(), PERSISTENT_STATE_FIELDS.len() + 100_000);
        assert_eq!(s.fields[PERSISTENT_STATE_FIELDS.len()], "f0");
        assert_eq!(s.fields.last().map(String::as_str), Some("f99999"));
    }

    #[test]
    fn the_lead_goes_along_only_with_a_company_name_and_can_be_turned_off() {
        let body_of = |state: Value, options: Value| -> Value {
            let op = run("save", &[json!("lead-1"), state], options).unwrap();
            serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap()
        };
        let b =
            body_of(json!({"company_name": "Acme", "years_in_business": "12", "employee_count": "a few"}), Value::Null);
        assert_eq!(b["p_lead"], json!({"company_name": "Acme", "years_in_business": 12}));
        let b = body_of(json!({"contact_name": "Jo"}), Value::Null);
        assert!(b.get("p_lead").is_none(), "no company_name, no lead (and no p_lead for older databases)");
        let b = body_of(json!({"company_name": null}), Value::Null);
        assert!(b.get("p_lead").is_none());
        let b = body_of(json!({"company_name": "Acme"}), json!({"contractorLeads": false}));
        assert!(b.get("p_lead").is_none());
        let op =
            run("save", &[json!("lead-1"), json!({"company_name": "Acme", "employee_count": "a few"})], Value::Null)
                .unwrap();
        let out = op.finish(json!({"last_state_update": "t"})).unwrap();
        assert_eq!(out["lead"], json!({"id": "lead-1", "fields": ["company_name"], "skipped": ["employee_count"]}));
        let op = run("save", &[json!("lead-1"), json!({})], Value::Null).unwrap();
        assert_eq!(op.finish(json!({"last_state_update": "t"})).unwrap()["lead"], Value::Null);
    }

    #[test]
    fn reads_are_get_calls_and_options_shape_the_field_list() {
        let op = run("restore", &[json!("lead-1")], Value::Null).unwrap();
        assert_eq!(op.request.method, "GET");
        assert!(op.request.url.contains("/rpc/restore_unified_state?p_conversation_id="), "{}", op.request.url);
        let op = run("restoreCheckpoint", &[json!("lead-1")], Value::Null).unwrap();
        assert_eq!(op.request.method, "GET");
        let op = run("leadForConversation", &[json!("3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b")], Value::Null).unwrap();
        assert!(op.request.url.contains("memory_type=eq.contractor_mapping"), "{}", op.request.url);
        assert_eq!(op.finish(json!({"memory_value": "lead-1"})).unwrap(), json!("lead-1"));

        let s = Settings::parse(&json!({"fields": ["company_name"], "extraFields": ["current_mode", "company_name"]}))
            .unwrap();
        assert_eq!(s.fields, ["company_name", "current_mode"]);
        let s = Settings::parse(&json!({"extraFields": ["current_mode"], "namespace": "dns"})).unwrap();
        assert_eq!(s.fields.len(), 35);
        assert_eq!(s.namespace, Uuid::NAMESPACE_DNS);
        let op = run(
            "save",
            &[json!("lead"), json!({"current_mode": "x", "company_name": "y"})],
            json!({"fields": ["current_mode"]}),
        )
        .unwrap();
        let body: Value = serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["p_fields"], json!({"current_mode": "x"}));
    }

    #[test]
    fn bad_input_is_refused_before_any_request() {
        assert_eq!(field_of(run("save", &[json!(""), json!({})], Value::Null)), "contractorLeadId");
        assert_eq!(field_of(run("save", &[json!("x".repeat(256)), json!({})], Value::Null)), "contractorLeadId");
        assert_eq!(field_of(run("save", &[Value::Null, json!({})], Value::Null)), "contractorLeadId");
        assert_eq!(field_of(run("save", &[json!("l"), json!("state")], Value::Null)), "state");
        assert_eq!(
            field_of(run("save", &[json!("l"), json!({}), json!({"conversationId": "c-1"})], Value::Null)),
            "options.conversationId"
        );
        assert_eq!(
            field_of(run("save", &[json!("l"), json!({}), json!({"conversation_id": "x"})], Value::Null)),
            "options.conversation_id"
        );
        assert_eq!(field_of(run("restore", &[json!("l")], json!({"skipEmpty": 1}))), "options.skipEmpty");
        assert_eq!(
            field_of(run("restore", &[json!("l")], json!({"contractorLeads": "no"}))),
            "options.contractorLeads"
        );
        assert_eq!(
            field_of(run("restore", &[json!("l")], json!({"fields": ["last_state_update"]}))),
            "options.fields[0]"
        );
        assert_eq!(field_of(run("restore", &[json!("l")], json!({"extraFields": [""]}))), "options.extraFields[0]");
        assert_eq!(field_of(run("restore", &[json!("l")], json!({"namespace": "nope"}))), "options.namespace");
        assert_eq!(field_of(run("restore", &[json!("l")], json!({"field": []}))), "options.field");
        assert_eq!(field_of(run("leadForConversation", &[json!("x")], Value::Null)), "conversationId");
        assert_eq!(
            field_of(run("createCheckpoint", &[json!("l"), json!({"research_completed": 1})], Value::Null)),
            "state.research_completed"
        );
        assert_eq!(field_of(run("forget", &[], Value::Null)), "op");
    }

    #[test]
    fn server_shapes_that_are_not_the_contract_are_server_errors() {
        let op = run("save", &[json!("l"), json!({})], Value::Null).unwrap();
        assert_eq!(op.finish(Value::Null).unwrap_err().code, crate::error::ErrorCode::Server);
        let op = run("delete", &[json!("l")], Value::Null).unwrap();
        assert_eq!(op.finish(json!(4)).unwrap(), json!(4));
    }
}
