//! State stores: agent state kept outside LangGraph checkpoints, each with a
//! typed codec and a store that saves in ONE request.
//!
//! - [`unified`]: COIA's unified conversation memory: the persistent field
//!   list, message serialization, the conversation record, lightweight checkpoints.
//! - [`workflow`]: `workflow_agent_states`: `WorkflowState` with enum stages,
//!   millisecond timestamps and JSONB sub-structures.
//! - [`research`]: TK9 research sessions and per-phase drafts, with TK9's
//!   merge and validation rules.
//! - [`contractors`]: COIA's contractor leads and their one conversion into contractors.
//!
//! Everything here is pure: an operation is planned into an [`Op`] (the one HTTP request
//! plus how to read its answer), which `crate::op::run` carries out. Input is validated before the
//! request exists, so bad input never reaches the database, and errors name the field at
//! fault by its path (`state.identified_gaps[2].alternatives[0]`).

// The stores, their names (`StateStore`) and the dispatch to each: written by
// scripts/generate.sh from the folders here (a store is a folder).
include!("registry.rs");

use serde_json::Value;

use crate::arguments::Arguments;
use crate::error::{ErrorCode, ErrorReport, Invalid};
use crate::op::Step;
use crate::transport::options::RpcOptions;
use crate::transport::request::{self, HttpRequest};
use crate::transport::target::Target;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StateError {
    #[error(transparent)]
    InvalidInput(#[from] Invalid),
    #[error("{0}")]
    NotFound(String),
    /// The server answered with something that is not what the store wrote.
    #[error("{0}")]
    Server(String),
}

impl StateError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        StateError::InvalidInput(Invalid::new(field, message))
    }

    /// The `field` of an `InvalidInput`.
    pub fn field(&self) -> Option<&str> {
        match self {
            StateError::InvalidInput(e) => Some(&e.field),
            _ => None,
        }
    }
}

impl From<StateError> for ErrorReport {
    fn from(e: StateError) -> Self {
        match e {
            StateError::InvalidInput(e) => e.into(),
            StateError::NotFound(m) => ErrorReport::new(ErrorCode::NotFound, m),
            StateError::Server(m) => ErrorReport::new(ErrorCode::Server, m),
        }
    }
}

/// `filters` restricted to the caller's tenant. Row-level security already does that for
/// a signed-in user; the service role bypasses it, and must still read and delete only in
/// its own key space (or that of the user it acts for).
fn in_tenant(t: &Target, mut filters: Vec<Value>) -> Vec<Value> {
    if let Some(tenant) = t.tenant() {
        filters.insert(0, value!(["tenant_id", "eq", tenant]));
    }
    filters
}

pub use crate::op::Op;

/// Deletes the caller's session `id` through `function` (the table's one door for a
/// signed-in user); the answer is whether there was one.
fn delete_session(t: &Target, function: &str, id: &str) -> Result<Op, ErrorReport> {
    let req = request::rpc(
        t,
        function,
        &value!({ "p_session_id": id }),
        &RpcOptions { idempotent: true, ..Default::default() },
    )?;
    Ok(json_op(req, |existed| Ok(value!(existed.as_bool() == Some(true)))))
}

/// How a store reads the JSON answer of its request into the operation's result.
type Finish = Box<dyn FnOnce(Value) -> Result<Value, StateError>>;

/// The one request of an operation, whose JSON answer `finish` reads into the result.
fn json_op(request: HttpRequest, finish: impl FnOnce(Value) -> Result<Value, StateError> + 'static) -> Op {
    boxed_op(request, Box::new(finish))
}

/// [`json_op`] with `finish` boxed: one copy of the code around it for every store's
/// closures, not one each.
fn boxed_op(request: HttpRequest, finish: Finish) -> Op {
    Op::json(request, finish)
}

/// The options every store takes (`client`, the facade's); a store with options of its
/// own lists them with it.
pub const STORE_OPTIONS: [&str; 1] = ["client"];

/// What a call needs besides its arguments: the store's options and the caller's clock.
#[derive(Debug, Clone, PartialEq)]
pub struct Context<'a> {
    pub target: &'a Target,
    /// The store's constructor options (`{}` when none).
    pub options: &'a Value,
    /// Milliseconds since the epoch, for timestamps the caller fills in.
    pub now_ms: f64,
}

/// `op` of `store` as an operation, its server errors read as [`server_error`] does.
pub fn operation(store: StateStore, op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Step, ErrorReport> {
    Ok(Step::Send(plan(store, op, args, cx)?.map_err(server_error)))
}

/// A refusal of the store's SQL, with its `field`: the functions raise 22023 with the
/// detail `field: <path>` where they know the input at fault (input the client could not
/// check alone, such as a new lead without a company name).
pub fn server_error(mut e: ErrorReport) -> ErrorReport {
    if e.code == ErrorCode::InvalidInput && e.field.is_none() {
        e.field = e.details.as_deref().and_then(|d| d.strip_prefix("field: ")).map(|f| f.trim().to_owned());
    }
    e
}

/// `op` as one of a store's operations (its `Op`, `T`), or the refusal that lists them.
fn op_of<T: crate::input::Choice>(store: &str, op: &str) -> Result<T, ErrorReport> {
    T::named(op).ok_or_else(|| unknown_op(store, op, T::NAMES))
}

/// Not generic: one copy of the message's code for every store.
fn unknown_op(store: &str, op: &str, ops: &[&str]) -> ErrorReport {
    ErrorReport::invalid_input(
        "op",
        format!("{store} has no operation {}; it has {}", crate::error::Quoted(op), ops.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_without_options_of_their_own_take_none() {
        for s in [StateStore::Research, StateStore::Contractors] {
            assert_eq!(check_options(s, &value!({})), Ok(Value::Object(Default::default())));
            let e = check_options(s, &value!({"probe_": 1})).unwrap_err();
            assert_eq!(e.field, "options.probe_");
        }
    }

    #[test]
    fn server_refusals_name_their_field_from_the_detail() {
        let refusal = |details: Option<&str>| ErrorReport {
            details: details.map(str::to_owned),
            ..ErrorReport::new(ErrorCode::InvalidInput, "no contractor lead 'x' yet")
        };
        let e = server_error(refusal(Some("field: profile.company_name")));
        assert_eq!(e.field.as_deref(), Some("profile.company_name"));
        assert_eq!(server_error(refusal(Some("Failing row contains (...)"))).field, None);
        assert_eq!(server_error(refusal(None)).field, None);
        let other = ErrorReport { details: Some("field: x".into()), ..ErrorReport::new(ErrorCode::Conflict, "dup") };
        assert_eq!(server_error(other).field, None, "only invalid_input names a field");
    }
}
