//! Writes the JavaScript side of what agentmem's boundary declares in Rust
//! (`agentmem::boundary` lists the names): `pkg-template/names.js`, the table wasm.js and
//! the facades take every name they pass to the module from; the string unions of the
//! `.d.ts` files that are a Rust enum's names; and `tests/facades/option_keys.ts`, which
//! holds each options interface of the `.d.ts` files to the keys its Rust reader accepts.
//! Also what the crate declares of the database, `tests/stack/declared.json`.
//! Run by `scripts/generate.sh`; with `--check` it writes nothing and fails when a file
//! differs from what it would write, which scripts/test.sh runs.
//!
//! Two phases, each its own run (scripts/generate.sh runs both, in this order):
//! - `rust`: the registries of the capabilities whose parts are files, written from the
//!   folders (`src/memory/tools/registry.rs`: a tool is a file; `src/state/registry.rs`: a
//!   store is a folder), so adding one is adding its file. They must be written before the
//!   crate this program links is compiled with them, hence the phase of its own.
//! - `js` (the module `js`, which links the crate): what is written from the crate's
//!   declarations, as above, and `tests/stack/declared.json` (the module `declared`): the
//!   tables, functions and stored names the crate declares of the database, which
//!   tests/stack/migrations_test.sh holds a database built by the migrations to.
//!
//! Usage: agentmem-generate <repository root> rust|js [--check]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

#[cfg(feature = "js")]
mod declared;
#[cfg(feature = "js")]
mod js;

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
    let definitions: Vec<String> = tools.iter().map(|t| format!("{t}::DEFINITION")).collect();
    let _ = write!(
        rs,
        "\n/// The memory tools, in the order of their definitions.\npub const TOOLS: &[Definition] = &[{}];\n\n\
         /// What a model is told of each tool of [`TOOLS`], in that order, as one JSON array.\n\
         pub const DEFINITIONS: &str = json_array!({});\n",
        list.join(", "),
        definitions.join(", ")
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
        stores.iter().map(|s| format!("        StateStore::{} => {s}::{call},\n", camel(s))).collect()
    };
    let migrations: Vec<String> = stores.iter().map(|s| format!("{s}::MIGRATION")).collect();
    let _ = write!(
        rs,
        "\nstring_enum!(\n    /// The stores (`call`'s first argument for the capability `state`).\n    StateStore {{\n{variants}    }}\n);\n\n\
         /// The stores' migrations, one a store.\n\
         pub const MIGRATIONS: [crate::migration::Migration; {n}] = [{migrations}];\n\n\
         /// Plans `op` of `store`, its arguments read as the store's `Call` declares them.\n\
         pub fn plan(store: StateStore, op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Op, ErrorReport> {{\n    match store {{\n{plan}    }}\n}}\n\n\
         /// Checks a store's constructor options; returns what the facade shows of them.\n\
         pub fn check_options(store: StateStore, options: &Value) -> Result<Value, Invalid> {{\n    match store {{\n{check}    }}\n}}\n\n\
         /// `store`'s operations with their parameters and results, for the JavaScript side\n\
         /// (`crates/generate`).\n\
         pub fn operations(store: StateStore) -> &'static [crate::arguments::Signature] {{\n    match store {{\n{ops}    }}\n}}\n",
        n = stores.len(),
        migrations = migrations.join(", "),
        plan = arms("plan(op, args, cx)"),
        check = arms("check_options(options)"),
        ops = arms("Operation::SIGNATURES"),
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
        #[cfg(feature = "js")]
        "js" => js::js_files(root),
        #[cfg(not(feature = "js"))]
        "js" => Err("the js phase needs the js feature (the default)".to_owned()),
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
