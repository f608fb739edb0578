//! `WorkflowState` ↔ `workflow_agent_states` row. The row's columns are the
//! state's fields, so one JSON shape serves both; this codec types it: enum stages
//! (`completed`, never `end`), the gap status enum, millisecond timestamps, and the JSONB
//! sub-structures (Conversation, ClarificationContext, GapDetail, debug_result,
//! workflow_context). Parsing fills the table's column defaults, so what is stored is the
//! whole state.

use serde_json::{Map, Value};

use crate::error::Invalid;
use crate::input::{self, get, key, only, required};
use crate::json::{object, object_with, opt_text, texts};
use crate::state::StateError;

string_enum!(
    /// `WorkflowStage` (the `stage` / `previous_stage` columns).
    WorkflowStage {
        Clarification = "clarification",
        GapAnalysis = "gap_analysis",
        WorkflowGeneration = "workflow_generation",
        Debug = "debug",
        Completed = "completed",
    }
);

string_enum!(
    /// `gap_status`.
    GapStatus { NoGap = "no_gap", HasGap = "has_gap", GapResolved = "gap_resolved", Blocking = "blocking" }
);

string_enum!(
    /// `conversations[].role`.
    Role { User = "user", Assistant = "assistant", System = "system" }
);

string_enum!(
    /// `clarification_context.purpose`.
    ClarificationPurpose {
        InitialIntent = "initial_intent",
        TemplateModification = "template_modification",
        GapNegotiation = "gap_negotiation",
        DebugIssue = "debug_issue",
    }
);

string_enum!(
    /// `clarification_context.origin` and `workflow_context.origin`.
    Origin { Create = "create", Edit = "edit", Copy = "copy" }
);

impl WorkflowStage {
    pub fn parse(v: &Value, path: &str) -> Result<WorkflowStage, Invalid> {
        if v.as_str() == Some("end") {
            // LangGraph's END sentinel is "__end__"/"end"; the table stores the final stage
            // as 'completed', and the table's check constraint refuses 'end'.
            return Err(Invalid::new(path, format!("{path} is \"end\"; the final stage is \"completed\"")));
        }
        input::choose::<Self>(path, v)
    }
}

/// The fields WorkflowState no longer has, and where their data lives now.
pub const REMOVED_FIELDS: [(&str, &str); 6] = [
    ("user_message", "derive it from conversations"),
    ("clarification_questions", "use clarification_context.pending_questions"),
    ("alternative_solutions", "use identified_gaps[].alternatives"),
    ("selected_alternative_index", "it is not needed"),
    ("previous_errors", "use debug_result.errors"),
    ("current_workflow_json", "current_workflow is JSONB now"),
];

/// Every field of WorkflowState, in column order.
pub const FIELDS: [&str; 18] = [
    "session_id",
    "user_id",
    "created_at",
    "updated_at",
    "stage",
    "previous_stage",
    "intent_summary",
    "conversations",
    "execution_history",
    "clarification_context",
    "gap_status",
    "identified_gaps",
    "current_workflow",
    "template_workflow",
    "workflow_context",
    "debug_result",
    "debug_loop_count",
    "template_id",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    pub role: Role,
    pub text: String,
    /// ms since the epoch.
    pub timestamp: i64,
    pub metadata: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClarificationContext {
    pub purpose: ClarificationPurpose,
    pub collected_info: Map<String, Value>,
    pub pending_questions: Vec<String>,
    pub origin: Option<Origin>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GapDetail {
    pub required_capability: String,
    pub missing_component: String,
    pub alternatives: Vec<String>,
}

/// `debug_result` (a `Dict[str, Any]` in the original): the known keys typed, other keys kept.
#[derive(Debug, Clone, PartialEq)]
pub struct DebugResult {
    pub success: bool,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub suggestions: Vec<String>,
    pub iteration_count: i64,
    pub timestamp: Option<i64>,
    pub extra: Map<String, Value>,
}

/// `workflow_context` (a `Dict[str, Any]`): origin and requirements typed, other keys kept.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowContext {
    pub origin: Option<Origin>,
    pub requirements: Map<String, Value>,
    pub extra: Map<String, Value>,
}

/// A whole `WorkflowState` (= a `workflow_agent_states` row without `id`).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowState {
    pub session_id: String,
    pub user_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub stage: WorkflowStage,
    pub previous_stage: Option<WorkflowStage>,
    pub intent_summary: String,
    pub conversations: Vec<Conversation>,
    pub execution_history: Vec<String>,
    pub clarification_context: Option<ClarificationContext>,
    pub gap_status: GapStatus,
    pub identified_gaps: Vec<GapDetail>,
    pub current_workflow: Value,
    pub template_workflow: Value,
    pub workflow_context: Option<WorkflowContext>,
    pub debug_result: Option<DebugResult>,
    pub debug_loop_count: i64,
    pub template_id: Option<String>,
}

