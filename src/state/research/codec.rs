//! TK9 research state: the `ResearchState` and `SessionState` codecs, TK9's
//! merge (`{**state, **updates}`), state validation (query, tone, language) and
//! phase-transition validation (its requirement table), and the draft phases.

use serde_json::{Map, Value};

use crate::error::Invalid;
use crate::input::Choice;
use crate::input::{self, MAX_SAFE_INTEGER, get, key, required};
use crate::json::{object, object_with, texts};
use crate::state::StateError;

/// The fields of TK9's `ResearchState` TypedDict.
pub const RESEARCH_FIELDS: [&str; 17] = [
    "query",
    "tone",
    "language",
    "guidelines",
    "research_plan",
    "methodology",
    "research_sections",
    "research_data",
    "draft_report",
    "final_report",
    "published_files",
    "translated_report",
    "review_result",
    "revision_notes",
    "task_id",
    "output_dir",
    "errors",
];

/// `validate_state`: what every research state needs.
pub const REQUIRED_FIELDS: [&str; 3] = ["query", "tone", "language"];

/// `validate_transition`'s requirement table: fields that must be present before a phase.
/// Phases not listed need nothing.
pub const TRANSITION_REQUIREMENTS: [(&str, &[&str]); 4] = [
    ("editor", &["query", "tone"]),
    ("researcher", &["research_plan"]),
    ("writer", &["research_sections"]),
    ("reviewer", &["draft_report"]),
];

/// `ResearchState` (`total=False`: every field optional). Typed where the TypedDict types
/// it; keys it does not declare (agents add their own, e.g. `agent_output`) are kept as
/// they are, in `extra`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResearchState {
    pub query: Option<String>,
    pub tone: Option<String>,
    pub language: Option<String>,
    pub guidelines: Option<Vec<String>>,
    pub research_plan: Option<Vec<Map<String, Value>>>,
    pub methodology: Option<String>,
    pub research_sections: Option<Vec<Map<String, Value>>>,
    pub research_data: Option<Map<String, Value>>,
    pub draft_report: Option<String>,
    pub final_report: Option<String>,
    /// File name → path, every value a string (checked by `parse`). A JSON object rather
    /// than a map of strings: one map type in the module, not a second copy of its code.
    pub published_files: Option<Map<String, Value>>,
    /// `Optional[str]`: present and null is allowed (`Some(None)`).
    pub translated_report: Option<Option<String>>,
    pub review_result: Option<Map<String, Value>>,
    pub revision_notes: Option<Vec<String>>,
    pub task_id: Option<i64>,
    pub output_dir: Option<String>,
    pub errors: Option<Vec<String>>,
    pub extra: Map<String, Value>,
}

impl ResearchState {
    /// Reads a state; each declared field must have its declared type (null only for
    /// `translated_report`), errors name the field's path.
    pub fn parse(v: &Value, path: &str) -> Result<ResearchState, StateError> {
        let m = input::object(v, path)?;
        let mut s = ResearchState::default();
        for (k, v) in m {
            let p = key(path, k);
            let text = || input::string(v, &p);
            match k.as_str() {
                "query" => s.query = Some(text()?),
                "tone" => s.tone = Some(text()?),
                "language" => s.language = Some(text()?),
                "guidelines" => s.guidelines = Some(input::strings(v, &p)?),
                "research_plan" => s.research_plan = Some(input::objects(v, &p)?),
                "methodology" => s.methodology = Some(text()?),
                "research_sections" => s.research_sections = Some(input::objects(v, &p)?),
                "research_data" => s.research_data = Some(input::object(v, &p)?.clone()),
                "draft_report" => s.draft_report = Some(text()?),
                "final_report" => s.final_report = Some(text()?),
                "published_files" => {
                    let files = input::object(v, &p)?;
                    // Inserted one by one rather than collected (see input::map_of).
                    let mut out = Map::new();
                    for (name, path_v) in files {
                        out.insert(name.clone(), Value::String(input::string(path_v, &key(&p, name))?));
                    }
                    s.published_files = Some(out);
                }
                "translated_report" => s.translated_report = Some(if v.is_null() { None } else { Some(text()?) }),
                "review_result" => s.review_result = Some(input::object(v, &p)?.clone()),
                "revision_notes" => s.revision_notes = Some(input::strings(v, &p)?),
                "task_id" => s.task_id = Some(input::whole(v, &p, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)?),
                "output_dir" => s.output_dir = Some(text()?),
                "errors" => s.errors = Some(input::strings(v, &p)?),
                _ => {
                    s.extra.insert(k.clone(), v.clone());
                }
            }
        }
        Ok(s)
    }

