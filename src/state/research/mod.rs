//! Research sessions and drafts: TK9's session persistence and draft manager,
//! in tables instead of files.
//!
//! Operations (SQL: supabase/migrations/20261122000500_research_sessions.sql):
//! - `saveSession(session)` → `rpc/save_research_session`
//! - `loadSession(sessionId)` → `GET research_sessions?session_id=eq.…` (resume)
//! - `deleteSession(sessionId)` → `rpc/delete_research_session` (drafts cascade)
//! - `saveDraft(sessionId, phase, content, metadata?)` → `rpc/save_research_draft`
//! - `loadDraft(sessionId, phase)` → `GET research_drafts?…&order=version.desc&limit=1`
//! - `listDrafts(sessionId, {phase?})` → `GET research_drafts?select=<all but content>`
//! - `workflowSummary(sessionId)` → `GET rpc/research_workflow_summary`, plus the markdown
//!   the original wrote to WORKFLOW_SUMMARY.md

pub mod codec;

use serde_json::{Map, Value};

pub use codec::{DraftPhase, ResearchState, SessionState, merge, validate, validate_transition};

use super::{Context, Op, StateError, delete_session, in_tenant, json_op};
use crate::arguments::Arguments;
use crate::error::{ErrorReport, Invalid};
use crate::input;
use crate::time::format_ms;
use crate::transport::options::{OrderSpec, ReadOptions, RpcOptions};
use crate::transport::request;

/// What this capability's migration creates ([`crate::migration::Migration`]).
pub const MIGRATION: crate::migration::Migration = (
    "20261122000500_research_sessions.sql",
    &[
        "research_sessions",
        "research_drafts",
        "save_research_session",
        "save_research_draft",
        "delete_research_session",
        "research_workflow_summary",
        "agentmem.research_now_ms",
    ],
);

/// A draft's size limit in characters (TK9 expects 1-5 MB per phase).
pub const MAX_DRAFT_CHARS: usize = 10_000_000;
/// Draft metadata limit, as JSON text.
pub const MAX_METADATA_BYTES: usize = 65_536;

const DRAFT_INFO_COLUMNS: &str = "id,session_id,phase,version,created_at,content_chars,metadata";

/// `ResearchStore` takes no options yet; anything given is a mistake worth reporting.
pub fn check_options(options: &Value) -> Result<Value, Invalid> {
    if !options.is_null() {
        input::only(input::object(options, "options")?, "options", "option", &super::STORE_OPTIONS)?;
    }
    Ok(Value::Object(Map::new()))
}

fn session_id(v: &Value) -> Result<String, Invalid> {
    input::text(v, "sessionId", 255)
}

fn draft_info(v: &Value) -> Result<Value, StateError> {
    let m = v.as_object().filter(|m| m.contains_key("id") && m.contains_key("version"));
    m.map(|m| Value::Object(m.clone())).ok_or_else(|| {
        StateError::Server(format!("expected a research draft, the server sent {}", crate::json::Text(v)))
    })
}

fn rows(v: &Value) -> Result<&Vec<Value>, StateError> {
    v.as_array().ok_or_else(|| StateError::Server(format!("expected rows, the server sent {}", crate::json::Text(v))))
}

operations!(
    /// The operations of `ResearchStore` (`call`'s `op` for the capability `state`).
    Operation,
    /// A call of `ResearchStore`, its arguments as the caller gave them (JSON).
    Call {
        SaveSession = "saveSession" { session: Value = "session" } -> "SessionState",
        LoadSession = "loadSession" { session_id: Value = "sessionId" } -> "SessionState | null",
        DeleteSession = "deleteSession" { session_id: Value = "sessionId" } -> "boolean",
        SaveDraft = "saveDraft" {
            session_id: Value = "sessionId",
            phase: Value = "phase",
            content: Value = "content",
            metadata: Value = "metadata",
        } -> "DraftInfo",
        LoadDraft = "loadDraft" { session_id: Value = "sessionId", phase: Value = "phase" } -> "Draft | null",
        ListDrafts = "listDrafts" { session_id: Value = "sessionId", options: Value = "options" } -> "DraftInfo[]",
        WorkflowSummary = "workflowSummary" { session_id: Value = "sessionId" } -> "WorkflowSummary",
    }
);