string_enum!(
    /// What to do with fields the workflow state no longer has (`REMOVED_FIELDS`).
    Removed {
        /// Refuse them with `invalid_input` naming the field and its replacement (default).
        Reject = "reject",
        /// Drop them silently (for states coming from code written before the removal).
        Ignore = "ignore",
    }
);

#[allow(clippy::derivable_impls)] // string_enum! derives; a variant attribute would be its only use
impl Default for Removed {
    fn default() -> Removed {
        Removed::Reject
    }
}

fn list<T>(
    v: Option<&Value>,
    path: &str,
    item: impl Fn(&Value, &str) -> Result<T, Invalid>,
) -> Result<Vec<T>, Invalid> {
    match v {
        None => Ok(Vec::new()),
        Some(v) => input::array(v, path)?.iter().enumerate().map(|(i, x)| item(x, &input::index(path, i))).collect(),
    }
}

fn strings(m: &Map<String, Value>, path: &str, k: &str) -> Result<Vec<String>, Invalid> {
    list(get(m, k), &key(path, k), input::string)
}

fn map(m: &Map<String, Value>, path: &str, k: &str) -> Result<Map<String, Value>, Invalid> {
    get(m, k).map(|v| input::object(v, &key(path, k)).cloned()).transpose().map(Option::unwrap_or_default)
}

fn origin(m: &Map<String, Value>, path: &str) -> Result<Option<Origin>, Invalid> {
    get(m, "origin").map(|v| input::choose::<Origin>(&key(path, "origin"), v)).transpose()
}

impl Conversation {
    fn parse(v: &Value, path: &str) -> Result<Conversation, Invalid> {
        let m = input::object(v, path)?;
        only(m, path, "field", &["role", "text", "timestamp", "metadata"])?;
        Ok(Conversation {
            role: input::choose::<Role>(&key(path, "role"), required(m, path, "role")?)?,
            text: input::string(required(m, path, "text")?, &key(path, "text"))?,
            timestamp: input::ms(required(m, path, "timestamp")?, &key(path, "timestamp"))?,
            metadata: map(m, path, "metadata")?,
        })
    }
}

impl ClarificationContext {
    fn parse(v: &Value, path: &str) -> Result<ClarificationContext, Invalid> {
        let m = input::object(v, path)?;
        only(m, path, "field", &["purpose", "collected_info", "pending_questions", "origin"])?;
        Ok(ClarificationContext {
            purpose: input::choose::<ClarificationPurpose>(&key(path, "purpose"), required(m, path, "purpose")?)?,
            collected_info: map(m, path, "collected_info")?,
            pending_questions: strings(m, path, "pending_questions")?,
            origin: origin(m, path)?,
        })
    }
}