    /// The state as JSON: the fields it has (an absent field stays absent), then `extra`.
    pub fn to_json(&self) -> Value {
        let text = |v: &Option<String>| v.as_deref().map(Value::from);
        let list = |v: &Option<Vec<String>>| v.as_deref().map(texts);
        let objects = |v: &Option<Vec<Map<String, Value>>>| v.as_deref().map(Value::from);
        let map = |v: &Option<Map<String, Value>>| v.clone().map(Value::Object);
        object_with(
            vec![
                ("query", text(&self.query)),
                ("tone", text(&self.tone)),
                ("language", text(&self.language)),
                ("guidelines", list(&self.guidelines)),
                ("research_plan", objects(&self.research_plan)),
                ("methodology", text(&self.methodology)),
                ("research_sections", objects(&self.research_sections)),
                ("research_data", map(&self.research_data)),
                ("draft_report", text(&self.draft_report)),
                ("final_report", text(&self.final_report)),
                ("published_files", map(&self.published_files)),
                ("translated_report", self.translated_report.as_ref().map(crate::json::opt_text)),
                ("review_result", map(&self.review_result)),
                ("revision_notes", list(&self.revision_notes)),
                ("task_id", self.task_id.map(Value::from)),
                ("output_dir", text(&self.output_dir)),
                ("errors", list(&self.errors)),
            ],
            &self.extra,
        )
    }
}

/// TK9's merge: `{**state, **updates}`. Shallow: an update replaces a field's whole
/// value (lists and dicts are not merged), null included; other fields are kept; neither
/// input changes. Both are checked as ResearchStates first.
pub fn merge(state: &Value, updates: &Value) -> Result<Value, StateError> {
    ResearchState::parse(state, "state")?;
    ResearchState::parse(updates, "updates")?;
    let mut merged = state.as_object().cloned().unwrap_or_default();
    for (k, v) in updates.as_object().into_iter().flatten() {
        merged.insert(k.clone(), v.clone());
    }
    Ok(Value::Object(merged))
}

/// TK9's `validate_state`, with its reasons: the required fields that are missing
/// (presence, as Python's `field in state`) and every field of the wrong type.
pub fn validate(state: &Value) -> Result<Value, StateError> {
    let m = input::object(state, "state")?;
    let missing: Vec<&str> = REQUIRED_FIELDS.iter().copied().filter(|f| !m.contains_key(*f)).collect();
    let errors: Vec<Value> = m
        .iter()
        .filter_map(|(k, v)| {
            let one = Value::Object(input::map_of([(k.clone(), v.clone())]));
            ResearchState::parse(&one, "state").err()
        })
        .map(|e| value!({ "field": e.field().unwrap_or("state"), "message": e.to_string() }))
        .collect();
    Ok(value!({ "valid": missing.is_empty() && errors.is_empty(), "missing": missing, "errors": errors }))
}

/// TK9's `validate_transition(from_phase, to_phase, state)`: the fields `to` requires
/// must be present. As in TK9, `from` does not change the answer; it is checked to
/// be a phase name so that swapped or missing arguments are caught.
pub fn validate_transition(from: &Value, to: &Value, state: &Value) -> Result<Value, StateError> {
    input::text(from, "fromPhase", 100)?;
    let to = input::text(to, "toPhase", 100)?;
    let m = input::object(state, "state")?;
    let required: &[&str] = TRANSITION_REQUIREMENTS.iter().find(|(p, _)| *p == to).map_or(&[], |(_, r)| r);
    let missing: Vec<&str> = required.iter().copied().filter(|f| !m.contains_key(*f)).collect();
    Ok(value!({ "valid": missing.is_empty(), "required": required, "missing": missing }))
}

string_enum!(
    /// The draft phases: the original's `drafts/<phase>/` directories.
    DraftPhase {
        Browsing = "1_browsing",
        Planning = "2_planning",
        Research = "3_research",
        Writing = "4_writing",
        Reviewing = "5_reviewing",
        Revision = "6_revision",
        Publishing = "7_publishing",
    }
);

impl DraftPhase {
    /// `"4_writing"`, or the name without its number (`"writing"`).
    pub fn parse(v: &Value, path: &str) -> Result<DraftPhase, Invalid> {
        let s = v.as_str().unwrap_or("");
        Self::ALL.iter().copied().find(|p| p.as_str() == s || &p.as_str()[2..] == s).ok_or_else(|| {
            input::expected(path, &format!("one of {} (or the name without its number)", <Self as Choice>::names()), v)
        })
    }
}

