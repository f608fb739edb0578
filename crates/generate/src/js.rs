//! The `js` phase: what is written from the crate's declarations (`pkg-template/names.js`,
//! the `.d.ts` unions of Rust enums, `tests/facades/option_keys.ts`, and
//! `tests/stack/declared.json` from the module `declared`).

use std::fmt::Write as _;
use std::path::Path;

use agentmem::arguments::Signature;
use agentmem::boundary::{Action, Capability, SyncFunction};
use agentmem::checkpoint::CheckpointOp;
use agentmem::client::ClientOp;
use agentmem::input::Choice;
use agentmem::state::{self, StateStore};

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

/// One signature as a type: `{ args: [name: type, …], result }`. A parameter's label is
/// its name's last segment (`config.configurable`: `configurable`); those a call may leave
/// out at its end are optional.
fn signature_type(s: &Signature) -> String {
    // Only trailing parameters may be left out of a tuple.
    let required = s.params.iter().rposition(|(_, _, optional)| !optional).map_or(0, |i| i + 1);
    let params: Vec<String> = s
        .params
        .iter()
        .enumerate()
        .map(|(i, (js, ts, _))| {
            let optional = if i >= required { "?" } else { "" };
            format!("{}{optional}: {ts}", js.rsplit('.').next().unwrap_or(js))
        })
        .collect();
    format!("{{ args: [{}], result: {} }}", params.join(", "), s.result)
}

/// A JSDoc typedef of operations' signatures: `{ op: { args, result } }`.
fn calls_typedef(doc: &str, name: &str, signatures: &[Signature]) -> String {
    let ops: Vec<String> = signatures.iter().map(|s| format!(" *   {}: {},", s.name, signature_type(s))).collect();
    format!("/**\n * {doc}\n * @typedef {{{{\n{}\n * }}}} {name}\n */\n", ops.join("\n"))
}

/// The types the results name, imported from the `.d.ts` of their capability (whose
/// facade declares them): so a new result type is declared in that file and nowhere else.
fn result_imports() -> String {
    let state: Vec<Signature> = StateStore::ALL.iter().flat_map(|s| state::operations(*s).iter().cloned()).collect();
    let modules: [(&str, Vec<Signature>); 4] = [
        ("client.d.ts", ClientOp::SIGNATURES.to_vec()),
        ("langgraph.d.ts", CheckpointOp::SIGNATURES.to_vec()),
        ("memory.d.ts", vec![agentmem::memory::ToolCall::SIGNATURE]),
        ("state.d.ts", state),
    ];
    let mut lines = Vec::new();
    for (module, signatures) in modules {
        let mut names: Vec<&str> = signatures.iter().flat_map(|s| type_names(s.result)).collect();
        names.sort();
        names.dedup();
        if !names.is_empty() {
            lines.push(format!(" * @import {{ {} }} from \"./{module}\"", names.join(", ")));
        }
    }
    format!("/**\n{}\n */\n", lines.join("\n"))
}

/// The type names in a TypeScript type (identifiers that start upper-case), but for
/// TypeScript's own and those names.js declares.
fn type_names(ts: &'static str) -> impl Iterator<Item = &'static str> {
    const OWN: [&str; 5] = ["JsonText", "ReadAnswer", "Omit", "Uint8Array", "Record"];
    ts.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()) && !OWN.contains(w))
}

/// `/** doc */ export const name = value;`
fn constant(js: &mut String, doc: &str, name: &str, value: String) {
    let _ = write!(js, "/** {doc} */\nexport const {name} = {value};\n");
}

