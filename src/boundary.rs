//! The names JavaScript calls the module by, each declared once, here or beside the code
//! that plans it:
//!
//! - [`Capability`]: the planners of `call` (src/wasm/mod.rs);
//! - [`SyncFunction`]: the functions of `callSync` (src/wasm/mod.rs);
//! - [`Action`]: what a waiting run asks of the host (src/wasm/run.rs, performed by
//!   pkg-template/wasm.js);
//! - each capability's operations: `crate::client::ClientOp`, `crate::checkpoint::CheckpointOp`,
//!   `crate::state::StateStore` and each store's `Operation`, `crate::memory::tools::TOOLS`.
//!
//! Each is a `string_enum!` (the tools: a list of definitions), and the boundary
//! dispatches with a `match` on it, so a name declared and not dispatched (or dispatched
//! and not declared) does not compile.
//! `crates/generate` writes the JavaScript side from the same declarations:
//! `pkg-template/names.js`, the table the facades and wasm.js take every name from
//! (`// @ts-check` makes a misspelt one a type error), and the name unions of the `.d.ts`
//! files. `scripts/generate.sh --check` (in scripts/test.sh) fails when either is stale
//! (docs/design.md, "Declared once").

use crate::error::{ErrorReport, Quoted};
use crate::input::Choice;

string_enum!(
    /// The capabilities `call` plans for: its `capability` argument.
    Capability {
        Client = "client",
        Memory = "memory",
        State = "state",
        Checkpoint = "checkpoint",
    }
);

string_enum!(
    /// The functions of `callSync`: everything that needs no request (ids, option checks,
    /// token inspection, tool definitions, the pure state helpers, the saver's check of a
    /// call for its memory backend).
    SyncFunction {
        Uuid5 = "uuid5",
        Uuid5Batch = "uuid5Batch",
        ConversationId = "conversationId",
        CoiaThread = "coiaThread",
        CimThreadId = "cimThreadId",
        SupervisorThreadId = "supervisorThreadId",
        ParseThreadId = "parseThreadId",
        ExtractDealId = "extractDealId",
        CheckClientOptions = "checkClientOptions",
        HasIdentity = "hasIdentity",
        InspectToken = "inspectToken",
        MemoryDefinitions = "memoryDefinitions",
        CheckMemoryOptions = "checkMemoryOptions",
        MemoryId = "memoryId",
        StateCheckOptions = "stateCheckOptions",
        ResearchMergeState = "researchMergeState",
        ResearchValidateState = "researchValidateState",
        ResearchValidateTransition = "researchValidateTransition",
        WorkflowNormalizeState = "workflowNormalizeState",
        CheckpointCheck = "checkpointCheck",
    }
);

string_enum!(
    /// What a run waiting on the host asks for, as the first element of the action
    /// (`[name, ...arguments]`): a request through the client's fetch, a wait before a
    /// retry, texts for the embedding callback.
    Action {
        Fetch = "fetch",
        Sleep = "sleep",
        Embed = "embed",
    }
);

/// The member of `T` named `name`, or `invalid_input` on `field`: `unknown {what} "name"`.
pub fn named<T: Choice>(field: &str, what: &str, name: &str) -> Result<T, ErrorReport> {
    T::named(name).ok_or_else(|| unknown(field, what, name))
}

/// Not generic: one copy of the message's code for every enum.
fn unknown(field: &str, what: &str, name: &str) -> ErrorReport {
    ErrorReport::invalid_input(field, format!("unknown {what} {}", Quoted(name)))
}
