//! What a capability declares of its SQL: the migration file that creates its tables and
//! functions, and their names. A leaf: every capability declares its own beside the code
//! that calls those objects, and `crate::schema` gathers them, so nothing here depends
//! on either.

/// A capability's migration and every table and function it creates (`public` ones by
/// bare name, the `agentmem` schema's with it), so that a "no such function" answer about
/// one of them names the file to apply (`crate::schema::refine`). tests/stack/migrations_test.sh
/// checks each list against what its file creates in a real database (through
/// tests/stack/declared.json, which `crates/generate` writes from these lists).
pub type Migration = (&'static str, &'static [&'static str]);
