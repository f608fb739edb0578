//! LangGraph's long-term memory, `BaseStore` (`AgentmemStore`, pkg-template/store.js):
//! not one of the state stores of `crate::state`. Its requests are the client's `rpc`
//! (`crate::client`); what Rust knows of it is the SQL it calls.

use crate::migration::Migration;

/// What its migration creates: the RPCs its calls name and the tables they read.
pub const MIGRATION: Migration = (
    "20261122000700_langgraph_store.sql",
    &[
        "langgraph_store_items",
        "langgraph_store_vectors",
        "langgraph_store_batch",
        "langgraph_store_sweep",
        "langgraph_store_dimensions",
        "set_langgraph_store_dimensions",
        "set_embedding_dimensions",
    ],
);