/// TK9's `SessionState`, with times as ms since the epoch.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionState {
    pub session_id: String,
    pub query: String,
    pub current_phase: String,
    pub completed_phases: Vec<String>,
    pub research_state: ResearchState,
    pub start_time: i64,
    pub last_update: i64,
}

pub const SESSION_FIELDS: [&str; 7] =
    ["session_id", "query", "current_phase", "completed_phases", "research_state", "start_time", "last_update"];

impl SessionState {
    /// `start_time` and `last_update` default to `now_ms` (the store sets last_update on
    /// every save anyway); `completed_phases` and `research_state` to empty.
    pub fn parse(v: &Value, path: &str, now_ms: i64) -> Result<SessionState, StateError> {
        let m = input::object(v, path)?;
        input::only(m, path, "field", &SESSION_FIELDS)?;
        let p = |k: &str| key(path, k);
        let query = input::text(required(m, path, "query")?, &p("query"), 100_000)?;
        let phases = get(m, "completed_phases").map(|v| input::strings(v, &p("completed_phases"))).transpose()?;
        for (i, phase) in phases.iter().flatten().enumerate() {
            if phase.trim().is_empty() {
                let f = input::index(&p("completed_phases"), i);
                return Err(StateError::invalid(f.clone(), format!("{f} must not be empty")));
            }
        }
        let start_time = get(m, "start_time").map(|v| input::ms(v, &p("start_time"))).transpose()?.unwrap_or(now_ms);
        Ok(SessionState {
            session_id: input::text(required(m, path, "session_id")?, &p("session_id"), 255)?,
            query,
            current_phase: input::text(required(m, path, "current_phase")?, &p("current_phase"), 100)?,
            completed_phases: phases.unwrap_or_default(),
            research_state: get(m, "research_state")
                .map(|v| ResearchState::parse(v, &p("research_state")))
                .transpose()?
                .unwrap_or_default(),
            start_time,
            last_update: get(m, "last_update").map(|v| input::ms(v, &p("last_update"))).transpose()?.unwrap_or(now_ms),
        })
    }