pub fn plan(op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Op, ErrorReport> {
    check_options(cx.options)?;
    let t = cx.target;
    let idempotent = RpcOptions { idempotent: true, ..Default::default() };
    Ok(match Call::read(super::op_of("ResearchStore", op)?, args)? {
        Call::SaveSession { session } => {
            let session = SessionState::parse(&session, "session", cx.now_ms.floor() as i64)?;
            let req =
                request::rpc(t, "save_research_session", &value!({ "p_session": session.to_json() }), &idempotent)?;
            json_op(req, |row| Ok(SessionState::from_row(&row)?.to_json()))
        }
        Call::LoadSession { session_id: id } => {
            let id = session_id(&id)?;
            let read = ReadOptions {
                columns: Some(codec::SESSION_FIELDS.join(",")),
                filters: in_tenant(t, vec![value!(["session_id", "eq", id])]),
                maybe_single: true,
                ..Default::default()
            };
            json_op(request::select(t, "research_sessions", &read)?, |row| match row {
                Value::Null => Ok(Value::Null),
                row => Ok(SessionState::from_row(&row)?.to_json()),
            })
        }
        Call::DeleteSession { session_id: id } => {
            let id = session_id(&id)?;
            delete_session(t, "delete_research_session", &id)?
        }
        Call::SaveDraft { session_id: id, phase, content, metadata } => {
            let id = session_id(&id)?;
            let phase = DraftPhase::parse(&phase, "phase")?;
            let content = input::string(&content, "content")?;
            let chars = content.chars().count();
            if chars > MAX_DRAFT_CHARS {
                return Err(StateError::invalid(
                    "content",
                    format!("content is {chars} characters; the limit is {MAX_DRAFT_CHARS}"),
                )
                .into());
            }
            let metadata = match &metadata {
                Value::Null => Value::Object(Map::new()),
                m => {
                    input::object(m, "metadata")?;
                    if crate::json::text(m).len() > MAX_METADATA_BYTES {
                        return Err(StateError::invalid(
                            "metadata",
                            format!("metadata is larger than {MAX_METADATA_BYTES} bytes of JSON"),
                        )
                        .into());
                    }
                    m.clone()
                }
            };
            // The draft's id is chosen here, so a resend after a lost answer finds the
            // draft it wrote instead of adding another version.
            let draft_id = uuid::Uuid::new_v4().hyphenated().to_string();
            let args = value!({
                "p_id": draft_id, "p_session_id": id, "p_phase": phase.as_str(), "p_content": content, "p_metadata": metadata,
            });
            json_op(request::rpc(t, "save_research_draft", &args, &idempotent)?, |d| draft_info(&d))
        }
        Call::LoadDraft { session_id: id, phase } => {
            let id = session_id(&id)?;
            let phase = DraftPhase::parse(&phase, "phase")?;
            let read = ReadOptions {
                columns: Some(format!("{DRAFT_INFO_COLUMNS},content")),
                filters: in_tenant(t, vec![value!(["session_id", "eq", id]), value!(["phase", "eq", phase.as_str()])]),
                order: Some(OrderSpec::Raw("version.desc".into())),
                limit: Some(1),
                ..Default::default()
            };
            json_op(request::select(t, "research_drafts", &read)?, |body| match rows(&body)?.first() {
                None => Ok(Value::Null),
                Some(d) => draft_info(d),
            })
        }
        Call::ListDrafts { session_id: id, options } => {
            let id = session_id(&id)?;
            let o = &options;
            let empty = Map::new();
            let o = if o.is_null() { &empty } else { input::object(o, "options")? };
            input::only(o, "options", "option", &["phase"])?;
            let mut filters = in_tenant(t, vec![value!(["session_id", "eq", id])]);
            if let Some(p) = input::get(o, "phase") {
                filters.push(value!(["phase", "eq", DraftPhase::parse(p, "options.phase")?.as_str()]));
            }
            let read = ReadOptions {
                columns: Some(DRAFT_INFO_COLUMNS.into()),
                filters,
                order: Some(OrderSpec::Raw("phase,version".into())),
                ..Default::default()
            };
            json_op(request::select(t, "research_drafts", &read)?, |body| {
                rows(&body)?.iter().map(draft_info).collect::<Result<Vec<_>, _>>().map(Value::Array)
            })
        }
        Call::WorkflowSummary { session_id: id } => {
            let id = session_id(&id)?;
            let args = value!({ "p_session_id": id });
            let req =
                request::rpc(t, "research_workflow_summary", &args, &RpcOptions { get: true, ..Default::default() })?;
            json_op(req, move |body| match body {
                Value::Null => Err(StateError::NotFound(format!(
                    "no research session {} (or it belongs to another user)",
                    crate::error::Quoted(&id)
                ))),
                summary => summarize(&summary),
            })
        }
    })
}

/// `research_workflow_summary`'s data, flattened, with every phase listed (phases without
/// drafts have `drafts: 0`) and the markdown of WORKFLOW_SUMMARY.md.
pub fn summarize(data: &Value) -> Result<Value, StateError> {
    let bad = || {
        StateError::Server(format!(
            "research_workflow_summary returned an unexpected shape: {}",
            crate::json::Text(data)
        ))
    };
    let session = data.get("session").and_then(Value::as_object).ok_or_else(bad)?;
    let stats = data.get("phases").and_then(Value::as_array).ok_or_else(bad)?;
    let phases: Vec<Value> = DraftPhase::ALL
        .iter()
        .map(|p| {
            stats.iter().find(|s| s["phase"] == value!(p.as_str())).cloned().unwrap_or_else(|| {
                value!({"phase": p.as_str(), "drafts": 0, "latest_version": Value::Null, "first_saved_at": Value::Null, "last_saved_at": Value::Null, "latest_chars": Value::Null})
            })
        })
        .collect();
    let total: u64 = phases.iter().filter_map(|p| p["drafts"].as_u64()).sum();
    let mut out = session.clone();
    out.insert("research_state_fields".into(), data.get("research_state_fields").cloned().unwrap_or(value!([])));
    out.insert("phases".into(), Value::Array(phases));
    out.insert("total_drafts".into(), value!(total));
    let markdown = markdown(&out);
    out.insert("markdown".into(), value!(markdown));
    Ok(Value::Object(out))
}

fn when(v: &Value) -> String {
    crate::number::of(v).map(format_ms).unwrap_or_else(|| "–".into())
}

/// One line of text: a query with newlines or table pipes must not break the layout.
fn inline(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

fn markdown(s: &Map<String, Value>) -> String {
    let text = |k: &str| s.get(k).and_then(Value::as_str).map(inline).unwrap_or_default();
    let list = |k: &str| {
        let items: Vec<String> =
            s.get(k).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(inline).collect();
        if items.is_empty() { "none".to_owned() } else { items.join(", ") }
    };
    let mut md = format!(
        "# Workflow summary\n\n- **Query:** {}\n- **Session:** `{}`\n- **Current phase:** {}\n- **Completed phases:** {}\n- **Started:** {}\n- **Last update:** {}\n- **Research state fields:** {}\n\n## Drafts ({} in total)\n\n| Phase | Drafts | Latest version | First saved | Last saved | Latest size (chars) |\n| --- | ---: | ---: | --- | --- | ---: |\n",
        text("query"),
        text("session_id").replace('`', "'"),
        text("current_phase"),
        list("completed_phases"),
        when(&s["start_time"]),
        when(&s["last_update"]),
        list("research_state_fields"),
        crate::json::Text(&s["total_drafts"]),
    );
    for p in s["phases"].as_array().into_iter().flatten() {
        let n = |k: &str| p[k].as_u64().map_or_else(|| "–".to_owned(), |n| n.to_string());
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            p["phase"].as_str().unwrap_or(""),
            n("drafts"),
            n("latest_version"),
            when(&p["first_saved_at"]),
            when(&p["last_saved_at"]),
            n("latest_chars"),
        ));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::transport::target::Target;
    use serde_json::json;

    fn run(op: &str, args: &[Value]) -> Result<Op, ErrorReport> {
        let t = Target::new("https://x.supabase.co", "anon-key", None).unwrap();
        plan(op, &mut crate::arguments::Values::new(args), &Context { target: &t, options: &Value::Null, now_ms: 1_700_000_000_000.0 })
    }

    fn body(op: &Op) -> Value {
        serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap()
    }

    #[test]
    fn save_session_is_one_idempotent_rpc() {
        let op = run("saveSession", &[json!({"session_id": "s1", "query": "AI trends", "current_phase": "planning", "research_state": {"query": "AI trends", "tone": "objective"}})]).unwrap();
        assert!(op.request.url.ends_with("/rpc/save_research_session"));
        assert!(op.request.idempotent);
        let b = body(&op);
        assert_eq!(b["p_session"]["start_time"], json!(1_700_000_000_000i64));
        assert_eq!(b["p_session"]["completed_phases"], json!([]));
        let row = json!({"session_id": "s1", "query": "AI trends", "current_phase": "planning", "completed_phases": [], "research_state": {"tone": "objective"}, "start_time": 1, "last_update": 2});
        assert_eq!(op.finish(row).unwrap()["last_update"], json!(2));
    }

    #[test]
    fn drafts_get_a_client_chosen_id_so_a_resend_is_recognized() {
        let a =
            run("saveDraft", &[json!("s1"), json!("writing"), json!("# Draft"), json!({"agent": "writer"})]).unwrap();
        let b = run("saveDraft", &[json!("s1"), json!("writing"), json!("# Draft")]).unwrap();
        assert!(a.request.idempotent);
        let (ba, bb) = (body(&a), body(&b));
        assert_eq!(ba["p_phase"], json!("4_writing"));
        assert_eq!(ba["p_metadata"], json!({"agent": "writer"}));
        assert_eq!(bb["p_metadata"], json!({}));
        assert!(uuid::Uuid::try_parse(ba["p_id"].as_str().unwrap()).is_ok());
        assert_ne!(ba["p_id"], bb["p_id"], "each saveDraft call is a new draft");

        let load = run("loadDraft", &[json!("s1"), json!("4_writing")]).unwrap();
        for part in ["phase=eq.4_writing", "order=version.desc", "limit=1", "content"] {
            assert!(load.request.url.contains(part), "{part}: {}", load.request.url);
        }
        assert_eq!(load.finish(json!([])).unwrap(), Value::Null);
        let list = run("listDrafts", &[json!("s1"), json!({"phase": "research"})]).unwrap();
        assert!(list.request.url.contains("phase=eq.3_research"));
        assert!(
            !list.request.url.contains("content,") && !list.request.url.ends_with("content"),
            "{}",
            list.request.url
        );
    }

    #[test]
    fn bad_input_names_the_field() {
        let field = |r: Result<Op, ErrorReport>| r.unwrap_err().field.unwrap();
        assert_eq!(field(run("saveSession", &[json!({"session_id": "s"})])), "session.query");
        assert_eq!(field(run("saveDraft", &[json!("s"), json!("drafting"), json!("x")])), "phase");
        assert_eq!(field(run("saveDraft", &[json!("s"), json!("writing"), json!(1)])), "content");
        assert_eq!(field(run("saveDraft", &[json!("s"), json!("writing"), json!("x"), json!([])])), "metadata");
        assert_eq!(field(run("saveDraft", &[json!(""), json!("writing"), json!("x")])), "sessionId");
        assert_eq!(field(run("listDrafts", &[json!("s"), json!({"phases": []})])), "options.phases");
        assert_eq!(field(run("loadSession", &[Value::Null])), "sessionId");
        assert_eq!(field(run("resume", &[])), "op");
    }

    #[test]
    fn summary_lists_every_phase_and_renders_markdown() {
        let op = run("workflowSummary", &[json!("s1")]).unwrap();
        assert_eq!(op.request.method, "GET");
        let data = json!({
            "session": {"session_id": "s1", "query": "AI | trends\nin 2026", "current_phase": "writing", "completed_phases": ["browsing", "planning"], "start_time": 951_868_800_000i64, "last_update": 951_868_860_000i64},
            "research_state_fields": ["query", "tone"],
            "phases": [{"phase": "3_research", "drafts": 2, "latest_version": 2, "first_saved_at": 951_868_800_000i64, "last_saved_at": 951_868_830_000i64, "latest_chars": 120}],
        });
        let s = op.finish(data).unwrap();
        assert_eq!(s["total_drafts"], json!(2));
        assert_eq!(s["phases"].as_array().unwrap().len(), 7);
        assert_eq!(
            s["phases"][0],
            json!({"phase": "1_browsing", "drafts": 0, "latest_version": null, "first_saved_at": null, "last_saved_at": null, "latest_chars": null})
        );
        let md = s["markdown"].as_str().unwrap();
        assert!(md.contains("- **Query:** AI \\| trends in 2026\n"), "{md}");
        assert!(md.contains("- **Started:** 2000-03-01T00:00:00.000Z"), "{md}");
        assert!(
            md.contains("| 3_research | 2 | 2 | 2000-03-01T00:00:00.000Z | 2000-03-01T00:00:30.000Z | 120 |"),
            "{md}"
        );
        assert!(md.contains("| 7_publishing | 0 | – | – | – | – |"), "{md}");
        assert!(md.contains("**Completed phases:** browsing, planning"), "{md}");

        let missing = run("workflowSummary", &[json!("s1")]).unwrap().finish(Value::Null).unwrap_err();
        assert_eq!(missing.code, ErrorCode::NotFound);
    }
}
