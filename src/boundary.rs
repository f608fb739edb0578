//! The names JavaScript calls the module by, each declared once, here or beside the code
//! that plans it:
//!
//! - [`Capability`]: the planners of `call` (src/wasm/mod.rs);
//! - [`SyncFunction`]: the functions of `callSync`, with their parameters and results
//!   ([`SyncCall`], dispatched in src/wasm/mod.rs);
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

/// `callSync`'s functions, each with its parameters and result: like `operations!`, but
/// the arguments stay the JavaScript values they came as (`V`, a `JsValue` at the
/// boundary), because each function checks their types itself, as the ids module's exports
/// (the same functions) must. Writes `SyncFunction` (the names), `SyncCall<V>` (a variant
/// per function, a field per parameter: the boundary's dispatch takes each argument by
/// its name), `SyncCall::read` and `SyncFunction::SIGNATURES` for the generated types.
macro_rules! functions {
    (
        $(#[$names_doc:meta])* $names:ident,
        $(#[$calls_doc:meta])* $calls:ident {
            $(
                $variant:ident = $name:literal ( $( $field:ident : $ts:literal = $js:literal ),+ ) -> $result:literal
            ),+ $(,)?
        }
    ) => {
        string_enum!($(#[$names_doc])* $names { $($variant = $name),+ });

        $(#[$calls_doc])*
        pub enum $calls<V> {
            $( $variant { $( $field: V ),+ } ),+
        }

        impl<V> $calls<V> {
            /// The call of `f`, its `i`th argument `arg(i)`. Inlined into its one caller,
            /// where the two `match`es (this one's and the dispatch's) fold into one.
            #[inline(always)]
            pub fn read(f: $names, mut arg: impl FnMut(u32) -> V) -> Self {
                let mut i = 0;
                let mut next = move || {
                    i += 1;
                    arg(i - 1)
                };
                match f {
                    $( $names::$variant => $calls::$variant { $( $field: next() ),+ } ),+
                }
            }
        }

        impl $names {
            /// Each function's parameters and result, for the generated JavaScript types.
            pub const SIGNATURES: &'static [$crate::arguments::Signature] = &[
                $( $crate::arguments::Signature {
                    name: $name,
                    params: &[ $( ($js, $ts, false) ),+ ],
                    result: $result,
                } ),+
            ];
        }
    };
}

functions!(
    /// The functions of `callSync`: everything that needs no request (ids, option checks,
    /// token inspection, tool definitions, the pure state helpers, the saver's check of a
    /// call for its memory backend).
    SyncFunction,
    /// A call of one of them, with the arguments JavaScript passed.
    SyncCall {
        Uuid5 = "uuid5" (name: "unknown" = "name", namespace: "unknown" = "namespace") -> "string",
        Uuid5Batch = "uuid5Batch" (names: "unknown" = "names", namespace: "unknown" = "namespace") -> "string[]",
        ConversationId = "conversationId" (
            lead: "unknown" = "contractorLeadId",
            namespace: "unknown" = "namespace"
        ) -> "string",
        CoiaThread = "coiaThread" (flow: "unknown" = "flow", id: "unknown" = "id") -> "import(\"./ids.d.ts\").ThreadConfig",
        CimThreadId = "cimThreadId" (deal_id: "unknown" = "dealId", cim_id: "unknown" = "cimId") -> "string",
        SupervisorThreadId = "supervisorThreadId" (
            deal_id: "unknown" = "dealId",
            timestamp_ms: "unknown" = "timestampMs"
        ) -> "string",
        ParseThreadId = "parseThreadId" (thread_id: "unknown" = "threadId") -> "import(\"./ids.d.ts\").ParsedThreadId",
        ExtractDealId = "extractDealId" (thread_id: "unknown" = "threadId") -> "string | null",
        CheckClientOptions = "checkClientOptions" (state: "unknown" = "state") -> "string",
        HasIdentity = "hasIdentity" (state: "unknown" = "state") -> "boolean",
        InspectToken = "inspectToken" (token: "unknown" = "token") -> "import(\"./client.d.ts\").TokenInfo",
        MemoryDefinitions = "memoryDefinitions" (
            format: "unknown" = "format",
            options: "JsonText | undefined" = "options"
        ) -> "import(\"./memory.d.ts\").ToolDefinition<import(\"./memory.d.ts\").ToolFormat>[]",
        CheckMemoryOptions = "checkMemoryOptions" (
            state: "unknown" = "clientState",
            options: "JsonText | undefined" = "options"
        ) -> "string",
        MemoryId = "memoryId" (id: "unknown" = "id") -> "string | undefined",
        StateCheckOptions = "stateCheckOptions" (
            store: "unknown" = "store",
            options: "JsonText | undefined" = "options"
        ) -> "{ fields: string[], namespace: string }",
        ResearchMergeState = "researchMergeState" (
            state: "JsonText | undefined" = "state",
            updates: "JsonText | undefined" = "updates"
        ) -> "import(\"./state.d.ts\").ResearchState",
        ResearchValidateState = "researchValidateState" (
            state: "JsonText | undefined" = "state"
        ) -> "ReturnType<typeof import(\"./state.d.ts\").validateState>",
        ResearchValidateTransition = "researchValidateTransition" (
            from: "JsonText | undefined" = "fromPhase",
            to: "JsonText | undefined" = "toPhase",
            state: "JsonText | undefined" = "state"
        ) -> "ReturnType<typeof import(\"./state.d.ts\").validateTransition>",
        WorkflowNormalizeState = "workflowNormalizeState" (
            state: "JsonText | undefined" = "state",
            options: "JsonText | undefined" = "options"
        ) -> "import(\"./state.d.ts\").WorkflowState",
        CheckpointCheck = "checkpointCheck" (op: "unknown" = "op", args: "unknown[]" = "args") -> "boolean",
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
