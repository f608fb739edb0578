//! agentmem: the persistence layer of LangGraph-style agents on Supabase.
//!
//! The core modules here are plain Rust (no `wasm_bindgen`) and are tested natively;
//! `wasm` is the one boundary that exports them to JavaScript.

pub mod error;
pub mod ids;

#[cfg(all(target_arch = "wasm32", feature = "bindings"))]
mod wasm;

pub use error::{ErrorCode, ErrorReport};