fn names_js() -> String {
    let mut js = String::from(
        "// @ts-check\n\
         // Written by scripts/generate.sh (crates/generate) from the Rust declarations of the names\n\
         // that cross the boundary (src/boundary.rs lists where each is declared); do not edit.\n\
         // wasm.js and the facades pass the module no name that is not taken from here, so a\n\
         // name the module does not know is a type error (tests/facades/check.sh), not a\n\
         // failure at run time. The operations' signatures are typedefs, so the facades'\n\
         // arguments and the results they take are held to the Rust declarations too.\n\n\
         /** JSON text a facade made of a caller's value (json.js `toJson`). @typedef {string} JsonText */\n\
         /** A read's answer: its JSON text and the byte buffers the text refers to by index. @typedef {[text: string, blobs: Uint8Array[]]} ReadAnswer */\n\n",
    );
    js.push_str(&result_imports());
    constant(
        &mut js,
        "The capabilities of `call` (src/boundary.rs `Capability`).",
        "CAPABILITY",
        table(Capability::NAMES),
    );
    constant(
        &mut js,
        "The functions of `callSync` (src/boundary.rs `SyncFunction`).",
        "SYNC",
        table(SyncFunction::NAMES),
    );
    js.push_str(&calls_typedef(
        "Each function of `callSync`: what it takes and answers (src/boundary.rs `SyncCall`).",
        "SyncCalls",
        SyncFunction::SIGNATURES,
    ));
    constant(
        &mut js,
        "What a run waiting on the host asks for: an action's first element (src/boundary.rs `Action`).",
        "ACTION",
        table(Action::NAMES),
    );
    constant(&mut js, "The client's operations (src/client.rs `ClientOp`).", "CLIENT_OP", table(ClientOp::NAMES));
    js.push_str(&calls_typedef(
        "Each operation of the client: what `call` takes and answers for it (src/client.rs `ClientCall`).",
        "ClientCalls",
        ClientOp::SIGNATURES,
    ));
    constant(
        &mut js,
        "The saver's operations against the database (src/checkpoint/ops.rs `CheckpointOp`).",
        "CHECKPOINT_OP",
        table(CheckpointOp::NAMES),
    );
    js.push_str(&calls_typedef(
        "Each operation of the saver's database backend: what `call` takes and answers for it (src/checkpoint/ops.rs `Call`).",
        "CheckpointCalls",
        CheckpointOp::SIGNATURES,
    ));
    constant(
        &mut js,
        "The state stores (src/state/registry.rs `StateStore`).",
        "STATE_STORE",
        table(StateStore::NAMES),
    );
    let per_store: Vec<String> = StateStore::ALL
        .iter()
        .map(|s| {
            let names: Vec<&str> = state::operations(*s).iter().map(|o| o.name).collect();
            format!("{}: {}", s.as_str(), table(&names).replace("\n", "\n  "))
        })
        .collect();
    constant(
        &mut js,
        "Each state store's operations (its `Op`, beside its planner in src/state/<store>/mod.rs).",
        "STATE_OP",
        format!("Object.freeze({{\n  {},\n}})", per_store.join(",\n  ")),
    );
    let stores: Vec<String> =
        StateStore::ALL.iter().map(|s| format!("{}: {}Calls", s.as_str(), crate::camel(s.as_str()))).collect();
    let _ = writeln!(
        js,
        "/** Each state store's operations (its `Call`). @typedef {{{{ {} }}}} StateCalls */",
        stores.join(", ")
    );
    for store in StateStore::ALL {
        let name = store.as_str();
        js.push_str(&calls_typedef(
            &format!("The operations of the state store `{name}` (src/state/{name}/mod.rs `Call`)."),
            &format!("{}Calls", crate::camel(name)),
            state::operations(*store),
        ));
    }
    let tools: Vec<&str> = agentmem::memory::tools::TOOLS.iter().map(|t| t.name).collect();
    constant(&mut js, "The memory tools (src/memory/tools/mod.rs `TOOLS`).", "MEMORY_TOOL", table(&tools));
    let list: Vec<String> = tools.iter().map(|t| format!("\"{t}\"")).collect();
    constant(
        &mut js,
        "The memory tools in the order of their definitions.",
        "MEMORY_TOOLS",
        format!("Object.freeze(/** @type {{const}} */ ([{}]))", list.join(", ")),
    );
    let _ = writeln!(
        js,
        "/** A memory tool's call, the same for every tool (src/memory/mod.rs `ToolCall`). @typedef {{{}}} MemoryCall */",
        signature_type(&agentmem::memory::ToolCall::SIGNATURE)
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

/// What is written from the crate's declarations.
pub fn js_files(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files: Vec<(String, String)> = vec![
        ("pkg-template/names.js".into(), names_js()),
        ("tests/facades/option_keys.ts".into(), option_keys_ts()),
        (crate::declared::FILE.into(), crate::declared::json()),
    ];
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