impl GapDetail {
    fn parse(v: &Value, path: &str) -> Result<GapDetail, Invalid> {
        let m = input::object(v, path)?;
        only(m, path, "field", &["required_capability", "missing_component", "alternatives"])?;
        Ok(GapDetail {
            required_capability: input::string(
                required(m, path, "required_capability")?,
                &key(path, "required_capability"),
            )?,
            missing_component: input::string(required(m, path, "missing_component")?, &key(path, "missing_component"))?,
            alternatives: strings(m, path, "alternatives")?,
        })
    }
}

fn extra(m: &Map<String, Value>, known: &[&str]) -> Map<String, Value> {
    input::map_of(m.iter().filter(|(k, _)| !known.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())))
}

impl DebugResult {
    const KNOWN: [&'static str; 6] = ["success", "errors", "warnings", "suggestions", "iteration_count", "timestamp"];

    fn parse(v: &Value, path: &str) -> Result<DebugResult, Invalid> {
        let m = input::object(v, path)?;
        Ok(DebugResult {
            success: input::boolean(required(m, path, "success")?, &key(path, "success"))?,
            errors: strings(m, path, "errors")?,
            warnings: strings(m, path, "warnings")?,
            suggestions: strings(m, path, "suggestions")?,
            iteration_count: get(m, "iteration_count")
                .map(|v| input::whole(v, &key(path, "iteration_count"), 0, i32::MAX.into()))
                .transpose()?
                .unwrap_or(0),
            timestamp: get(m, "timestamp").map(|v| input::ms(v, &key(path, "timestamp"))).transpose()?,
            extra: extra(m, &Self::KNOWN),
        })
    }
}

impl WorkflowContext {
    fn parse(v: &Value, path: &str) -> Result<WorkflowContext, Invalid> {
        let m = input::object(v, path)?;
        Ok(WorkflowContext {
            origin: origin(m, path)?,
            requirements: map(m, path, "requirements")?,
            extra: extra(m, &["origin", "requirements"]),
        })
    }
}

impl Conversation {
    fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("role", Some(self.role.as_str().into())),
            ("text", Some(self.text.as_str().into())),
            ("timestamp", Some(self.timestamp.into())),
            ("metadata", Some(Value::Object(self.metadata.clone()))),
        ]))
    }
}

impl ClarificationContext {
    fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("purpose", Some(self.purpose.as_str().into())),
            ("collected_info", Some(Value::Object(self.collected_info.clone()))),
            ("pending_questions", Some(texts(&self.pending_questions))),
            ("origin", self.origin.map(|o| o.as_str().into())),
        ]))
    }
}

impl GapDetail {
    fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("required_capability", Some(self.required_capability.as_str().into())),
            ("missing_component", Some(self.missing_component.as_str().into())),
            ("alternatives", Some(texts(&self.alternatives))),
        ]))
    }
}

impl DebugResult {
    fn to_json(&self) -> Value {
        object_with(
            vec![
                ("success", Some(self.success.into())),
                ("errors", Some(texts(&self.errors))),
                ("warnings", Some(texts(&self.warnings))),
                ("suggestions", Some(texts(&self.suggestions))),
                ("iteration_count", Some(self.iteration_count.into())),
                ("timestamp", self.timestamp.map(Value::from)),
            ],
            &self.extra,
        )
    }
}

impl WorkflowContext {
    fn to_json(&self) -> Value {
        object_with(
            vec![
                ("origin", self.origin.map(|o| o.as_str().into())),
                ("requirements", Some(Value::Object(self.requirements.clone()))),
            ],
            &self.extra,
        )
    }
}

/// Drops (or refuses) removed fields and refuses unknown ones; `path` names the object.
pub fn check_keys(m: &Map<String, Value>, path: &str, removed: Removed) -> Result<Map<String, Value>, StateError> {
    let mut out = Map::new();
    for (k, v) in m {
        if let Some((_, instead)) = REMOVED_FIELDS.iter().find(|(r, _)| r == k) {
            if removed == Removed::Ignore {
                continue;
            }
            return Err(StateError::invalid(
                key(path, k),
                format!("{} was removed from WorkflowState: {instead}", key(path, k)),
            ));
        }
        if !FIELDS.contains(&k.as_str()) {
            return Err(StateError::invalid(
                key(path, k),
                format!("{} is not a WorkflowState field; the fields are {}", key(path, k), FIELDS.join(", ")),
            ));
        }
        out.insert(k.clone(), v.clone());
    }
    Ok(out)
}

