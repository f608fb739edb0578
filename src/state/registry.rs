// Written by scripts/generate.sh from the folders of src/state (a store is a folder, whose
// mod.rs has its `Operation`s, `plan`, `check_options` and `MIGRATION`); do not edit. The
// stores keep the order they were added in: a new one comes last.

pub mod contractors;
pub mod research;
pub mod unified;
pub mod workflow;

string_enum!(
    /// The stores (`call`'s first argument for the capability `state`).
    StateStore {
        Unified = "unified",
        Workflow = "workflow",
        Research = "research",
        Contractors = "contractors",
    }
);

/// The stores' migrations, one a store.
pub const MIGRATIONS: [crate::migration::Migration; 4] =
    [unified::MIGRATION, workflow::MIGRATION, research::MIGRATION, contractors::MIGRATION];

/// Plans `op` of `store`, its arguments read as the store's `Call` declares them.
pub fn plan(store: StateStore, op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Op, ErrorReport> {
    match store {
        StateStore::Unified => unified::plan(op, args, cx),
        StateStore::Workflow => workflow::plan(op, args, cx),
        StateStore::Research => research::plan(op, args, cx),
        StateStore::Contractors => contractors::plan(op, args, cx),
    }
}

/// Checks a store's constructor options; returns what the facade shows of them.
pub fn check_options(store: StateStore, options: &Value) -> Result<Value, Invalid> {
    match store {
        StateStore::Unified => unified::check_options(options),
        StateStore::Workflow => workflow::check_options(options),
        StateStore::Research => research::check_options(options),
        StateStore::Contractors => contractors::check_options(options),
    }
}

/// `store`'s operations with their parameters and results, for the JavaScript side
/// (`crates/generate`).
pub fn operations(store: StateStore) -> &'static [crate::arguments::Signature] {
    match store {
        StateStore::Unified => unified::Operation::SIGNATURES,
        StateStore::Workflow => workflow::Operation::SIGNATURES,
        StateStore::Research => research::Operation::SIGNATURES,
        StateStore::Contractors => contractors::Operation::SIGNATURES,
    }
}
