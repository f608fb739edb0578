//! The state codecs compiled to wasm32 (wasm-bindgen-test, Node and headless Chromium):
//! what differs from native there is the random source of draft ids (the platform's
//! crypto through JS) and 64-bit integers, which JS callers see as numbers.
#![cfg(target_arch = "wasm32")]

use agentmem::arguments::Values;
use agentmem::state::workflow::{Removed, WorkflowState};
use agentmem::state::{Context, StateStore, plan};
use agentmem::transport::target::Target;
use serde_json::{Value, json};
use wasm_bindgen_test::wasm_bindgen_test;

#[cfg(feature = "browser-tests")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn draft_id(t: &Target) -> String {
    let cx = Context { target: t, options: &Value::Null, now_ms: 0.0 };
    let op =
        plan(StateStore::Research, "saveDraft", &mut Values::new(&[json!("s"), json!("writing"), json!("x")]), &cx)
            .unwrap();
    let body: Value = serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap();
    body["p_id"].as_str().unwrap().to_owned()
}

#[wasm_bindgen_test]
fn draft_ids_come_from_the_platforms_random_source() {
    let t = Target::new("https://x.supabase.co", "anon", None).unwrap();
    let (a, b) = (draft_id(&t), draft_id(&t));
    assert_ne!(a, b);
    let u = uuid::Uuid::try_parse(&a).unwrap();
    assert_eq!(u.get_version_num(), 4, "{a}");
}

#[wasm_bindgen_test]
fn millisecond_timestamps_up_to_2_pow_53_survive_the_codec() {
    let max = 9_007_199_254_740_991i64;
    let s = json!({"session_id": "s", "created_at": max, "updated_at": max - 1, "conversations": [{"role": "user", "text": "t", "timestamp": max}]});
    let parsed = WorkflowState::parse(&s, "state", Removed::Reject, 0).unwrap();
    let text = parsed.to_json().to_string();
    assert!(text.contains("9007199254740991"), "{text}");
    let again = WorkflowState::parse(&serde_json::from_str(&text).unwrap(), "state", Removed::Reject, 0).unwrap();
    assert_eq!(again, parsed);
    let over = json!({"session_id": "s", "created_at": max + 1});
    assert!(WorkflowState::parse(&over, "state", Removed::Reject, 0).is_err(), "beyond what a JS number holds exactly");
}

#[wasm_bindgen_test]
fn unified_saves_use_pythons_conversation_id_on_wasm_too() {
    let t = Target::new("https://x.supabase.co", "anon", None).unwrap();
    let cx = Context { target: &t, options: &Value::Null, now_ms: 0.0 };
    let op = plan(
        StateStore::Unified,
        "save",
        &mut Values::new(&[json!("landing-abc123def456"), json!({"company_name": "Acme"})]),
        &cx,
    )
    .unwrap();
    let body: Value = serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap();
    assert_eq!(body["p_conversation_id"], json!("1636806e-18db-5536-b0d9-dcd21dd1699b"));
}
