//! Which of agentmem's migrations creates each table and function the package calls, so
//! that "Could not find the function public.create_agent_memory" can say which SQL file
//! the database lacks instead of looking like a model asking for a missing memory. Each
//! capability lists its own objects (`MIGRATION`, a `crate::migration::Migration` beside
//! the code that calls them); this module gathers them, and `op::run` passes every error answer through [`refine`]
//! before the plan sees it, so the transport itself knows nothing of them.

use crate::error::{ErrorCode, ErrorReport};

/// The migration every other builds on: the `agentmem` schema and its helpers. Its entry
/// is the schema alone, which matches any function of it that no capability claims.
const TENANCY: &str = "20261121000100_tenancy.sql";

use crate::migration::Migration;

/// Every migration with the tables and functions it creates, each listed by the capability
/// that calls them. Public for `crates/generate`, which writes them into
/// tests/stack/declared.json for tests/stack/migrations_test.sh to hold a database to.
pub fn migrations() -> impl Iterator<Item = &'static Migration> {
    const OWN: [Migration; 4] = [
        (TENANCY, &["agentmem."]),
        crate::checkpoint::MIGRATION,
        crate::memory::MIGRATION,
        crate::langgraph_store::MIGRATION,
    ];
    let tools = crate::memory::tools::TOOLS.iter().filter_map(|t| t.migration.as_ref());
    OWN.iter().chain(crate::state::MIGRATIONS.iter()).chain(tools)
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The migration that creates the object `text` names, if it is one of agentmem's: the
/// longest name found as a whole identifier (`agentmem.` alone matches any function of
/// that schema the other files do not claim).
pub fn migration_for(text: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for (file, names) in migrations() {
        for &name in *names {
            let (mut from, mut found) = (0, false);
            while let Some(at) = text[from..].find(name) {
                let i = from + at;
                let before = text[..i].chars().next_back();
                let after = text[i + name.len()..].chars().next();
                // `public.x` and `"x"` count; `agentmem.x` only where the name has its schema.
                let before_ok = before.is_none_or(|c| !is_ident(c) && (c != '.' || text[..i].ends_with("public.")));
                if before_ok && (name.ends_with('.') || after.is_none_or(|c| !is_ident(c))) {
                    found = true;
                    break;
                }
                from = i + 1;
            }
            if found && best.is_none_or(|(len, _)| name.len() > len) {
                best = Some((name.len(), *file));
            }
        }
    }
    best.map(|(_, file)| file)
}

/// A "no such table / function" answer about one of agentmem's own objects becomes
/// `schema_not_installed`, naming the migration; anything else is left as it is (a
/// caller's own missing table stays `not_found`).
pub fn refine(mut report: ErrorReport) -> ErrorReport {
    let missing = match report.pgrst_code.as_deref() {
        // PostgREST's schema cache has no such function (or not with these arguments: an
        // older version of the SQL) / no such table.
        Some("PGRST202" | "PGRST205") => true,
        // Postgres, inside a function: undefined_function (not an operator mismatch),
        // undefined_table, invalid_schema_name.
        Some("42883") => report.message.starts_with("function "),
        Some("42P01" | "3F000") => true,
        _ => false,
    };
    let Some(file) = missing.then(|| migration_for(&report.message)).flatten() else {
        return report;
    };
    report.code = ErrorCode::SchemaNotInstalled;
    report.message = format!(
        "{}: agentmem's SQL is not installed in this database, or is an older version. Apply \
         supabase/migrations/{file} from the package (and the migrations before it): \
         `npx agentmem-sql copy` adds them to your project's supabase/migrations for `supabase db push`, \
         or paste `npx agentmem-sql print` into the dashboard's SQL editor. Just applied? Reload \
         PostgREST's schema cache: notify pgrst, 'reload schema'",
        report.message
    );
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKPOINTS: &str = crate::checkpoint::MIGRATION.0;
    const MEMORIES: &str = crate::memory::MIGRATION.0;
    const UNIFIED: &str = crate::state::unified::MIGRATION.0;
    const WORKFLOW: &str = crate::state::workflow::MIGRATION.0;
    const RESEARCH: &str = crate::state::research::MIGRATION.0;
    const CONTRACTORS: &str = crate::state::contractors::MIGRATION.0;

    fn report(status: u16, code: &str, message: &str) -> ErrorReport {
        ErrorReport {
            status: Some(status),
            pgrst_code: Some(code.into()),
            ..ErrorReport::new(ErrorCode::NotFound, message)
        }
    }

    #[test]
    fn agentmem_objects_name_their_migration() {
        let cases = [
            (
                "PGRST202",
                "Could not find the function public.create_agent_memory(p_agent_id, p_content) in the schema cache",
                MEMORIES,
            ),
            (
                "PGRST202",
                "Could not find the function public.langgraph_put without parameters in the schema cache",
                CHECKPOINTS,
            ),
            ("PGRST205", "Could not find the table 'public.agent_memories' in the schema cache", MEMORIES),
            ("PGRST205", "Could not find the table 'public.research_drafts' in the schema cache", RESEARCH),
            (
                "PGRST202",
                "Could not find the function public.convert_contractor_lead(p_account, p_contractor_lead_id) in the schema cache",
                CONTRACTORS,
            ),
            ("42883", "function agentmem.tenant() does not exist", TENANCY),
            ("42883", "function agentmem.research_now_ms() does not exist", RESEARCH),
            ("42P01", "relation \"unified_conversation_memory\" does not exist", UNIFIED),
            ("42P01", "relation \"public.workflow_agent_states\" does not exist", WORKFLOW),
            ("3F000", "schema \"agentmem.\" does not exist", TENANCY),
        ];
        for (code, message, file) in cases {
            let r = refine(report(404, code, message));
            assert_eq!(r.code, ErrorCode::SchemaNotInstalled, "{message}");
            assert!(
                r.message.starts_with(message) && r.message.contains(&format!("supabase/migrations/{file} ")),
                "{}",
                r.message
            );
            assert_eq!((r.status, r.pgrst_code.as_deref()), (Some(404), Some(code)), "status and code are kept");
        }
    }

    #[test]
    fn other_missing_objects_and_errors_are_left_alone() {
        for (code, message) in [
            ("PGRST205", "Could not find the table 'public.notes' in the schema cache"),
            ("PGRST205", "Could not find the table 'public.my_agent_memories' in the schema cache"),
            (
                "PGRST202",
                "Could not find the function public.search_agent_memories_v2 without parameters in the schema cache",
            ),
            ("42883", "operator does not exist: text @> unknown"),
            ("42883", "function myschema.agent_memories() does not exist"),
            ("23505", "duplicate key value violates unique constraint \"agent_memories_pkey\""),
        ] {
            let r = refine(report(404, code, message));
            assert_eq!((r.code, r.message.as_str()), (ErrorCode::NotFound, message));
        }
    }
}
