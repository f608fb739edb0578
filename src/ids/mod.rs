//! Identifiers that need no database: UUIDv5 (Python-identical) and thread ids.

mod thread;
mod uuid5;

pub use thread::{
    CoiaFlow, FieldValue, MAX_SEGMENT_LEN, MAX_TIMESTAMP_MS, ParsedThreadId, ThreadConfig, check_segment,
    cim_thread_id, coia_thread, extract_deal_id, parse_thread_id, supervisor_thread_id,
};
pub use uuid5::{COIA_CONVERSATION_NAMESPACE, conversation_id, parse_namespace, uuid5};

use crate::error::{ErrorReport, Invalid, Quoted};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("invalid namespace {}: expected a UUID or one of \"dns\", \"url\", \"oid\", \"x500\"", Quoted(.0))]
    InvalidNamespace(String),
    #[error("{field} must be a non-empty string")]
    Empty { field: &'static str },
    #[error("{field} is longer than {max} bytes")]
    TooLong { field: &'static str, max: usize },
    #[error("{field} contains a control character")]
    ControlCharacter { field: &'static str },
    #[error("dealId {} is not a UUID", Quoted(.0))]
    InvalidDealId(String),
    #[error("timestampMs must be an integer between 0 and 2^53-1")]
    InvalidTimestamp,
    #[error("unknown COIA flow {}: expected chat, research, intelligence, landing or bidcard", Quoted(.0))]
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

/// Every id failure is a refused argument, naming its field.
impl From<IdError> for Invalid {
    fn from(err: IdError) -> Self {
        Invalid::new(err.field(), err.to_string())
    }
}

impl From<IdError> for ErrorReport {
    fn from(err: IdError) -> Self {
        Invalid::from(err).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_matches_debug_except_for_non_printable_non_control_characters() {
        for input in
            ["", "abc", "a\"b", "back\\slash", "tab\tnew\nline\r", "nul\0", "\u{1b}[31m", "\u{7f}\u{85}", "ünïcødé 🚀"]
        {
            assert_eq!(Quoted(input).to_string(), format!("{input:?}"), "{input:?}");
        }
        // The one documented difference: printed as is, where {:?} writes "\u{200b}".
        assert_eq!(Quoted("a\u{200b}b").to_string(), "\"a\u{200b}b\"");
    }

    #[test]
    fn messages_quote_the_input() {
        assert_eq!(IdError::InvalidDealId("x\"\n".into()).to_string(), "dealId \"x\\\"\\n\" is not a UUID");
    }
}