impl WorkflowState {
    /// A state from JSON. `session_id` is required; absent or null fields take the column
    /// defaults of the WorkflowState (stage `clarification`, gap_status `no_gap`, empty lists,
    /// debug_loop_count 0), and absent timestamps `now_ms`.
    pub fn parse(v: &Value, path: &str, removed: Removed, now_ms: i64) -> Result<WorkflowState, StateError> {
        let m = check_keys(input::object(v, path)?, path, removed)?;
        let p = |k: &str| key(path, k);
        let opt_text =
            |k: &str| -> Result<Option<String>, Invalid> { get(&m, k).map(|v| input::text(v, &p(k), 255)).transpose() };
        let created_at = get(&m, "created_at").map(|v| input::ms(v, &p("created_at"))).transpose()?.unwrap_or(now_ms);
        let stage = |k: &str| get(&m, k).map(|v| WorkflowStage::parse(v, &p(k))).transpose();
        Ok(WorkflowState {
            session_id: input::text(required(&m, path, "session_id")?, &p("session_id"), 255)?,
            user_id: opt_text("user_id")?,
            created_at,
            updated_at: get(&m, "updated_at")
                .map(|v| input::ms(v, &p("updated_at")))
                .transpose()?
                .unwrap_or(created_at),
            stage: stage("stage")?.unwrap_or(WorkflowStage::Clarification),
            previous_stage: stage("previous_stage")?,
            intent_summary: get(&m, "intent_summary")
                .map(|v| input::string(v, &p("intent_summary")))
                .transpose()?
                .unwrap_or_default(),
            conversations: list(get(&m, "conversations"), &p("conversations"), Conversation::parse)?,
            execution_history: strings(&m, path, "execution_history")?,
            clarification_context: get(&m, "clarification_context")
                .map(|v| ClarificationContext::parse(v, &p("clarification_context")))
                .transpose()?,
            gap_status: get(&m, "gap_status")
                .map(|v| input::choose::<GapStatus>(&p("gap_status"), v))
                .transpose()?
                .unwrap_or(GapStatus::NoGap),
            identified_gaps: list(get(&m, "identified_gaps"), &p("identified_gaps"), GapDetail::parse)?,
            current_workflow: m.get("current_workflow").cloned().unwrap_or(Value::Null),
            template_workflow: m.get("template_workflow").cloned().unwrap_or(Value::Null),
            workflow_context: get(&m, "workflow_context")
                .map(|v| WorkflowContext::parse(v, &p("workflow_context")))
                .transpose()?,
            debug_result: get(&m, "debug_result").map(|v| DebugResult::parse(v, &p("debug_result"))).transpose()?,
            debug_loop_count: get(&m, "debug_loop_count")
                .map(|v| input::whole(v, &p("debug_loop_count"), 0, i32::MAX.into()))
                .transpose()?
                .unwrap_or(0),
            template_id: opt_text("template_id")?,
        })
    }

