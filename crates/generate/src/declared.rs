//! tests/stack/declared.json: what the crate declares of the database, for
//! tests/stack/migrations_test.sh to hold a database built by the migrations to, so that no
//! test reads the SQL text: each capability's migration with the tables and functions it
//! names (`agentmem::schema::migrations`), and the names of the Rust enums that columns
//! store, with the columns whose CHECK must accept exactly them and the SQL functions that
//! must return exactly them.

use std::fmt::Write as _;

use agentmem::input::Choice;

/// The file, relative to the repository root.
pub const FILE: &str = "tests/stack/declared.json";

/// A Rust enum whose names the database stores.
struct Stored {
    /// Where the enum is declared.
    declared: &'static str,
    values: &'static [&'static str],
    /// `(table, column)`: each CHECK on the column accepts exactly `values`.
    columns: &'static [(&'static str, &'static str)],
    /// Functions without arguments that return exactly `values`, in order, as `text[]`.
    lists: &'static [&'static str],
}

fn stored() -> [Stored; 4] {
    use agentmem::memory::names::MemoryType;
    use agentmem::state::{research::DraftPhase, workflow::codec::GapStatus, workflow::codec::WorkflowStage};
    [
        Stored {
            declared: "src/memory/names.rs MemoryType",
            values: MemoryType::NAMES,
            columns: &[("public.agent_memories", "memory_type")],
            lists: &["agentmem.memory_types"],
        },
        Stored {
            declared: "src/state/workflow/codec.rs WorkflowStage",
            values: WorkflowStage::NAMES,
            columns: &[("public.workflow_agent_states", "stage"), ("public.workflow_agent_states", "previous_stage")],
            lists: &[],
        },
        Stored {
            declared: "src/state/workflow/codec.rs GapStatus",
            values: GapStatus::NAMES,
            columns: &[("public.workflow_agent_states", "gap_status")],
            lists: &[],
        },
        Stored {
            declared: "src/state/research/codec.rs DraftPhase",
            values: DraftPhase::NAMES,
            columns: &[("public.research_drafts", "phase")],
            lists: &[],
        },
    ]
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out + "\""
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// The file's text. A migration is listed as often as it is declared, so the test sees a
/// file that two capabilities claim.
pub fn json() -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(
        out,
        "  \"generated\": {},",
        quote(
            "Written by scripts/generate.sh (crates/generate) from agentmem's Rust declarations; do not edit. \
             tests/stack/migrations_test.sh holds a database built by supabase/migrations to it."
        )
    );
    let migrations: Vec<String> = agentmem::schema::migrations()
        .map(|(file, names)| {
            let names: Vec<String> = names.iter().map(|n| format!("\n        {}", quote(n))).collect();
            format!(
                "    {{\n      \"file\": {},\n      \"objects\": [{}\n      ]\n    }}",
                quote(file),
                names.join(",")
            )
        })
        .collect();
    let _ = writeln!(out, "  \"migrations\": [\n{}\n  ],", migrations.join(",\n"));
    let stored: Vec<String> = stored()
        .iter()
        .map(|s| {
            let columns = s
                .columns
                .iter()
                .map(|(table, column)| format!("{{\"table\": {}, \"column\": {}}}", quote(table), quote(column)));
            format!(
                "    {{\n      \"declared\": {},\n      \"values\": {},\n      \"columns\": {},\n      \"lists\": {}\n    }}",
                quote(s.declared),
                list(s.values.iter().map(|v| quote(v))),
                list(columns),
                list(s.lists.iter().map(|f| quote(f))),
            )
        })
        .collect();
    let _ = writeln!(out, "  \"stored\": [\n{}\n  ]", stored.join(",\n"));
    out + "}\n"
}
