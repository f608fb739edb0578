// Written by scripts/generate.sh from the folders of src/state (a store is a folder, whose
// mod.rs has its `Operation`s, `plan`, `check_options` and `MIGRATION`); do not edit. The
// stores keep the order they were added in: a new one comes last.

pub mod contractors;
pub mod research;
pub mod unified;
pub mod workflow;

string_enum!(
    /// The stores (`call`'s first argument for the capability `state`).
    Store {
        Unified = "unified",
        Workflow = "workflow",
        Research = "research",
        Contractors = "contractors",
    }
);

/// The stores' migrations, one a store.
pub const MIGRATIONS: [crate::migration::Migration; 4] =
    [unified::MIGRATION, workflow::MIGRATION, research::MIGRATION, contractors::MIGRATION];

/// Plans `op` of `store` with its positional arguments (JSON `null` = not given).
pub fn plan(store: Store, op: &str, args: &[Value], cx: &Context) -> Result<Op, ErrorReport> {
    match store {
        Store::Unified => unified::plan(op, args, cx),
        Store::Workflow => workflow::plan(op, args, cx),
        Store::Research => research::plan(op, args, cx),
        Store::Contractors => contractors::plan(op, args, cx),
    }
}

/// Checks a store's constructor options; returns what the facade shows of them.
pub fn check_options(store: Store, options: &Value) -> Result<Value, Invalid> {
    match store {
        Store::Unified => unified::check_options(options),
        Store::Workflow => workflow::check_options(options),
        Store::Research => research::check_options(options),
        Store::Contractors => contractors::check_options(options),
    }
}

/// The names of `store`'s operations, for the JavaScript side (`crates/generate`).
pub fn operations(store: Store) -> &'static [&'static str] {
    use crate::input::Choice;
    match store {
        Store::Unified => unified::Operation::NAMES,
        Store::Workflow => workflow::Operation::NAMES,
        Store::Research => research::Operation::NAMES,
        Store::Contractors => contractors::Operation::NAMES,
    }
}
