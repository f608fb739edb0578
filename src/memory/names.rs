//! The names a model uses with the memory tools (the memory types, the kinds of record a
//! memory may refer to) and the limits of what it may send, which the tool
//! definitions state and the checks enforce.

string_enum!(
    /// What a memory is about.
    MemoryType {
        Conversation = "conversation",
        Preference = "preference",
        Fact = "fact",
        Decision = "decision",
        Context = "context",
    }
);

impl MemoryType {
    /// Explicit preferences matter most, passing conversation least.
    pub const fn default_importance(self) -> f64 {
        match self {
            MemoryType::Preference => 0.9,
            MemoryType::Decision => 0.7,
            MemoryType::Fact => 0.6,
            MemoryType::Context => 0.5,
            MemoryType::Conversation => 0.3,
        }
    }
}

/// What a memory may refer to (`reference_type`).
pub const REFERENCE_TYPES: [&str; 5] = ["rfp", "bid", "artifact", "message", "user_profile"];
pub const MAX_CONTENT_CHARS: usize = 10_000;
pub const MAX_QUERY_CHARS: usize = 2_000;
pub const MAX_SEARCH_LIMIT: u64 = 50;
pub const MAX_CONTEXT_CHARS: u64 = 100_000;
pub const MAX_CONTEXT_MEMORIES: u64 = 100;