    pub fn to_json(&self) -> Value {
        let stage = |s: Option<WorkflowStage>| s.map_or(Value::Null, |s| s.as_str().into());
        let opt = |v: Option<Value>| v.unwrap_or(Value::Null);
        Value::Object(object(vec![
            ("session_id", Some(self.session_id.as_str().into())),
            ("user_id", Some(opt_text(&self.user_id))),
            ("created_at", Some(self.created_at.into())),
            ("updated_at", Some(self.updated_at.into())),
            ("stage", Some(self.stage.as_str().into())),
            ("previous_stage", Some(stage(self.previous_stage))),
            ("intent_summary", Some(self.intent_summary.as_str().into())),
            ("conversations", Some(Value::Array(self.conversations.iter().map(Conversation::to_json).collect()))),
            ("execution_history", Some(texts(&self.execution_history))),
            (
                "clarification_context",
                Some(opt(self.clarification_context.as_ref().map(ClarificationContext::to_json))),
            ),
            ("gap_status", Some(self.gap_status.as_str().into())),
            ("identified_gaps", Some(Value::Array(self.identified_gaps.iter().map(GapDetail::to_json).collect()))),
            ("current_workflow", Some(self.current_workflow.clone())),
            ("template_workflow", Some(self.template_workflow.clone())),
            ("workflow_context", Some(opt(self.workflow_context.as_ref().map(WorkflowContext::to_json)))),
            ("debug_result", Some(opt(self.debug_result.as_ref().map(DebugResult::to_json)))),
            ("debug_loop_count", Some(self.debug_loop_count.into())),
            ("template_id", Some(opt_text(&self.template_id))),
        ]))
    }

    /// A row the server returned (`id` and any extra columns dropped). A row that does not
    /// fit the WorkflowState (written by other code) is reported as a server error naming the field.
    pub fn from_row(row: &Value) -> Result<WorkflowState, StateError> {
        let mut row = input::object(row, "row").map_err(|e| StateError::Server(e.to_string()))?.clone();
        row.retain(|k, _| FIELDS.contains(&k.as_str()));
        WorkflowState::parse(&Value::Object(row), "row", Removed::Reject, 0).map_err(|e| {
            StateError::Server(format!("a workflow_agent_states row does not match the WorkflowState: {e}"))
        })
    }
}

/// Fields an update may not set: the identity, the timestamps, and previous_stage, which
/// the store moves itself when the stage changes.
pub const MANAGED: [&str; 5] = ["session_id", "user_id", "created_at", "updated_at", "previous_stage"];

