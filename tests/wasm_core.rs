//! The core compiled to wasm32 and run by wasm-bindgen-test in Node and headless Chromium:
//! the same code paths the package runs, including the JS-backed random source that mints
//! landing/bidcard ids.
#![cfg(target_arch = "wasm32")]

use agentmem::ids::{self, CoiaFlow, ParsedThreadId};
use wasm_bindgen_test::wasm_bindgen_test;

#[cfg(feature = "browser-tests")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn uuid5_matches_python_vectors() {
    // From CPython 3.11: uuid.uuid5(uuid.NAMESPACE_DNS, ...) and the COIA namespace.
    assert_eq!(ids::uuid5("python.org", &uuid::Uuid::NAMESPACE_DNS), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
    assert_eq!(ids::uuid5("", &uuid::Uuid::NAMESPACE_DNS), "4ebd0208-8328-5d69-8c44-ec50939c0967");
    assert_eq!(ids::conversation_id("landing-abc123def456", None).unwrap(), "1636806e-18db-5536-b0d9-dcd21dd1699b");
}

#[wasm_bindgen_test]
fn minted_ids_are_random_and_well_formed() {
    let a = ids::coia_thread(CoiaFlow::Landing, None).unwrap().thread_id;
    let b = ids::coia_thread(CoiaFlow::Landing, None).unwrap().thread_id;
    assert_ne!(a, b);
    assert!(matches!(ids::parse_thread_id(&a), ParsedThreadId::Landing { .. }), "{a}");
    let bid = ids::coia_thread(CoiaFlow::Bidcard, None).unwrap();
    assert!(matches!(ids::parse_thread_id(&bid.thread_id), ParsedThreadId::Bidcard { .. }));
}

#[wasm_bindgen_test]
fn deal_id_extraction_agrees_with_sql() {
    let deal = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";
    let thread = ids::cim_thread_id(deal, "x").unwrap();
    assert_eq!(ids::extract_deal_id(&thread).as_deref(), Some(deal));
    assert_eq!(ids::extract_deal_id(&thread.to_uppercase()), None);
    assert_eq!(ids::extract_deal_id(&format!("cim-{}", "-".repeat(36))), None);
}
