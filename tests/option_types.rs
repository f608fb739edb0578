//! The option types of `pkg-template/*.d.ts` against what Rust accepts: every key an
//! options interface declares is sent through the Rust reader of those options (as `null`,
//! which every reader takes as "not given"), and must not be refused as unknown; and every
//! key the reader accepts (the list its "not a known option" message gives) must be
//! declared. Keys the facades keep to themselves (`client`, `embed`, `fetch`) are not sent,
//! but the reader lists them too, so that its message names every option.

use std::collections::BTreeSet;

use agentmem::ErrorReport;
use agentmem::memory::{Settings, definitions};
use agentmem::state::{self, Store};
use agentmem::transport::config::configure;
use agentmem::transport::options::{ReadOptions, RpcOptions, WriteOptions};
use agentmem::transport::target::Target;
use serde_json::{Map, Value};

/// The .d.ts files that declare options (index.d.ts re-exports them).
const D_TS: [(&str, &str); 3] = [
    ("client.d.ts", include_str!("../pkg-template/client.d.ts")),
    ("memory.d.ts", include_str!("../pkg-template/memory.d.ts")),
    ("state.d.ts", include_str!("../pkg-template/state.d.ts")),
];

/// Keys the facades read themselves; Rust never sees them.
const FACADE_ONLY: [&str; 3] = ["client", "embed", "fetch"];

/// The keys of `export interface {name} [extends A, B] { ... }`, inherited ones included.
fn declared(name: &str) -> BTreeSet<String> {
    let needle = format!("export interface {name} ");
    let text = D_TS
        .iter()
        .find_map(|(_, text)| text.find(&needle).map(|start| &text[start..]))
        .unwrap_or_else(|| panic!("no .d.ts of {:?} declares interface {name}", D_TS.map(|(file, _)| file)));
    let open = text.find('{').unwrap();
    let mut keys = BTreeSet::new();
    if let Some(parents) = text[..open].split(" extends ").nth(1) {
        for parent in parents.split(',') {
            keys.extend(declared(parent.trim()));
        }
    }
    let body = &text[open + 1..text.find("\n}").unwrap()];
    for line in body.lines() {
        // Members sit at two spaces; deeper lines belong to comments or nested types.
        let Some(member) = line.strip_prefix("  ").filter(|l| l.starts_with(|c: char| c.is_ascii_alphabetic())) else {
            continue;
        };
        let key: String = member.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if member[key.len()..].starts_with(['?', ':']) {
            keys.insert(key);
        }
    }
    keys
}

/// The declared keys the Rust reader sees.
fn sent(name: &str) -> BTreeSet<String> {
    declared(name).into_iter().filter(|k| !FACADE_ONLY.contains(&k.as_str())).collect()
}

/// An options object with every one of `keys` set to `null`.
fn nulls<'a>(keys: impl IntoIterator<Item = &'a String>) -> Value {
    Value::Object(keys.into_iter().map(|k| (k.clone(), Value::Null)).collect::<Map<_, _>>())
}

/// The keys `read` accepts: those its message lists when it meets a key it does not know.
fn accepted(read: &dyn Fn(&Value) -> Option<ErrorReport>) -> BTreeSet<String> {
    let probe = serde_json::json!({ "probe_": 1 });
    let report = read(&probe).expect("an unknown key is refused");
    let (_, list) = report.message.split_once("expected one of: ").unwrap_or_else(|| panic!("{}", report.message));
    list.split(", ").map(str::to_owned).collect()
}

/// `interfaces`' declared keys and `read`'s accepted keys are the same set, and none of
/// the declared keys is refused as unknown.
fn agree(interfaces: &[&str], read: &dyn Fn(&Value) -> Option<ErrorReport>) {
    let sent: BTreeSet<String> = interfaces.iter().flat_map(|i| sent(i)).collect();
    if let Some(e) = read(&nulls(&sent)) {
        assert!(!e.message.contains("is not a known"), "{interfaces:?}: Rust refuses a declared key: {}", e.message);
    }
    let accepted = accepted(read);
    // Nested readers name their keys by path (`options.fields`).
    let accepted: BTreeSet<String> =
        accepted.into_iter().map(|k| k.rsplit('.').next().unwrap_or(&k).to_owned()).collect();
    // The facades' own keys are in the reader's list too, so that a message names every
    // option (a misspelled `fetch` is refused listing `fetch`).
    let declared: BTreeSet<String> = interfaces.iter().flat_map(|i| declared(i)).collect();
    assert_eq!(declared, accepted, "{interfaces:?}: the .d.ts keys (left) and the keys Rust accepts (right) differ");
}

fn target() -> Target {
    Target::new("https://x.co", "sb_secret_abc", None).unwrap()
}

#[test]
fn client_options() {
    agree(&["ClientOptions"], &|v| configure(Some(&v.to_string()), false).err());
}

#[test]
fn request_options() {
    agree(&["SelectOptions"], &|v| ReadOptions::parse(v).err());
    agree(&["WriteOptions", "UpsertOptions", "FilteredWriteOptions"], &|v| WriteOptions::parse(v).err());
    agree(&["RpcOptions"], &|v| RpcOptions::parse(v).err());
}

#[test]
fn memory_options() {
    agree(&["MemoryToolsOptions"], &|v| Settings::parse(Some(&v.to_string()), &target(), 0.0).err());
    agree(&["DefinitionOptions"], &|v| definitions::strict_option(Some(&v.to_string())).err().map(Into::into));
}

#[test]
fn store_options() {
    let store = |s: Store| move |v: &Value| state::check_options(s, v).err().map(ErrorReport::from);
    agree(&["UnifiedStateManagerOptions"], &store(Store::Unified));
    agree(&["WorkflowStateStoreOptions"], &store(Store::Workflow));
}

#[test]
fn stores_without_options_of_their_own_take_none() {
    assert_eq!(sent("StoreOptions"), BTreeSet::new());
    for s in [Store::Research, Store::Contractors] {
        assert_eq!(state::check_options(s, &serde_json::json!({})), Ok(Value::Object(Map::new())));
        let e = state::check_options(s, &serde_json::json!({"probe_": 1})).unwrap_err();
        assert_eq!(e.field, "options.probe_");
    }
}
