//! The names that cross the JavaScript boundary as strings, checked against their one Rust
//! list: a facade calling a name the module does not dispatch (or a `.d.ts` promising a
//! tool Rust does not have) would only fail at run time, for the user who hits it.
//!   - the synchronous functions: `callSync("…")` in `pkg-template/wasm.js` against the
//!     match arms of `call_sync` in `src/wasm/mod.rs`, both ways;
//!   - the capabilities of `call`: the arms of `call` against the names `wasm.js` declares
//!     and the facades pass;
//!   - the operations of each capability: the ops `client.js`, `langgraph.js` and
//!     `state.js` pass against the arms (or `OPS` list) of the Rust code that plans them;
//!   - the memory tools: `memory::tools::TOOLS` against the tools `memory.js`'s methods
//!     call (its `toolNames` comes from the module) and `MemoryToolName` in `memory.d.ts`.

use std::collections::BTreeSet;

use agentmem::memory::tools::TOOLS;

const WASM_MOD_RS: &str = include_str!("../src/wasm/mod.rs");
const WASM_JS: &str = include_str!("../pkg-template/wasm.js");
const MEMORY_JS: &str = include_str!("../pkg-template/memory.js");
const MEMORY_D_TS: &str = include_str!("../pkg-template/memory.d.ts");
const FACADES: [(&str, &str); 5] = [
    ("client.js", include_str!("../pkg-template/client.js")),
    ("memory.js", MEMORY_JS),
    ("state.js", include_str!("../pkg-template/state.js")),
    ("langgraph.js", include_str!("../pkg-template/langgraph.js")),
    ("store.js", include_str!("../pkg-template/store.js")),
];

/// Every `"…"` that directly follows `after` in `text`.
fn quoted_after(text: &str, after: &str) -> BTreeSet<String> {
    text.match_indices(after)
        .filter_map(|(at, _)| {
            let rest = text[at + after.len()..].strip_prefix('"')?;
            Some(rest[..rest.find('"')?].to_owned())
        })
        .collect()
}

/// The string arms (`"name" =>`) of the function `fn_name` in src/wasm/mod.rs, up to its
/// fallback arm (`other =>`).
fn arms(fn_name: &str) -> BTreeSet<String> {
    arms_in(WASM_MOD_RS, fn_name)
}

/// The string arms of the function `fn_name` in the Rust source `rust`, up to its fallback
/// arm (`other =>`).
fn arms_in(rust: &str, fn_name: &str) -> BTreeSet<String> {
    let start = rust.find(&format!("fn {fn_name}(")).unwrap_or_else(|| panic!("no fn {fn_name}"));
    let body = &rust[start..];
    let body = &body[..body.find("other =>").unwrap_or_else(|| panic!("fn {fn_name} has no fallback arm"))];
    body.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('"')?;
            let name = &l[..l.find('"')?];
            l[name.len() + 1..].trim_start().starts_with("=>").then(|| name.to_owned())
        })
        .collect()
}

/// The string literals of a TypeScript or JSDoc union `"a" | "b"` that starts after `marker`
/// and ends before `end`.
fn union_between(text: &str, marker: &str, end: &str) -> BTreeSet<String> {
    let start = text.find(marker).unwrap_or_else(|| panic!("no {marker}")) + marker.len();
    let union = &text[start..start + text[start..].find(end).unwrap_or_else(|| panic!("no {end} after {marker}"))];
    union.split('|').filter_map(|p| p.trim().strip_prefix('"')?.strip_suffix('"').map(str::to_owned)).collect()
}

#[test]
fn every_synchronous_function_the_facades_call_is_dispatched_and_every_one_dispatched_is_called() {
    let dispatched = arms("call_sync");
    let called = quoted_after(WASM_JS, "callSync(");
    assert!(dispatched.len() >= 15, "call_sync arms: {dispatched:?}");
    assert_eq!(called, dispatched, "wasm.js callSync names vs src/wasm/mod.rs call_sync");
}

#[test]
fn every_capability_is_declared_dispatched_and_used() {
    let dispatched = arms("call");
    // The JSDoc of call(): ` * @param {"client" | … } capability`.
    let line = WASM_JS.lines().find(|l| l.ends_with("} capability")).expect("wasm.js documents call()'s capability");
    let declared = union_between(line, "@param {", "}");
    assert_eq!(declared, dispatched, "the capabilities wasm.js declares for call() vs the arms of call()");
    let used: BTreeSet<String> = FACADES
        .iter()
        .flat_map(|(_, text)| {
            dispatched.iter().filter(|c| text.contains(&format!(", \"{c}\","))).cloned().collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(used, dispatched, "a capability no facade calls, or one the module lacks");
}

#[test]
fn the_memory_tools_are_the_same_in_rust_memory_js_and_memory_d_ts() {
    let rust: BTreeSet<String> = TOOLS.iter().map(|t| t.name.to_owned()).collect();
    assert_eq!(rust.len(), 5);
    // memory.js takes the list from the module; its methods each call one of them.
    let called: BTreeSet<String> =
        MEMORY_JS.split("this.#call(\"").skip(1).map(|rest| rest[..rest.find('"').unwrap()].to_owned()).collect();
    assert_eq!(called, rust, "the tools memory.js's methods call");
    assert_eq!(union_between(MEMORY_D_TS, "export type MemoryToolName =", ";"), rust, "memory.d.ts MemoryToolName");
}

#[test]
fn every_operation_a_facade_passes_is_one_rust_plans_and_every_one_planned_is_passed() {
    let client_js = FACADES[0].1;
    let state_js = FACADES[2].1;
    let langgraph_js = FACADES[3].1;
    // The PostgREST client: request(this.#state, "select", …) against src/rest.rs.
    let rest = arms_in(include_str!("../src/rest.rs"), "plan");
    assert_eq!(quoted_after(client_js, "request(this.#state, "), rest, "client.js ops vs src/rest.rs plan");
    // The saver's database backend: database(this.#client, "put", …) against src/wasm/checkpoint.rs.
    let checkpoint = arms_in(include_str!("../src/wasm/checkpoint.rs"), "call_of");
    assert_eq!(checkpoint.len(), 8, "call_of arms: {checkpoint:?}");
    assert_eq!(quoted_after(langgraph_js, "database(this.#client, "), checkpoint, "langgraph.js ops vs call_of");
    // The state stores: call(this.#s, "<store>", "<op>", …) against each store's OPS.
    let stores = [
        ("unified", include_str!("../src/state/unified/mod.rs")),
        ("workflow", include_str!("../src/state/workflow/mod.rs")),
        ("research", include_str!("../src/state/research/mod.rs")),
        ("contractors", include_str!("../src/state/contractors/mod.rs")),
    ];
    let called_stores = quoted_after(state_js, "call(this.#s, ");
    assert_eq!(called_stores, stores.iter().map(|(s, _)| s.to_string()).collect(), "the stores state.js calls");
    for (store, rust) in stores {
        let list = &rust[rust.find("const OPS: [&str;").unwrap_or_else(|| panic!("{store} has no OPS"))..];
        let list = &list[list.find('=').unwrap()..list.find("];").unwrap()];
        let list = &list[list.find('[').unwrap() + 1..];
        let planned: BTreeSet<String> =
            list.split(',').filter_map(|p| p.trim().strip_prefix('"')?.strip_suffix('"').map(str::to_owned)).collect();
        assert!(planned.len() >= 4, "{store} OPS: {planned:?}");
        assert_eq!(
            quoted_after(state_js, &format!("call(this.#s, \"{store}\", ")),
            planned,
            "state.js {store} ops vs OPS"
        );
    }
}
