//! Writes the JavaScript side of what agentmem's boundary declares in Rust
//! (`agentmem::boundary` lists the names): `pkg-template/names.js`, the table wasm.js and
//! the facades take every name they pass to the module from; the string unions of the
//! `.d.ts` files that are a Rust enum's names; and `tests/facades/option_keys.ts`, which
//! holds each options interface of the `.d.ts` files to the keys its Rust reader accepts. Run by `scripts/generate.sh`; with
//! `--check` it writes nothing and fails when a file differs from what it would write,
//! which scripts/test.sh runs.
//!
//! Two phases, each its own run (scripts/generate.sh runs both, in this order):
//! - `rust`: the registries of the capabilities whose parts are files, written from the
//!   folders (`src/memory/tools/registry.rs`: a tool is a file; `src/state/registry.rs`: a
//!   store is a folder), so adding one is adding its file. They must be written before the
//!   crate this program links is compiled with them, hence the phase of its own.
//! - `js`: what is written from the crate's declarations, as above.
//!
//! Usage: agentmem-generate <repository root> rust|js [--check]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::process::{Command, Stdio};

use agentmem::boundary::{Action, Capability, SyncFunction};
use agentmem::checkpoint::CheckpointOp;
use agentmem::client::ClientOp;
use agentmem::input::Choice;
use agentmem::state::{self, Store};

/// A `.d.ts` union that is the names of a Rust enum: the file, the type, where the names
/// are declared (for the comment beside it) and the names.
struct Union {
    file: &'static str,
    name: &'static str,
    from: &'static str,
    names: Vec<&'static str>,
}

