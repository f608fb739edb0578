//! agentmem: the persistence layer of LangGraph-style agents on Supabase.
//!
//! The core modules here are plain Rust (no `wasm_bindgen`) and are tested natively;
//! `wasm` is the one boundary that exports them to JavaScript.

// ErrorReport is over clippy's size limit for an Err; it is the error path of I/O-bound
// calls, where boxing it would buy nothing measurable and cost an allocation plus noise at
// every `?`.
#![allow(clippy::result_large_err)]
// Release wasm compiles Debug formatting to nothing (-Zfmt-debug=none, scripts/build.sh:
// its impls and Unicode tables stay out of the module): a `{:?}` in a message would print
// nothing there. Messages quote with `error::Quoted`; tests may use Debug freely. Clippy's
// lint covers write!/print!; error::tests::shipped_code_never_formats_with_debug covers
// format!.
#![cfg_attr(not(test), deny(clippy::use_debug))]

// First: its `string_enum!` serves the modules below.
#[macro_use]
pub mod input;
// Its `value!` too.
#[macro_use]
pub mod json;
// Its `operations!` too.
#[macro_use]
pub mod arguments;

pub mod base64;
pub mod boundary;
pub mod checkpoint;
pub mod client;
pub mod error;
pub mod ids;
pub mod langgraph_store;
pub mod memory;
pub mod migration;
pub mod number;
pub mod op;

pub mod schema;
pub mod state;
pub mod time;
pub mod transport;

#[cfg(test)]
mod testgen;

/// The boundary. Without the `bindings` feature only its id functions are compiled: the
/// agentmem-supabase/ids module (crates/ids-wasm) exports those, and nothing else.
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{ErrorCode, ErrorReport};
