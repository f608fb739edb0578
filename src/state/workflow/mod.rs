//! Workflow agent states: a session-keyed store over `workflow_agent_states`.
//!
//! Operations (SQL: supabase/migrations/20261122000400_workflow_agent_states.sql):
//! - `create(state)` → `rpc/create_workflow_state` (a resend of the same state returns it)
//! - `get(sessionId)` → `GET workflow_agent_states?session_id=eq.…`
//! - `update(sessionId, patch)` → `rpc/update_workflow_state`
//! - `list({userId?, stage?, gapStatus?, templateId?, limit?, offset?})` → `GET workflow_agent_states`
//! - `delete(sessionId)` → `rpc/delete_workflow_state`

pub mod codec;

use serde_json::Value;

pub use codec::{
    ClarificationContext, ClarificationPurpose, Conversation, DebugResult, GapDetail, GapStatus, Origin,
    REMOVED_FIELDS, Removed, Role, WorkflowContext, WorkflowStage, WorkflowState, parse_patch,
};

use super::{Context, Op, StateError, delete_session, in_tenant, json_op};
use crate::arguments::Arguments;
use crate::error::{ErrorReport, Invalid};
use crate::input;
use crate::transport::options::{OrderSpec, ReadOptions, RpcOptions};
use crate::transport::request;

/// What this capability's migration creates ([`crate::migration::Migration`]).
pub const MIGRATION: crate::migration::Migration = (
    "20261122000400_workflow_agent_states.sql",
    &[
        "workflow_agent_states",
        "create_workflow_state",
        "update_workflow_state",
        "delete_workflow_state",
        "agentmem.workflow_state_check_keys",
    ],
);

const TABLE: &str = "workflow_agent_states";
pub const MAX_LIST: i64 = 1000;

/// `WorkflowStateStore` options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Settings {
    pub removed: Removed,
}

/// Checks the options; the facade shows nothing of them.
pub fn check_options(options: &Value) -> Result<Value, Invalid> {
    Settings::parse(options).map(|_| Value::Object(Default::default()))
}

/// `WorkflowStateStore`'s options, in the order a message lists them (`client` is the
/// facade's).
pub const OPTIONS: [&str; 2] = ["client", "removedFields"];

impl Settings {
    pub fn parse(options: &Value) -> Result<Settings, Invalid> {
        if options.is_null() {
            return Ok(Settings::default());
        }
        let o = input::object(options, "options")?;
        input::only(o, "options", "option", &OPTIONS)?;
        let removed = match input::get(o, "removedFields") {
            None => Removed::Reject,
            Some(v) => input::choose("options.removedFields", v)?,
        };
        Ok(Settings { removed })
    }
}

fn session_id(v: &Value) -> Result<String, Invalid> {
    input::text(v, "sessionId", 255)
}

fn one_state(body: Value, what: &str) -> Result<Value, StateError> {
    match body {
        Value::Null => {
            Err(StateError::NotFound(format!("no workflow state for session {what} (or it belongs to another user)")))
        }
        row => Ok(WorkflowState::from_row(&row)?.to_json()),
    }
}

operations!(
    /// The operations of `WorkflowStateStore` (`call`'s `op` for the capability `state`).
    Operation,
    /// A call of `WorkflowStateStore`, its arguments as the caller gave them (JSON).
    Call {
        Create = "create" { state: Value = "state" } -> "WorkflowState",
        Get = "get" { session_id: Value = "sessionId" } -> "WorkflowState | null",
        Update = "update" { session_id: Value = "sessionId", patch: Value = "patch" } -> "WorkflowState",
        List = "list" { query: Value = "query" } -> "WorkflowState[]",
        Delete = "delete" { session_id: Value = "sessionId" } -> "boolean",
    }
);