/// A partial update, checked field by field with the same rules as a whole state: the
/// normalized JSON of each given field (null clears a nullable field, resets a defaulted one).
pub fn parse_patch(v: &Value, path: &str, removed: Removed) -> Result<Map<String, Value>, StateError> {
    let m = check_keys(input::object(v, path)?, path, removed)?;
    if let Some(k) = m.keys().find(|k| MANAGED.contains(&k.as_str())) {
        return Err(StateError::invalid(
            key(path, k),
            format!("{} cannot be changed by an update: the store manages it", key(path, k)),
        ));
    }
    if m.is_empty() {
        return Err(StateError::invalid(path, format!("{path} must change at least one field")));
    }
    if m.get("stage").is_some_and(Value::is_null) {
        return Err(StateError::invalid(key(path, "stage"), format!("{} must not be null", key(path, "stage"))));
    }
    // Parse the patch as a whole state around a placeholder identity: one set of rules.
    let mut whole = m.clone();
    whole.insert("session_id".into(), Value::String("patch".into()));
    let parsed = WorkflowState::parse(&Value::Object(whole), path, removed, 0)?.to_json();
    Ok(input::map_of(m.keys().map(|k| (k.clone(), parsed[k].clone()))))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testgen::Gen;

    fn field(v: Value) -> String {
        WorkflowState::parse(&v, "state", Removed::Reject, 5).unwrap_err().field().unwrap().to_owned()
    }

    #[test]
    fn defaults_are_the_columns_defaults() {
        let s =
            WorkflowState::parse(&json!({"session_id": "s1"}), "state", Removed::Reject, 1_700_000_000_000).unwrap();
        assert_eq!(
            s.to_json(),
            json!({
                "session_id": "s1", "user_id": null, "created_at": 1_700_000_000_000i64, "updated_at": 1_700_000_000_000i64,
                "stage": "clarification", "previous_stage": null, "intent_summary": "", "conversations": [],
                "execution_history": [], "clarification_context": null, "gap_status": "no_gap", "identified_gaps": [],
                "current_workflow": null, "template_workflow": null, "workflow_context": null, "debug_result": null,
                "debug_loop_count": 0, "template_id": null,
            })
        );
        let s =
            WorkflowState::parse(&json!({"session_id": "s1", "created_at": 10}), "state", Removed::Reject, 99).unwrap();
        assert_eq!((s.created_at, s.updated_at), (10, 10), "updated_at defaults to created_at");
    }

    #[test]
    fn enums_use_the_specs_values_and_completed_not_end() {
        for stage in WorkflowStage::ALL {
            let s =
                WorkflowState::parse(&json!({"session_id": "s", "stage": stage.as_str()}), "state", Removed::Reject, 0)
                    .unwrap();
            assert_eq!(s.stage, *stage);
        }
        let e =
            WorkflowState::parse(&json!({"session_id": "s", "stage": "end"}), "state", Removed::Reject, 0).unwrap_err();
        assert_eq!(e.field(), Some("state.stage"));
        assert!(e.to_string().contains("\"completed\""), "{e}");
        assert_eq!(field(json!({"session_id": "s", "stage": "COMPLETED"})), "state.stage");
        assert_eq!(field(json!({"session_id": "s", "previous_stage": "end"})), "state.previous_stage");
        assert_eq!(field(json!({"session_id": "s", "gap_status": "gap"})), "state.gap_status");
    }

    #[test]
    fn malformed_sub_structures_name_the_path() {
        let base = |k: &str, v: Value| {
            let mut s = json!({"session_id": "s"});
            s[k] = v;
            field(s)
        };
        assert_eq!(
            base(
                "conversations",
                json!([{"role": "user", "text": "a", "timestamp": 1}, {"role": "bot", "text": "b", "timestamp": 2}])
            ),
            "state.conversations[1].role"
        );
        assert_eq!(
            base("conversations", json!([{"role": "user", "text": "a", "timestamp": "2024-01-01"}])),
            "state.conversations[0].timestamp"
        );
        assert_eq!(base("conversations", json!([{"role": "user", "text": "a"}])), "state.conversations[0].timestamp");
        assert_eq!(
            base("conversations", json!([{"role": "user", "content": "a", "timestamp": 1}])),
            "state.conversations[0].content"
        );
        assert_eq!(base("conversations", json!({})), "state.conversations");
        assert_eq!(base("clarification_context", json!({"purpose": "chat"})), "state.clarification_context.purpose");
        assert_eq!(
            base("clarification_context", json!({"pending_questions": []})),
            "state.clarification_context.purpose"
        );
        assert_eq!(
            base("clarification_context", json!({"purpose": "initial_intent", "pending_questions": [1]})),
            "state.clarification_context.pending_questions[0]"
        );
        assert_eq!(
            base("clarification_context", json!({"purpose": "initial_intent", "origin": "fork"})),
            "state.clarification_context.origin"
        );
        assert_eq!(
            base("clarification_context", json!({"purpose": "initial_intent", "questions": []})),
            "state.clarification_context.questions"
        );
        assert_eq!(
            base(
                "identified_gaps",
                json!([{"required_capability": "x", "missing_component": "y", "alternatives": "z"}])
            ),
            "state.identified_gaps[0].alternatives"
        );
        assert_eq!(
            base("identified_gaps", json!([{"required_capability": "x"}])),
            "state.identified_gaps[0].missing_component"
        );
        assert_eq!(base("debug_result", json!({"errors": []})), "state.debug_result.success");
        assert_eq!(
            base("debug_result", json!({"success": true, "iteration_count": -1})),
            "state.debug_result.iteration_count"
        );
        assert_eq!(base("debug_result", json!({"success": true, "timestamp": 1.5})), "state.debug_result.timestamp");
        assert_eq!(base("workflow_context", json!({"origin": "clone"})), "state.workflow_context.origin");
        assert_eq!(base("workflow_context", json!({"requirements": []})), "state.workflow_context.requirements");
        assert_eq!(base("workflow_context", json!("create")), "state.workflow_context");
        assert_eq!(base("debug_loop_count", json!(2.5)), "state.debug_loop_count");
        assert_eq!(base("created_at", json!("2024-01-01T00:00:00Z")), "state.created_at");
        assert_eq!(base("template_id", json!("")), "state.template_id");
        assert_eq!(field(json!({"stage": "debug"})), "state.session_id");
        assert_eq!(field(json!({"session_id": "x".repeat(256)})), "state.session_id");
        assert_eq!(field(json!({"session_id": "s", "mood": "ok"})), "state.mood");
    }

    #[test]
    fn removed_fields_are_refused_with_their_replacement_or_ignored() {
        for (k, instead) in REMOVED_FIELDS {
            let e = WorkflowState::parse(&json!({"session_id": "s", k: 1}), "state", Removed::Reject, 0).unwrap_err();
            assert_eq!(e.field(), Some(format!("state.{k}").as_str()));
            assert!(e.to_string().contains(instead), "{e}");
            let ok = WorkflowState::parse(&json!({"session_id": "s", k: 1}), "state", Removed::Ignore, 0).unwrap();
            assert!(ok.to_json().get(k).is_none());
        }
    }

    #[test]
    fn dict_sub_structures_keep_unknown_keys() {
        let s = WorkflowState::parse(
            &json!({"session_id": "s", "debug_result": {"success": false, "node_id": "n3"}, "workflow_context": {"origin": "edit", "source": "ui"}}),
            "state",
            Removed::Reject,
            0,
        )
        .unwrap()
        .to_json();
        assert_eq!(
            s["debug_result"],
            json!({"success": false, "errors": [], "warnings": [], "suggestions": [], "iteration_count": 0, "node_id": "n3"})
        );
        assert_eq!(s["workflow_context"], json!({"origin": "edit", "requirements": {}, "source": "ui"}));
    }

    #[test]
    fn patches_are_checked_per_field_and_cannot_touch_managed_fields() {
        let p = parse_patch(
            &json!({"stage": "debug", "debug_result": {"success": true}, "template_id": null}),
            "patch",
            Removed::Reject,
        )
        .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"stage": "debug", "template_id": null, "debug_result": {"success": true, "errors": [], "warnings": [], "suggestions": [], "iteration_count": 0}})
        );
        let p = parse_patch(&json!({"identified_gaps": null}), "patch", Removed::Reject).unwrap();
        assert_eq!(p["identified_gaps"], json!([]), "null resets a defaulted field");
        for k in MANAGED {
            let e = parse_patch(&json!({k: "x"}), "patch", Removed::Reject).unwrap_err();
            assert_eq!(e.field(), Some(format!("patch.{k}").as_str()));
        }
        let field = |v: Value| parse_patch(&v, "patch", Removed::Reject).unwrap_err().field().unwrap().to_owned();
        assert_eq!(field(json!({})), "patch");
        assert_eq!(field(json!({"stage": null})), "patch.stage");
        assert_eq!(field(json!({"stage": "end"})), "patch.stage");
        assert_eq!(field(json!({"user_message": "hi"})), "patch.user_message");
        assert_eq!(field(json!({"conversations": [{"role": "user"}]})), "patch.conversations[0].text");
        assert_eq!(field(json!("stage")), "patch");
        assert_eq!(
            parse_patch(&json!({"user_message": "hi", "stage": "debug"}), "patch", Removed::Ignore).unwrap().len(),
            1
        );
    }

    #[test]
    fn rows_that_break_the_spec_are_server_errors() {
        let row = json!({"id": "x", "session_id": "s", "created_at": 1, "updated_at": 1, "stage": "end", "conversations": []});
        assert!(matches!(WorkflowState::from_row(&row), Err(StateError::Server(m)) if m.contains("row.stage")));
        let row = json!({"id": "x", "session_id": "s", "created_at": 1, "updated_at": 2, "stage": "debug", "intent_summary": null, "conversations": [], "new_column": 1});
        let s = WorkflowState::from_row(&row).unwrap();
        assert_eq!((s.stage, s.intent_summary.as_str(), s.updated_at), (WorkflowStage::Debug, "", 2));
    }

    /// A generated state with every field filled in some way.
    pub fn state(g: &mut Gen) -> WorkflowState {
        let stage = |g: &mut Gen| g.pick(WorkflowStage::ALL);
        let strings = |g: &mut Gen| g.texts(3);
        WorkflowState {
            session_id: g.word(30),
            user_id: g.chance(50).then(|| g.word(36)),
            created_at: g.ms(),
            updated_at: g.ms(),
            stage: stage(g),
            previous_stage: g.chance(50).then(|| stage(g)),
            intent_summary: g.text(40),
            conversations: (0..g.below(4))
                .map(|_| Conversation {
                    role: g.pick(Role::ALL),
                    text: g.text(30),
                    timestamp: g.ms(),
                    metadata: g.object(2),
                })
                .collect(),
            execution_history: strings(g),
            clarification_context: g.chance(50).then(|| ClarificationContext {
                purpose: g.pick(ClarificationPurpose::ALL),
                collected_info: g.object(2),
                pending_questions: strings(g),
                origin: g.chance(50).then(|| g.pick(Origin::ALL)),
            }),
            gap_status: g.pick(GapStatus::ALL),
            identified_gaps: (0..g.below(3))
                .map(|_| GapDetail {
                    required_capability: g.text(10),
                    missing_component: g.text(10),
                    alternatives: strings(g),
                })
                .collect(),
            current_workflow: g.value(3),
            template_workflow: g.value(2),
            workflow_context: g.chance(50).then(|| WorkflowContext {
                origin: g.chance(50).then(|| g.pick(Origin::ALL)),
                requirements: g.object(2),
                extra: (0..g.below(2)).map(|_| (format!("x_{}", g.text(4)), g.value(1))).collect(),
            }),
            debug_result: g.chance(50).then(|| DebugResult {
                success: g.chance(50),
                errors: strings(g),
                warnings: strings(g),
                suggestions: strings(g),
                iteration_count: g.below(10) as i64,
                timestamp: g.chance(50).then(|| g.ms()),
                extra: (0..g.below(2)).map(|_| (format!("x_{}", g.text(4)), g.value(1))).collect(),
            }),
            debug_loop_count: g.below(100) as i64,
            template_id: g.chance(50).then(|| g.word(20)),
        }
    }

    #[test]
    fn generated_states_round_trip_through_json() {
        for seed in 0..500 {
            let mut g = Gen::new(seed);
            let s = state(&mut g);
            let v = s.to_json();
            assert_eq!(WorkflowState::parse(&v, "state", Removed::Reject, 0).as_ref(), Ok(&s), "seed {seed}: {v}");
            // The same row as the database returns it: with an id, and through JSON text.
            let mut row: Value = serde_json::from_str(&v.to_string()).unwrap();
            row["id"] = json!("9d7c1d8e-0000-4000-8000-000000000000");
            assert_eq!(WorkflowState::from_row(&row).as_ref(), Ok(&s), "seed {seed}");
            // Every field alone is a valid patch, normalized to what the state holds.
            for (k, val) in v.as_object().unwrap() {
                if MANAGED.contains(&k.as_str()) {
                    continue;
                }
                let p = parse_patch(&json!({ k: val }), "patch", Removed::Reject).unwrap();
                assert_eq!(&p[k], val, "seed {seed}: {k}");
            }
        }
    }
}