fn unions() -> Vec<Union> {
    use agentmem::memory::{definitions::Format, names::MemoryType, tools::TOOLS};
    use agentmem::state::{research::DraftPhase, workflow::codec as workflow};
    let union = |file, name, from, names: &[&'static str]| Union { file, name, from, names: names.to_vec() };
    vec![
        union("errors.d.ts", "AgentmemErrorCode", "src/error.rs ErrorCode", agentmem::ErrorCode::NAMES),
        union("memory.d.ts", "MemoryType", "src/memory/names.rs MemoryType", MemoryType::NAMES),
        Union {
            file: "memory.d.ts",
            name: "MemoryToolName",
            from: "src/memory/tools/mod.rs TOOLS",
            names: TOOLS.iter().map(|t| t.name).collect(),
        },
        union("memory.d.ts", "ToolFormat", "src/memory/definitions.rs Format", Format::NAMES),
        union(
            "client.d.ts",
            "CountMode",
            "src/transport/options.rs CountMode",
            agentmem::transport::options::CountMode::NAMES,
        ),
        union(
            "state.d.ts",
            "WorkflowStage",
            "src/state/workflow/codec.rs WorkflowStage",
            workflow::WorkflowStage::NAMES,
        ),
        union("state.d.ts", "GapStatus", "src/state/workflow/codec.rs GapStatus", workflow::GapStatus::NAMES),
        union("state.d.ts", "WorkflowOrigin", "src/state/workflow/codec.rs Origin", workflow::Origin::NAMES),
        union("state.d.ts", "DraftPhase", "src/state/research/codec.rs DraftPhase", DraftPhase::NAMES),
        union("ids.d.ts", "CoiaFlow", "src/ids/thread.rs CoiaFlow", agentmem::ids::CoiaFlow::NAMES),
    ]
}

/// `{ a: "a", b: "b" }`, frozen: names that are identifiers, keyed by themselves, so a
/// facade writes `CLIENT_OP.select` and `// @ts-check` refuses `CLIENT_OP.selct`.
fn table(names: &[&str]) -> String {
    let entries: Vec<String> = names.iter().map(|n| format!("{n}: \"{n}\"")).collect();
    let line = format!("Object.freeze({{ {} }})", entries.join(", "));
    if line.len() <= 100 { line } else { format!("Object.freeze({{\n  {},\n}})", entries.join(",\n  ")) }
}

fn names_js() -> String {
    let mut js = String::from(
        "// @ts-check\n\
         // Written by scripts/generate.sh (crates/generate) from the Rust declarations of the names\n\
         // that cross the boundary (src/boundary.rs lists where each is declared); do not edit.\n\
         // wasm.js and the facades pass the module no name that is not taken from here, so a\n\
         // name the module does not know is a type error (tests/facades/check.sh), not a\n\
         // failure at run time.\n\n",
    );
    let mut constant = |doc: &str, name: &str, value: String| {
        let _ = write!(js, "/** {doc} */\nexport const {name} = {value};\n");
    };
    constant("The capabilities of `call` (src/boundary.rs `Capability`).", "CAPABILITY", table(Capability::NAMES));
    constant("The functions of `callSync` (src/boundary.rs `SyncFunction`).", "SYNC", table(SyncFunction::NAMES));
    constant(
        "What a run waiting on the host asks for: an action's first element (src/boundary.rs `Action`).",
        "ACTION",
        table(Action::NAMES),
    );
    constant("The client's operations (src/client.rs `ClientOp`).", "CLIENT_OP", table(ClientOp::NAMES));
    constant(
        "The saver's operations against the database (src/checkpoint/ops.rs `CheckpointOp`).",
        "CHECKPOINT_OP",
        table(CheckpointOp::NAMES),
    );
    constant("The state stores (src/state/mod.rs `Store`).", "STORE", table(Store::NAMES));
    let per_store: Vec<String> = Store::ALL
        .iter()
        .map(|s| format!("{}: {}", s.as_str(), table(state::operations(*s)).replace("\n", "\n  ")))
        .collect();
    constant(
        "Each state store's operations (its `Op`, beside its planner in src/state/<store>/mod.rs).",
        "STATE_OP",
        format!("Object.freeze({{\n  {},\n}})", per_store.join(",\n  ")),
    );
    let tools: Vec<&str> = agentmem::memory::tools::TOOLS.iter().map(|t| t.name).collect();
    constant("The memory tools (src/memory/tools/mod.rs `TOOLS`).", "MEMORY_TOOL", table(&tools));
    let list: Vec<String> = tools.iter().map(|t| format!("\"{t}\"")).collect();
    constant(
        "The memory tools in the order of their definitions.",
        "MEMORY_TOOLS",
        format!("Object.freeze(/** @type {{const}} */ ([{}]))", list.join(", ")),
    );
    js
}

/// An options interface of the `.d.ts` files (or several, whose keys together) and the keys
/// its Rust reader accepts.
fn option_readers() -> Vec<(&'static str, &'static [&'static str], Vec<&'static str>)> {
    use agentmem::state::{STORE_OPTIONS, unified, workflow};
    use agentmem::transport::options::{READ_OPTIONS, WRITE_OPTIONS, rpc_options};
    vec![
        ("clientOptions", &["ClientOptions"], agentmem::transport::config::OPTIONS.to_vec()),
        ("selectOptions", &["SelectOptions"], READ_OPTIONS.to_vec()),
        ("writeOptions", &["WriteOptions", "UpsertOptions", "FilteredWriteOptions"], WRITE_OPTIONS.to_vec()),
        ("rpcOptions", &["RpcOptions"], rpc_options()),
        ("memoryToolsOptions", &["MemoryToolsOptions"], agentmem::memory::OPTIONS.to_vec()),
        ("definitionOptions", &["DefinitionOptions"], agentmem::memory::definitions::OPTIONS.to_vec()),
        ("storeOptions", &["StoreOptions"], STORE_OPTIONS.to_vec()),
        ("unifiedStateManagerOptions", &["UnifiedStateManagerOptions"], unified::OPTIONS.to_vec()),
        ("workflowStateStoreOptions", &["WorkflowStateStoreOptions"], workflow::OPTIONS.to_vec()),
    ]
}

/// tests/facades/option_keys.ts: each options interface has exactly the keys its Rust
/// reader accepts, as a type `deno check` (tests/facades/check.sh) evaluates.
fn option_keys_ts() -> String {
    let mut ts = String::from(
        "// Written by scripts/generate.sh (crates/generate) from the lists of keys the Rust readers of\n\
         // options accept (the lists their \"is not a known option\" messages give); do not edit.\n\
         // Each options interface of the .d.ts files declares exactly those keys: a key one side\n\
         // has and the other lacks makes its line's type `false`, which `deno check` refuses\n\
         // (tests/facades/check.sh). Only checked, never run.\n\
         import type * as Main from \"../../pkg/unbundled/index.d.ts\";\n\n\
         type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;\n\n",
    );
    for (name, interfaces, keys) in option_readers() {
        let declared: Vec<String> = interfaces.iter().map(|i| format!("keyof Main.{i}")).collect();
        let accepted: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
        let _ = writeln!(ts, "export const {name}: Same<{}, {}> = true;", declared.join(" | "), accepted.join(" | "));
    }
    ts
}

/// The comment above each union this program writes.
const MARK: &str = "// Generated from agentmem's Rust declaration";

/// `text` with the statement `export type {name} = …;` written as the union of `u`, on a
/// line of its own after a comment saying where it comes from.
fn with_union(text: &str, u: &Union) -> Result<String, String> {
    let head = format!("export type {} =", u.name);
    let mut start = text.find(&head).ok_or_else(|| format!("{} declares no `{head}`", u.file))?;
    let semicolon = start + text[start..].find(';').ok_or_else(|| format!("{}: `{head}` has no `;`", u.file))?;
    // No repository path: the .d.ts files ship, and the package holds none of them.
    let note = format!("{MARK} {}; do not edit.\n", u.from.rsplit(' ').next().unwrap_or(u.from));
    let before = &text[..start];
    let line_start = before[..before.len().saturating_sub(1)].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..start].starts_with(MARK) {
        start = line_start;
    }
    let members: Vec<String> = u.names.iter().map(|n| format!("\"{n}\"")).collect();
    let line = format!("{head} {};", members.join(" | "));
    let statement = if line.len() <= 130 {
        line
    } else {
        let mut s = head.clone();
        for m in &members {
            let _ = write!(s, "\n  | {m}");
        }
        s + ";"
    };
    Ok(format!("{}{note}{statement}{}", &text[..start], &text[semicolon + 1..]))
}

/// The names of a registry's parts, in the order the registry lists them (each the
/// identifier written right before `after`), those `present` that it does not list yet
/// appended in name order: a new part comes last, and the order of the others (which a
/// model sees, for the tools) stays.
fn ordered(registry: &str, after: &str, mut present: Vec<String>) -> Vec<String> {
    present.sort();
    let mut listed: Vec<String> = Vec::new();
    for (at, _) in registry.match_indices(after) {
        let before = &registry[..at];
        let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let name = &before[start..];
        if !name.is_empty() && !listed.iter().any(|n| n == name) {
            listed.push(name.to_owned());
        }
    }
    let new: Vec<String> = present.iter().filter(|n| !listed.contains(n)).cloned().collect();
    listed.into_iter().filter(|n| present.contains(n)).chain(new).collect()
}

/// `snake_case` as `CamelCase`.
fn camel(name: &str) -> String {
    name.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}

/// src/memory/tools/registry.rs: a tool is a file of that folder (its `TOOL`).
fn tools_registry(root: &Path, current: &str) -> Result<String, String> {
    let dir = root.join("src/memory/tools");
    let mut present = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let name = entry.map_err(|e| e.to_string())?.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".rs").filter(|s| !matches!(*s, "mod" | "registry")) {
            present.push(stem.to_owned());
        }
    }
    let tools = ordered(current, "::TOOL", present);
    let mut rs = String::from(
        "// Written by scripts/generate.sh from the files of src/memory/tools (a tool is a file, with its\n\
         // `TOOL`); do not edit. The tools keep the order they were added in: a new one comes last.\n\n",
    );
    let mut mods = tools.clone();
    mods.sort();
    for m in &mods {
        let _ = writeln!(rs, "mod {m};");
    }
    let list: Vec<String> = tools.iter().map(|t| format!("{t}::TOOL")).collect();
    let _ = write!(
        rs,
        "\n/// The memory tools, in the order of their definitions.\npub const TOOLS: &[Definition] = &[{}];\n",
        list.join(", ")
    );
    Ok(rs)
}