pub fn plan(op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Op, ErrorReport> {
    let s = Settings::parse(cx.options)?;
    let t = cx.target;
    Ok(match Call::read(super::op_of("WorkflowStateStore", op)?, args)? {
        Call::Create { state } => {
            // The caller's clock fills missing timestamps here, not the server's, so a
            // resent create carries the same state and is recognized as the same one.
            let state = WorkflowState::parse(&state, "state", s.removed, cx.now_ms.floor() as i64)?;
            let id = state.session_id.clone();
            let req = request::rpc(
                t,
                "create_workflow_state",
                &value!({ "p_state": state.to_json() }),
                &RpcOptions { idempotent: true, ..Default::default() },
            )?;
            json_op(req, move |body| one_state(body, &crate::error::Quoted(&id).to_string()))
        }
        Call::Get { session_id: id } => {
            let id = session_id(&id)?;
            let read = ReadOptions {
                filters: in_tenant(t, vec![value!(["session_id", "eq", id])]),
                maybe_single: true,
                ..Default::default()
            };
            json_op(request::select(t, TABLE, &read)?, |row| match row {
                Value::Null => Ok(Value::Null),
                row => Ok(WorkflowState::from_row(&row)?.to_json()),
            })
        }
        Call::Update { session_id: id, patch } => {
            let id = session_id(&id)?;
            let patch = parse_patch(&patch, "patch", s.removed)?;
            let args = value!({ "p_session_id": id, "p_patch": patch });
            // A resend after a lost answer applies the same values again; previous_stage
            // moves only on an actual stage change, so it stays right.
            let req = request::rpc(
                t,
                "update_workflow_state",
                &args,
                &RpcOptions { idempotent: true, ..Default::default() },
            )?;
            json_op(req, move |body| one_state(body, &crate::error::Quoted(&id).to_string()))
        }
        Call::List { query } => {
            let q = &query;
            let empty = serde_json::Map::new();
            let o = if q.is_null() { &empty } else { input::object(q, "query")? };
            input::only(o, "query", "option", &["userId", "stage", "gapStatus", "templateId", "limit", "offset"])?;
            let mut filters = in_tenant(t, Vec::new());
            if let Some(v) = input::get(o, "userId") {
                filters.push(value!(["user_id", "eq", input::text(v, "query.userId", 255)?]));
            }
            if let Some(v) = input::get(o, "stage") {
                filters.push(value!(["stage", "eq", WorkflowStage::parse(v, "query.stage")?.as_str()]));
            }
            if let Some(v) = input::get(o, "gapStatus") {
                let g = input::choose::<GapStatus>("query.gapStatus", v)?;
                filters.push(value!(["gap_status", "eq", g.as_str()]));
            }
            if let Some(v) = input::get(o, "templateId") {
                filters.push(value!(["template_id", "eq", input::text(v, "query.templateId", 255)?]));
            }
            let limit = input::get(o, "limit").map(|v| input::whole(v, "query.limit", 1, MAX_LIST)).transpose()?;
            let offset =
                input::get(o, "offset").map(|v| input::whole(v, "query.offset", 0, i64::from(i32::MAX))).transpose()?;
            let read = ReadOptions {
                filters,
                order: Some(OrderSpec::Raw("updated_at.desc,session_id".into())),
                limit: Some(limit.unwrap_or(100) as u64),
                offset: offset.map(|o| o as u64),
                ..Default::default()
            };
            json_op(request::select(t, TABLE, &read)?, |rows| {
                let rows = input::array(&rows, "rows").map_err(|e| StateError::Server(e.to_string()))?;
                rows.iter()
                    .map(|r| WorkflowState::from_row(r).map(|s| s.to_json()))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            })
        }
        Call::Delete { session_id: id } => {
            let id = session_id(&id)?;
            delete_session(t, "delete_workflow_state", &id)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::transport::target::Target;
    use serde_json::json;

    fn run(op: &str, args: &[Value], options: Value) -> Result<Op, ErrorReport> {
        let t = Target::new("https://x.supabase.co", "anon-key", None).unwrap();
        plan(op, &mut crate::arguments::Values::new(args), &Context { target: &t, options: &options, now_ms: 1_700_000_000_123.9 })
    }

    fn body(op: &Op) -> Value {
        serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap()
    }

    #[test]
    fn create_sends_the_whole_normalized_state_once() {
        let op = run("create", &[json!({"session_id": "s1", "stage": "gap_analysis"})], Value::Null).unwrap();
        assert!(op.request.url.ends_with("/rpc/create_workflow_state"));
        assert!(op.request.idempotent);
        let state = &body(&op)["p_state"];
        assert_eq!(state["created_at"], json!(1_700_000_000_123i64), "the caller's clock, in whole ms");
        assert_eq!(state["updated_at"], state["created_at"]);
        assert_eq!(state["gap_status"], json!("no_gap"));
        assert_eq!(state.as_object().unwrap().len(), 18, "every column but id");
        let row = json!({"id": "x", "session_id": "s1", "created_at": 1, "updated_at": 1, "stage": "gap_analysis", "conversations": []});
        assert_eq!(op.finish(row).unwrap()["stage"], json!("gap_analysis"));
    }

    #[test]
    fn update_get_list_delete_requests() {
        let op = run("update", &[json!("s1"), json!({"stage": "debug", "debug_loop_count": 2})], Value::Null).unwrap();
        assert_eq!(body(&op), json!({"p_session_id": "s1", "p_patch": {"stage": "debug", "debug_loop_count": 2}}));
        let missing = op.finish(Value::Null).unwrap_err();
        assert_eq!(missing.code, ErrorCode::NotFound);

        let op = run("get", &[json!("s 1")], Value::Null).unwrap();
        assert_eq!(op.request.method, "GET");
        assert!(op.request.url.contains("session_id=eq.s%201"), "{}", op.request.url);
        assert_eq!(op.finish(Value::Null).unwrap(), Value::Null, "get: null when absent");

        let op = run(
            "list",
            &[json!({"userId": "u1", "stage": "completed", "gapStatus": "blocking", "limit": 5})],
            Value::Null,
        )
        .unwrap();
        let url = &op.request.url;
        for part in
            ["user_id=eq.u1", "stage=eq.completed", "gap_status=eq.blocking", "limit=5", "order=updated_at.desc"]
        {
            assert!(url.contains(part), "{part} in {url}");
        }
        assert_eq!(op.finish(json!([])).unwrap(), json!([]));

        let op = run("delete", &[json!("s1")], Value::Null).unwrap();
        assert!(op.request.url.ends_with("/rpc/delete_workflow_state"), "{}", op.request.url);
        assert_eq!(body(&op), json!({"p_session_id": "s1"}));
        assert_eq!(op.finish(json!(true)).unwrap(), json!(true));
    }

    #[test]
    fn the_service_role_reads_in_its_tenant_only() {
        // Row-level security does not apply to the service role: the store names the tenant.
        let mut t = Target::new("https://x.supabase.co", "sb_secret_x", None).unwrap();
        let plan_with = |t: &Target, op: &str, args: &[Value]| {
            plan(op, &mut crate::arguments::Values::new(args), &Context { target: t, options: &Value::Null, now_ms: 0.0 }).unwrap().request.url
        };
        let service = "tenant_id=eq.00000000-0000-0000-0000-000000000000";
        // (A delete goes through rpc/delete_workflow_state, which keeps to the caller's tenant.)
        for (op, args) in [("get", vec![json!("s1")]), ("list", vec![Value::Null])] {
            assert!(plan_with(&t, op, &args).contains(service), "{op}");
        }
        t.act_for("0f0e0d0c-0000-4000-8000-00000000000a").unwrap();
        assert!(plan_with(&t, "get", &[json!("s1")]).contains("tenant_id=eq.0f0e0d0c-0000-4000-8000-00000000000a"));
        assert!(!run("get", &[json!("s1")], Value::Null).unwrap().request.url.contains("tenant_id"), "anon: none");
    }

    #[test]
    fn bad_input_names_the_field() {
        let field = |r: Result<Op, ErrorReport>| r.unwrap_err().field.unwrap();
        assert_eq!(field(run("create", &[json!({"session_id": "s", "stage": "end"})], Value::Null)), "state.stage");
        assert_eq!(
            field(run("create", &[json!({"session_id": "s", "user_message": "x"})], Value::Null)),
            "state.user_message"
        );
        assert!(
            run("create", &[json!({"session_id": "s", "user_message": "x"})], json!({"removedFields": "ignore"}))
                .is_ok()
        );
        assert_eq!(field(run("create", &[json!({})], json!({"removedFields": "drop"}))), "options.removedFields");
        assert_eq!(field(run("update", &[json!(""), json!({"stage": "debug"})], Value::Null)), "sessionId");
        assert_eq!(
            field(run("update", &[json!("s"), json!({"previous_stage": "debug"})], Value::Null)),
            "patch.previous_stage"
        );
        assert_eq!(field(run("list", &[json!({"stage": "end"})], Value::Null)), "query.stage");
        assert_eq!(field(run("list", &[json!({"limit": 0})], Value::Null)), "query.limit");
        assert_eq!(field(run("list", &[json!({"user": "u"})], Value::Null)), "query.user");
        assert_eq!(field(run("get", &[json!(7)], Value::Null)), "sessionId");
        assert_eq!(field(run("upsert", &[], Value::Null)), "op");
    }
}
