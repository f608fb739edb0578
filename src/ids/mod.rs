//! Identifiers that need no database: UUIDv5 (Python-identical) and thread ids.

mod thread;
mod uuid5;

pub use thread::{
    CoiaFlow, MAX_SEGMENT_LEN, MAX_TIMESTAMP_MS, ParsedThreadId, ThreadConfig, check_segment, cim_thread_id,
    coia_thread, extract_deal_id, parse_thread_id, supervisor_thread_id,
};
pub use uuid5::{COIA_CONVERSATION_NAMESPACE, conversation_id, parse_namespace, uuid5};

use crate::error::ErrorReport;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("invalid namespace {0:?}: expected a UUID or one of \"dns\", \"url\", \"oid\", \"x500\"")]
    InvalidNamespace(String),
    #[error("{field} must be a non-empty string")]
    Empty { field: &'static str },
    #[error("{field} is longer than {max} bytes")]
    TooLong { field: &'static str, max: usize },
    #[error("{field} contains a control character")]
    ControlCharacter { field: &'static str },
    #[error("dealId {0:?} is not a UUID")]
    InvalidDealId(String),
    #[error("timestampMs must be an integer between 0 and 2^53-1")]
    InvalidTimestamp,
    #[error("unknown COIA flow {0:?}: expected chat, research, intelligence, landing or bidcard")]
    UnknownFlow(String),
}

impl IdError {
    fn field(&self) -> &'static str {
        match self {
            IdError::InvalidNamespace(_) => "namespace",
            IdError::Empty { field } | IdError::TooLong { field, .. } | IdError::ControlCharacter { field } => field,
            IdError::InvalidDealId(_) => "dealId",
            IdError::InvalidTimestamp => "timestampMs",
            IdError::UnknownFlow(_) => "flow",
        }
    }
}

impl From<IdError> for ErrorReport {
    fn from(err: IdError) -> Self {
        ErrorReport::invalid_input(err.field(), err.to_string())
    }
}