/// src/state/registry.rs: a store is a folder of src/state (its mod.rs has its
/// `Operation`s, `plan`, `check_options` and `MIGRATION`).
fn state_registry(root: &Path, current: &str) -> Result<String, String> {
    let dir = root.join("src/state");
    let mut present = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.path().join("mod.rs").is_file() {
            present.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    let stores = ordered(current, "::MIGRATION", present);
    let mut rs = String::from(
        "// Written by scripts/generate.sh from the folders of src/state (a store is a folder, whose\n\
         // mod.rs has its `Operation`s, `plan`, `check_options` and `MIGRATION`); do not edit. The\n\
         // stores keep the order they were added in: a new one comes last.\n\n",
    );
    let mut mods = stores.clone();
    mods.sort();
    for m in &mods {
        let _ = writeln!(rs, "pub mod {m};");
    }
    let variants: String = stores.iter().map(|s| format!("        {} = \"{s}\",\n", camel(s))).collect();
    let arms = |call: &str| -> String {
        stores.iter().map(|s| format!("        Store::{} => {s}::{call},\n", camel(s))).collect()
    };
    let migrations: Vec<String> = stores.iter().map(|s| format!("{s}::MIGRATION")).collect();
    let _ = write!(
        rs,
        "\nstring_enum!(\n    /// The stores (`call`'s first argument for the capability `state`).\n    Store {{\n{variants}    }}\n);\n\n\
         /// The stores' migrations, one a store.\n\
         pub const MIGRATIONS: [crate::migration::Migration; {n}] = [{migrations}];\n\n\
         /// Plans `op` of `store` with its positional arguments (JSON `null` = not given).\n\
         pub fn plan(store: Store, op: &str, args: &[Value], cx: &Context) -> Result<Op, ErrorReport> {{\n    match store {{\n{plan}    }}\n}}\n\n\
         /// Checks a store's constructor options; returns what the facade shows of them.\n\
         pub fn check_options(store: Store, options: &Value) -> Result<Value, Invalid> {{\n    match store {{\n{check}    }}\n}}\n\n\
         /// The names of `store`'s operations, for the JavaScript side (`crates/generate`).\n\
         pub fn operations(store: Store) -> &'static [&'static str] {{\n    use crate::input::Choice;\n    match store {{\n{ops}    }}\n}}\n",
        n = stores.len(),
        migrations = migrations.join(", "),
        plan = arms("plan(op, args, cx)"),
        check = arms("check_options(options)"),
        ops = arms("Operation::NAMES"),
    );
    Ok(rs)
}

/// `text` as rustfmt writes it with the repository's settings, so that the check of the
/// formatting and the check of this program agree.
fn rustfmt(root: &Path, text: &str) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--config-path"])
        .arg(root.join("rustfmt.toml"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("rustfmt: {e}"))?;
    child.stdin.take().expect("piped").write_all(text.as_bytes()).map_err(|e| format!("rustfmt: {e}"))?;
    let out = child.wait_with_output().map_err(|e| format!("rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!("rustfmt refused the generated code:\n{text}"));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("rustfmt: {e}"))
}

/// The Rust registries, written from the folders.
fn rust_files(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    type Registry = fn(&Path, &str) -> Result<String, String>;
    let registries: [(&str, Registry); 2] =
        [("src/memory/tools/registry.rs", tools_registry), ("src/state/registry.rs", state_registry)];
    for (file, write) in registries {
        let current = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        files.push((file.to_owned(), rustfmt(root, &write(root, &current)?)?));
    }
    Ok(files)
}

/// What is written from the crate's declarations.
fn js_files(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files: Vec<(String, String)> =
        vec![("pkg-template/names.js".into(), names_js()), ("tests/facades/option_keys.ts".into(), option_keys_ts())];
    for u in unions() {
        let file = format!("pkg-template/{}", u.file);
        let text = match files.iter().position(|(f, _)| *f == file) {
            Some(i) => files.remove(i).1,
            None => std::fs::read_to_string(root.join(&file)).map_err(|e| format!("{file}: {e}"))?,
        };
        files.push((file, with_union(&text, &u)?));
    }
    Ok(files)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(root), Some(phase)) = (args.first(), args.get(1)) else {
        eprintln!("usage: agentmem-generate <repository root> rust|js [--check]");
        return ExitCode::from(2);
    };
    let check = args.iter().any(|a| a == "--check");
    let root = Path::new(root);
    let files = match phase.as_str() {
        "rust" => rust_files(root),
        "js" => js_files(root),
        other => Err(format!("unknown phase \"{other}\": rust or js")),
    };
    let files = match files {
        Ok(f) => f,
        Err(e) => {
            eprintln!("generate: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = Vec::new();
    for (file, text) in &files {
        let path = root.join(file);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if check {
            stale.push(file.clone());
        } else if let Err(e) = std::fs::write(&path, text) {
            eprintln!("generate: {}: {e}", path.display());
            return ExitCode::FAILURE;
        } else {
            println!("wrote {file}");
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "generate: {} differ from the Rust declarations they are written from; run scripts/generate.sh and commit the result",
            stale.join(", ")
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
