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

#[cfg(test)]
mod tests {
    use super::MemoryType;

    /// The SQL states the list twice (the table's CHECK, which clients read, and
    /// agentmem.memory_types(), which the functions check with); both are this one.
    #[test]
    fn the_migration_lists_the_memory_types_of_the_tools() {
        let sql = include_str!("../../supabase/migrations/20261122000200_agent_memories.sql");
        let names = MemoryType::ALL.iter().map(|t| format!("'{}'", t.as_str())).collect::<Vec<_>>().join(", ");
        assert!(sql.contains(&format!("check (memory_type in ({names}))")), "the table's CHECK: {names}");
        assert!(sql.contains(&format!("select array[{names}]")), "agentmem.memory_types(): {names}");
        assert_eq!(sql.matches(&names).count(), 2, "the list stands once more in the migration");
    }
}