    pub fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("session_id", Some(self.session_id.as_str().into())),
            ("query", Some(self.query.as_str().into())),
            ("current_phase", Some(self.current_phase.as_str().into())),
            ("completed_phases", Some(texts(&self.completed_phases))),
            ("research_state", Some(self.research_state.to_json())),
            ("start_time", Some(self.start_time.into())),
            ("last_update", Some(self.last_update.into())),
        ]))
    }

    /// A `research_sessions` row the server returned.
    pub fn from_row(row: &Value) -> Result<SessionState, StateError> {
        let mut row = input::object(row, "row").map_err(|e| StateError::Server(e.to_string()))?.clone();
        row.retain(|k, _| SESSION_FIELDS.contains(&k.as_str()));
        SessionState::parse(&Value::Object(row), "row", 0)
            .map_err(|e| StateError::Server(format!("a research_sessions row does not match SessionState: {e}")))
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::testgen::Gen;
    use serde_json::json;

    /// A generated ResearchState with a random subset of fields and extra keys.
    pub fn research_state(g: &mut Gen) -> ResearchState {
        let mut s = ResearchState::default();
        let some = |g: &mut Gen| g.chance(50);
        let objects = |g: &mut Gen| (0..g.below(3)).map(|_| g.object(2)).collect::<Vec<_>>();
        if some(g) {
            s.query = Some(g.text(20));
        }
        if some(g) {
            s.tone = Some(g.pick(&["objective", "formal", "analytical", ""]).to_owned());
        }
        if some(g) {
            s.language = Some(g.pick(&["en", "vi", "de"]).to_owned());
        }
        if some(g) {
            s.guidelines = Some(g.texts(3));
        }
        if some(g) {
            s.research_plan = Some(objects(g));
        }
        if some(g) {
            s.methodology = Some(g.text(20));
        }
        if some(g) {
            s.research_sections = Some(objects(g));
        }
        if some(g) {
            s.research_data = Some(g.object(3));
        }
        if some(g) {
            s.draft_report = Some(g.text(60));
        }
        if some(g) {
            s.final_report = Some(g.text(60));
        }
        if some(g) {
            s.published_files =
                Some((0..g.below(3)).map(|_| (g.pick(&["md", "pdf", "docx"]).to_owned(), json!(g.text(20)))).collect());
        }
        if some(g) {
            s.translated_report = Some(g.chance(50).then(|| g.text(20)));
        }
        if some(g) {
            s.review_result = Some(g.object(2));
        }
        if some(g) {
            s.revision_notes = Some(g.texts(3));
        }
        if some(g) {
            s.task_id = Some(g.next() as i64 % MAX_SAFE_INTEGER);
        }
        if some(g) {
            s.output_dir = Some(g.text(20));
        }
        if some(g) {
            s.errors = Some(g.texts(2));
        }
        for _ in 0..g.below(3) {
            s.extra.insert(format!("agent_{}", g.text(5)), g.value(2));
        }
        s
    }

    #[test]
    fn generated_research_states_round_trip() {
        for seed in 0..500 {
            let mut g = Gen::new(seed);
            let s = research_state(&mut g);
            let v = s.to_json();
            assert_eq!(ResearchState::parse(&v, "state").as_ref(), Ok(&s), "seed {seed}: {v}");
            let text: Value = serde_json::from_str(&v.to_string()).unwrap();
            assert_eq!(ResearchState::parse(&text, "state").as_ref(), Ok(&s), "seed {seed}: through JSON text");
        }
    }

    #[test]
    fn merge_is_spec_001s_shallow_dict_merge() {
        for seed in 0..300 {
            let mut g = Gen::new(seed);
            let (a, b, c) =
                (research_state(&mut g).to_json(), research_state(&mut g).to_json(), research_state(&mut g).to_json());
            let ab = merge(&a, &b).unwrap();
            // {**a, **b}: every key of b with b's value, every other key of a with a's.
            for (k, v) in ab.as_object().unwrap() {
                let expected = b.get(k).or_else(|| a.get(k)).unwrap();
                assert_eq!(v, expected, "seed {seed}: {k}");
            }
            assert_eq!(
                ab.as_object().unwrap().len(),
                a.as_object()
                    .unwrap()
                    .keys()
                    .chain(b.as_object().unwrap().keys())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len()
            );
            assert_eq!(merge(&a, &json!({})).unwrap(), a, "seed {seed}: empty update is a no-op");
            assert_eq!(merge(&a, &a).unwrap(), a, "seed {seed}: idempotent");
            assert_eq!(
                merge(&ab, &c).unwrap(),
                merge(&a, &merge(&b, &c).unwrap()).unwrap(),
                "seed {seed}: associative"
            );
            // The merged state is itself a valid state.
            ResearchState::parse(&ab, "state").unwrap();
        }
    }

    #[test]
    fn merge_replaces_nested_values_and_checks_types() {
        let state = json!({"query": "AI", "research_data": {"a": 1, "b": 2}, "guidelines": ["x"], "review_result": {"needs_revision": true}});
        let merged = merge(
            &state,
            &json!({"research_data": {"c": 3}, "guidelines": [], "agent_output": "done", "translated_report": null}),
        )
        .unwrap();
        assert_eq!(
            merged,
            json!({"query": "AI", "research_data": {"c": 3}, "guidelines": [], "review_result": {"needs_revision": true}, "agent_output": "done", "translated_report": null})
        );
        assert_eq!(state["research_data"], json!({"a": 1, "b": 2}), "inputs unchanged");
        assert_eq!(merge(&state, &json!({"task_id": "7"})).unwrap_err().field(), Some("updates.task_id"));
        assert_eq!(merge(&state, &json!({"query": null})).unwrap_err().field(), Some("updates.query"));
        assert_eq!(
            merge(&json!({"research_plan": [1]}), &json!({})).unwrap_err().field(),
            Some("state.research_plan[0]")
        );
        assert_eq!(
            merge(&state, &json!({"published_files": {"md": 1}})).unwrap_err().field(),
            Some("updates.published_files.md")
        );
        assert_eq!(merge(&state, &json!([])).unwrap_err().field(), Some("updates"));
    }

    #[test]
    fn validate_state_reports_missing_required_fields_and_bad_types() {
        assert_eq!(
            validate(&json!({"query": "AI", "tone": "objective", "language": "en"})).unwrap()["valid"],
            json!(true)
        );
        let r = validate(&json!({"query": "AI", "task_id": 1.5, "errors": "none"})).unwrap();
        assert_eq!(r["valid"], json!(false));
        assert_eq!(r["missing"], json!(["tone", "language"]));
        let fields: Vec<&str> = r["errors"].as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap()).collect();
        assert_eq!(
            fields,
            ["state.task_id", "state.errors"],
            "every bad field, in the state's order, not only the first"
        );
        // Presence, as Python's `field in state`: an empty tone is present.
        assert_eq!(validate(&json!({"query": "", "tone": "", "language": ""})).unwrap()["valid"], json!(true));
        assert_eq!(validate(&json!("AI")).unwrap_err().field(), Some("state"));
    }

    #[test]
    fn validate_transition_uses_the_requirement_table() {
        let state = json!({"query": "AI", "tone": "objective", "research_plan": []});
        let check = |to: &str, s: &Value| validate_transition(&json!("x"), &json!(to), s).unwrap();
        assert_eq!(check("editor", &state), json!({"valid": true, "required": ["query", "tone"], "missing": []}));
        assert_eq!(check("researcher", &state)["valid"], json!(true));
        assert_eq!(
            check("writer", &state),
            json!({"valid": false, "required": ["research_sections"], "missing": ["research_sections"]})
        );
        assert_eq!(check("reviewer", &json!({}))["missing"], json!(["draft_report"]));
        assert_eq!(
            check("publisher", &json!({})),
            json!({"valid": true, "required": [], "missing": []}),
            "unlisted phases need nothing"
        );
        assert_eq!(check("editor", &json!({"query": "AI"}))["missing"], json!(["tone"]));
        assert_eq!(validate_transition(&json!(""), &json!("writer"), &state).unwrap_err().field(), Some("fromPhase"));
        assert_eq!(validate_transition(&json!("a"), &Value::Null, &state).unwrap_err().field(), Some("toPhase"));
        assert_eq!(validate_transition(&json!("a"), &json!("b"), &json!(null)).unwrap_err().field(), Some("state"));
    }

    #[test]
    fn draft_phases_accept_numbered_and_bare_names() {
        for &p in DraftPhase::ALL {
            assert_eq!(DraftPhase::parse(&json!(p.as_str()), "phase"), Ok(p));
            assert_eq!(DraftPhase::parse(&json!(&p.as_str()[2..]), "phase"), Ok(p));
        }
        for bad in [json!("8_extra"), json!("Writing"), json!("4_"), json!(4), json!("")] {
            assert_eq!(DraftPhase::parse(&bad, "phase").unwrap_err().field, "phase", "{bad}");
        }
    }

    #[test]
    fn sessions_round_trip_and_refuse_bad_fields() {
        for seed in 0..200 {
            let mut g = Gen::new(seed);
            let s = SessionState {
                session_id: g.word(40),
                query: g.word(40),
                current_phase: g.word(20),
                completed_phases: (0..g.below(4)).map(|_| g.word(10)).collect(),
                research_state: research_state(&mut g),
                start_time: g.ms(),
                last_update: g.ms(),
            };
            assert_eq!(SessionState::parse(&s.to_json(), "session", 0).as_ref(), Ok(&s), "seed {seed}");
            let mut row = s.to_json();
            row["user_id"] = json!("someone");
            assert_eq!(SessionState::from_row(&row).as_ref(), Ok(&s), "seed {seed}: row");
        }
        let s =
            SessionState::parse(&json!({"session_id": "s", "query": "AI", "current_phase": "browsing"}), "session", 42)
                .unwrap();
        assert_eq!((s.start_time, s.last_update, s.completed_phases.len()), (42, 42, 0));
        let field = |v: Value| SessionState::parse(&v, "session", 0).unwrap_err().field().unwrap().to_owned();
        assert_eq!(field(json!({"query": "AI", "current_phase": "p"})), "session.session_id");
        assert_eq!(field(json!({"session_id": "s", "query": " ", "current_phase": "p"})), "session.query");
        assert_eq!(field(json!({"session_id": "s", "query": "q"})), "session.current_phase");
        assert_eq!(
            field(json!({"session_id": "s", "query": "q", "current_phase": "p", "completed_phases": ["a", ""]})),
            "session.completed_phases[1]"
        );
        assert_eq!(
            field(json!({"session_id": "s", "query": "q", "current_phase": "p", "research_state": {"tone": 1}})),
            "session.research_state.tone"
        );
        assert_eq!(
            field(json!({"session_id": "s", "query": "q", "current_phase": "p", "start_time": "2024"})),
            "session.start_time"
        );
        assert_eq!(field(json!({"session_id": "s", "query": "q", "current_phase": "p", "state": {}})), "session.state");
    }
}
