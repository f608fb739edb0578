//! The gateway against a real Postgres, over HTTP, case by case against PostgREST's
//! documented behaviour (see gateway/README.md). Needs the stack (`scripts/stack.sh up`);
//! without it each test says how to start it and passes, unless `CI` is set, where a
//! missing stack fails them.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Once;

struct Stack {
    url: String,
    anon: String,
    service: String,
    publishable: String,
    secret: String,
    jwt_secret: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The running stack, or why there is none.
fn running_stack() -> Result<Stack, String> {
    let dir = std::env::var("AGENTMEM_STACK_DIR").unwrap_or_else(|_| "/tmp/agentmem-stack".into());
    let s = std::fs::read_to_string(format!("{dir}/env"))
        .map(|env| stack_of(&env))
        .map_err(|_| format!("no stack at {dir}"))?;
    try_call(&s, "GET", "/rest/v1/", &[("apikey", &s.anon)], None)
        .map(|_| s)
        .map_err(|e| format!("the stack at {dir} does not answer ({e})"))
}

fn stack() -> Stack {
    running_stack().unwrap_or_else(|e| panic!("{e}"))
}

fn stack_of(env: &str) -> Stack {
    let get = |k: &str| {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k} missing from stack env"))
            .to_owned()
    };
    Stack {
        url: get("SUPABASE_URL"),
        anon: get("SUPABASE_ANON_KEY"),
        service: get("SUPABASE_SERVICE_ROLE_KEY"),
        publishable: get("SUPABASE_PUBLISHABLE_KEY"),
        secret: get("SUPABASE_SECRET_KEY"),
        jwt_secret: get("SUPABASE_JWT_SECRET"),
    }
}

static FIXTURE: Once = Once::new();
static SKIPPED: Once = Once::new();

/// The stack with the fixture loaded; `None` (after saying how to start it) when no stack
/// runs and `CI` is not set.
fn setup() -> Option<Stack> {
    if let Err(why) = running_stack() {
        let start = "start it with `scripts/stack.sh up --test-fixtures` (or run scripts/test.sh)";
        if std::env::var_os("CI").is_some() {
            panic!("{why}: {start}");
        }
        // Written past the test harness's capture, which would hide it from a passing run.
        SKIPPED.call_once(|| {
            let _ = writeln!(std::io::stderr(), "postgrest_compat: skipped, {why}: {start}");
        });
        return None;
    }
    FIXTURE.call_once(|| {
        let fixture = root().join("gateway/tests/fixture.sql");
        let out = Command::new(root().join("scripts/postgres.sh"))
            .args(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f"])
            .arg(&fixture)
            .env("PGOPTIONS", "-c client_min_messages=warning")
            .output()
            .expect("psql");
        assert!(out.status.success(), "fixture failed: {}", String::from_utf8_lossy(&out.stderr));
        // The gateway reloads its schema cache on NOTIFY; wait until it sees the fixture.
        let s = stack();
        for _ in 0..100 {
            if call(&s, "GET", "/rest/v1/gw_children", &[("apikey", &s.service)], None).status == 200 {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the gateway never saw the fixture tables");
    });
    Some(stack())
}

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

fn try_call(s: &Stack, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Result<Resp, String> {
    let mut r = ureq::request(method, &format!("{}{path}", s.url));
    for (k, v) in headers {
        r = r.set(k, v);
    }
    let result = match body {
        Some(b) => r.set("Content-Type", "application/json").send_string(b),
        None => r.call(),
    };
    let resp = match result {
        Ok(resp) | Err(ureq::Error::Status(_, resp)) => resp,
        Err(e) => return Err(e.to_string()),
    };
    let headers =
        resp.headers_names().into_iter().map(|n| (n.clone(), resp.header(&n).unwrap_or("").to_owned())).collect();
    let status = resp.status();
    Ok(Resp { status, headers, body: resp.into_string().unwrap_or_default() })
}

fn call(s: &Stack, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Resp {
    try_call(s, method, path, headers, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

fn jwt(s: &Stack, sub: &str, role: &str, expires_in: i64) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_agentmem-gateway"))
        .args([
            "mint",
            "--jwt-secret",
            &s.jwt_secret,
            "--sub",
            sub,
            "--role",
            role,
            "--expires-in",
            &expires_in.to_string(),
        ])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn bearer(t: &str) -> String {
    format!("Bearer {t}")
}

/// Service-role headers (RLS bypassed) for seeding and checking.
fn svc(s: &Stack) -> [(&'static str, &str); 1] {
    [("apikey", s.service.as_str())]
}

fn with<'a>(who: &[(&'a str, &'a str)], extra: (&'a str, &'a str)) -> Vec<(&'a str, &'a str)> {
    let mut v = who.to_vec();
    v.push(extra);
    v
}

fn seed_items(s: &Stack, rows: &str) {
    let r = call(
        s,
        "POST",
        "/rest/v1/gw_items?on_conflict=id",
        &[("apikey", &s.service), ("Prefer", "resolution=merge-duplicates")],
        Some(rows),
    );
    assert!(r.status == 201 || r.status == 200, "{r:?}");
}

fn ids(r: &Resp) -> Vec<i64> {
    r.json().as_array().unwrap_or_else(|| panic!("{r:?}")).iter().map(|row| row["id"].as_i64().unwrap()).collect()
}

#[test]
fn reads_select_filters_order_and_json_paths() {
    let Some(s) = setup() else { return };
    seed_items(
        &s,
        r#"[{"id":101,"name":"alpha one","tags":["a","b"],"meta":{"source":"loop","step":1},"score":1.5,"active":true},
            {"id":102,"name":"beta, two","tags":["b"],"meta":{"source":"input","step":2},"score":2.5,"active":false},
            {"id":103,"name":"gamma (3)","tags":["c"],"meta":{"source":"loop","step":3},"score":null,"active":true},
            {"id":104,"name":"quote\"back\\slash","tags":[],"meta":{},"score":4,"active":true}]"#,
    );
    let get = |q: &str| call(&s, "GET", &format!("/rest/v1/gw_items?{q}"), &svc(&s), None);
    let only = "id=gte.101&id=lte.104&order=id";

    assert_eq!(ids(&get(&format!("{only}&select=id"))), [101, 102, 103, 104]);
    let r = get("select=id,label:name,src:meta-%3E%3Esource,step:meta-%3Estep&id=eq.101");
    assert_eq!(r.json(), serde_json::json!([{"id":101,"label":"alpha one","src":"loop","step":1}]));
    assert_eq!(r.header("content-type"), Some("application/json; charset=utf-8"));
    assert_eq!(ids(&get(&format!("{only}&meta-%3E%3Esource=eq.loop"))), [101, 103]);
    assert_eq!(ids(&get(&format!("{only}&score=gt.2"))), [102, 104]);
    assert_eq!(ids(&get(&format!("{only}&score=is.null"))), [103]);
    assert_eq!(ids(&get(&format!("{only}&score=not.is.null"))), [101, 102, 104]);
    assert_eq!(ids(&get(&format!("{only}&active=is.false"))), [102]);
    assert_eq!(ids(&get(&format!("{only}&name=like.*a*one"))), [101]);
    assert_eq!(ids(&get(&format!("{only}&name=ilike.BETA*"))), [102]);
    assert_eq!(ids(&get(&format!("{only}&name=neq.alpha%20one"))), [102, 103, 104]);
    // PostgREST quoting inside in.(): commas, parentheses, quotes and backslashes.
    assert_eq!(
        ids(&get(&format!(r#"{only}&name=in.(%22beta,%20two%22,%22gamma%20(3)%22,%22quote\%22back\\slash%22)"#))),
        [102, 103, 104]
    );
    assert_eq!(ids(&get(&format!("{only}&name=in.()"))), Vec::<i64>::new());
    assert_eq!(ids(&get(&format!("{only}&tags=cs.%7Bb%7D"))), [101, 102]);
    assert_eq!(ids(&get(&format!("{only}&tags=cd.%7Ba,b,c%7D&tags=neq.%7B%7D"))), [101, 102, 103]);
    assert_eq!(ids(&get(&format!("{only}&meta=cs.%7B%22source%22:%22input%22%7D"))), [102]);
    assert_eq!(ids(&get(&format!("{only}&or=(score.gt.4,name.eq.alpha%20one)"))), [101]);
    assert_eq!(ids(&get(&format!("{only}&or=(id.eq.101,and(score.gte.2,active.is.true))"))), [101, 104]);
    assert_eq!(ids(&get(&format!("{only}&not.or=(id.eq.101,id.eq.102)"))), [103, 104]);
    assert_eq!(ids(&get(&format!("{only}&tsv=fts(english).gamma"))), [103]);
    assert_eq!(ids(&get("id=gte.101&id=lte.104&order=score.desc.nullslast")), [104, 102, 101, 103]);
    // DESC puts NULLs first, as in Postgres (104 has no step).
    assert_eq!(ids(&get("id=gte.101&id=lte.104&order=meta-%3E%3Estep.desc")), [104, 103, 102, 101]);
    // A hostile value is data, never SQL.
    assert_eq!(ids(&get(&format!("{only}&name=eq.x'%20or%20'1'='1"))), Vec::<i64>::new());
}

#[test]
fn pagination_counts_and_ranges() {
    let Some(s) = setup() else { return };
    let rows: Vec<String> = (201..=210).map(|i| format!(r#"{{"id":{i},"name":"p{i}"}}"#)).collect();
    seed_items(&s, &format!("[{}]", rows.join(",")));
    let base = "/rest/v1/gw_items?id=gte.201&id=lte.210&order=id";
    let r = call(&s, "GET", &format!("{base}&limit=3&offset=2"), &svc(&s), None);
    assert_eq!((r.status, r.header("content-range")), (200, Some("2-4/*")));
    assert_eq!(ids(&r), [203, 204, 205]);
    let r = call(&s, "GET", &format!("{base}&limit=3"), &[("apikey", &s.service), ("Prefer", "count=exact")], None);
    assert_eq!((r.status, r.header("content-range")), (206, Some("0-2/10")));
    assert_eq!(r.header("preference-applied"), Some("count=exact"));
    let r = call(&s, "GET", base, &[("apikey", &s.service), ("Prefer", "count=exact")], None);
    assert_eq!((r.status, r.header("content-range")), (200, Some("0-9/10")));
    let r = call(&s, "GET", base, &[("apikey", &s.service), ("Range", "5-6")], None);
    assert_eq!((r.status, r.header("content-range")), (200, Some("5-6/*")));
    assert_eq!(ids(&r), [206, 207]);
    let r = call(&s, "GET", &format!("{base}&offset=20"), &[("apikey", &s.service), ("Prefer", "count=exact")], None);
    assert_eq!((r.status, r.json()["code"].as_str()), (416, Some("PGRST103")));
    assert_eq!(r.header("content-range"), Some("*/10"));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=eq.-1", &[("apikey", &s.service), ("Prefer", "count=exact")], None);
    assert_eq!((r.status, r.header("content-range"), r.body.as_str()), (200, Some("*/0"), "[]"));
    let r = call(&s, "GET", base, &[("apikey", &s.service), ("Range", "5-2")], None);
    assert_eq!((r.status, r.json()["code"].as_str()), (416, Some("PGRST103")), "inverted Range header");
    assert_eq!(
        r.json()["details"].as_str(),
        Some("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
    );
    let r = call(&s, "PATCH", &format!("{base}&id=eq.201"), &[("apikey", &s.service), ("Range", "5-2")], Some("{}"));
    assert_ne!(r.status, 416, "Range counts for GET only");
    let r = call(&s, "GET", &format!("{base}&limit=-1"), &svc(&s), None);
    assert_eq!((r.status, r.json()["details"].as_str()), (416, Some("Limit should be greater than or equal to zero.")));
    let r = call(&s, "HEAD", &format!("{base}&limit=2"), &svc(&s), None);
    assert_eq!((r.status, r.header("content-range"), r.body.as_str()), (200, Some("0-1/*"), ""));
}

#[test]
fn inserts_bulk_columns_and_atomic_failure() {
    let Some(s) = setup() else { return };
    let r = call(&s, "POST", "/rest/v1/gw_items", &svc(&s), Some(r#"{"id":301,"name":"one"}"#));
    assert_eq!(
        (r.status, r.body.as_str(), r.header("content-type"), r.header("content-range")),
        (201, "", None, Some("*/*"))
    );
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_items?select=id,name",
        &[("apikey", &s.service), ("Prefer", "return=representation,count=exact")],
        Some(r#"[{"id":302,"name":"two"},{"id":303,"name":"three"}]"#),
    );
    assert_eq!(r.status, 201);
    assert_eq!(r.json(), serde_json::json!([{"id":302,"name":"two"},{"id":303,"name":"three"}]));
    assert_eq!(r.header("content-range"), Some("*/2"));
    assert_eq!(r.header("preference-applied"), Some("return=representation, count=exact"));

    let r = call(&s, "POST", "/rest/v1/gw_items", &svc(&s), Some(r#"[{"id":304},{"name":"x"}]"#));
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["message"].as_str()),
        (400, Some("PGRST102"), Some("All object keys must match"))
    );
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_items?columns=id,name",
        &svc(&s),
        Some(r#"[{"id":304},{"id":305,"name":"five","extra":1}]"#),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let r = call(&s, "POST", "/rest/v1/gw_items", &svc(&s), Some(r#"{"id":306,"nope":1}"#));
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("PGRST204")));
    let r = call(&s, "POST", "/rest/v1/gw_items", &svc(&s), Some("not json"));
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("PGRST102")));

    // One bad row fails the whole bulk insert: nothing is written.
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_items",
        &svc(&s),
        Some(r#"[{"id":310,"name":"ok"},{"id":311,"name":"ok"},{"id":301,"name":"dup"}]"#),
    );
    assert_eq!((r.status, r.json()["code"].as_str()), (409, Some("23505")));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=in.(310,311)", &svc(&s), None);
    assert_eq!(r.body, "[]");
    let r = call(&s, "POST", "/rest/v1/gw_items", &svc(&s), Some(r#"[{"id":"not-a-number"}]"#));
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("22P02")));
    let r = call(&s, "POST", "/rest/v1/gw_items", &svc(&s), Some(r#"[{"id":312,"name":"x\u0000y"}]"#));
    assert_eq!(r.status, 400);
}

#[test]
fn upserts_report_inserted_versus_updated() {
    let Some(s) = setup() else { return };
    let merge = [("apikey", s.service.as_str()), ("Prefer", "resolution=merge-duplicates,return=representation")];
    let r = call(&s, "POST", "/rest/v1/gw_items", &merge, Some(r#"{"id":401,"name":"first"}"#));
    assert_eq!(r.status, 201);
    assert_eq!(r.header("preference-applied"), Some("resolution=merge-duplicates, return=representation"));
    let r = call(&s, "POST", "/rest/v1/gw_items", &merge, Some(r#"{"id":401,"name":"second"}"#));
    assert_eq!((r.status, r.json()[0]["name"].as_str()), (200, Some("second")));
    let r =
        call(&s, "POST", "/rest/v1/gw_items", &merge, Some(r#"[{"id":401,"name":"third"},{"id":402,"name":"new"}]"#));
    assert_eq!(r.status, 201);
    let r = call(&s, "POST", "/rest/v1/gw_items", &merge, Some("[]"));
    assert_eq!((r.status, r.body.as_str()), (200, "[]"));
    let ignore = [("apikey", s.service.as_str()), ("Prefer", "resolution=ignore-duplicates,return=representation")];
    let r = call(&s, "POST", "/rest/v1/gw_items", &ignore, Some(r#"{"id":401,"name":"ignored"}"#));
    assert_eq!((r.status, r.body.as_str()), (201, "[]"));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=eq.401&select=name", &svc(&s), None);
    assert_eq!(r.json(), serde_json::json!([{"name":"third"}]));
}

#[test]
fn updates_deletes_and_singular_responses() {
    let Some(s) = setup() else { return };
    seed_items(&s, r#"[{"id":501,"name":"a"},{"id":502,"name":"b"},{"id":503,"name":"c"}]"#);
    let r = call(&s, "PATCH", "/rest/v1/gw_items?id=in.(501,502)", &svc(&s), Some(r#"{"score":9}"#));
    assert_eq!((r.status, r.header("content-range"), r.body.as_str()), (204, Some("0-1/*"), ""));
    let r = call(
        &s,
        "PATCH",
        "/rest/v1/gw_items?id=eq.501&select=id,score",
        &[("apikey", &s.service), ("Prefer", "return=representation")],
        Some(r#"{"score":10}"#),
    );
    assert_eq!((r.status, r.json()), (200, serde_json::json!([{"id":501,"score":10}])));

    let single = [("apikey", s.service.as_str()), ("Accept", "application/vnd.pgrst.object+json")];
    let r = call(&s, "GET", "/rest/v1/gw_items?id=eq.502&select=id,name", &single, None);
    assert_eq!((r.status, r.json()), (200, serde_json::json!({"id":502,"name":"b"})));
    assert_eq!(r.header("content-type"), Some("application/vnd.pgrst.object+json; charset=utf-8"));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=eq.-5", &single, None);
    assert_eq!(r.status, 406);
    assert_eq!(r.json()["code"], "PGRST116");
    assert_eq!(r.json()["details"], "The result contains 0 rows");
    // A singular mutation touching two rows is rolled back.
    let r = call(&s, "PATCH", "/rest/v1/gw_items?id=in.(502,503)", &single, Some(r#"{"name":"zzz"}"#));
    assert_eq!((r.status, r.json()["details"].as_str()), (406, Some("The result contains 2 rows")));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=in.(502,503)&name=eq.zzz", &svc(&s), None);
    assert_eq!(r.body, "[]");

    let r =
        call(&s, "DELETE", "/rest/v1/gw_items?id=eq.503", &[("apikey", &s.service), ("Prefer", "count=exact")], None);
    assert_eq!((r.status, r.header("content-range")), (204, Some("*/1")));
    let r = call(
        &s,
        "DELETE",
        "/rest/v1/gw_items?id=eq.502&select=id",
        &[("apikey", &s.service), ("Prefer", "return=representation")],
        None,
    );
    assert_eq!((r.status, r.json()), (200, serde_json::json!([{"id":502}])));
}

#[test]
fn rpc_shapes_and_function_errors() {
    let Some(s) = setup() else { return };
    seed_items(
        &s,
        r#"[{"id":601,"name":"r1","score":5},{"id":602,"name":"r2","score":6},{"id":603,"name":"r3","score":7}]"#,
    );
    let k = svc(&s);
    let r = call(&s, "POST", "/rest/v1/rpc/gw_add", &k, Some(r#"{"a":2,"b":40}"#));
    assert_eq!((r.status, r.body.as_str()), (200, "42"));
    let r = call(&s, "GET", "/rest/v1/rpc/gw_add?a=1&b=2", &k, None);
    assert_eq!(r.body, "3");
    let r = call(&s, "POST", "/rest/v1/rpc/gw_echo", &k, Some(r#"{"msg":"ab"}"#));
    assert_eq!(r.body, "\"ab\"");
    let r = call(
        &s,
        "POST",
        "/rest/v1/rpc/gw_items_over?id=lte.603&order=id.desc&select=id",
        &k,
        Some(r#"{"min_score":5}"#),
    );
    assert_eq!(r.json(), serde_json::json!([{"id":603},{"id":602}]));
    let r = call(&s, "POST", "/rest/v1/rpc/gw_item", &k, Some(r#"{"item_id":601}"#));
    assert_eq!(r.json()["name"], "r1");
    assert!(r.json().is_object());
    let r = call(&s, "POST", "/rest/v1/rpc/gw_void", &k, None);
    assert_eq!((r.status, r.body.as_str(), r.header("content-type")), (204, "", None));
    let r = call(&s, "POST", "/rest/v1/rpc/gw_json", &k, Some(r#"{"any":["thing"]}"#));
    assert_eq!(r.json(), serde_json::json!({"any":["thing"]}));

    let r = call(&s, "POST", "/rest/v1/rpc/gw_nope", &k, Some("{}"));
    assert_eq!((r.status, r.json()["code"].as_str()), (404, Some("PGRST202")));
    let r = call(&s, "POST", "/rest/v1/rpc/gw_add", &k, Some(r#"{"a":1,"c":2}"#));
    assert_eq!((r.status, r.json()["code"].as_str()), (404, Some("PGRST202")));
    let r = call(&s, "POST", "/rest/v1/rpc/gw_raise", &k, Some("{}"));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        serde_json::json!({"code":"P0001","details":"Pretty simple","hint":"There is nothing you can do.","message":"I refuse!"})
    );
    let r = call(&s, "POST", "/rest/v1/rpc/gw_teapot", &k, Some("{}"));
    assert_eq!((r.status, r.json()["code"].as_str()), (418, Some("PT418")));
    // A volatile function that writes cannot run through GET (read-only transaction).
    let r = call(&s, "GET", "/rest/v1/rpc/gw_bump?item_id=601", &k, None);
    assert_eq!((r.status, r.json()["code"].as_str()), (405, Some("25006")));
    let r = call(&s, "POST", "/rest/v1/rpc/gw_bump", &k, Some(r#"{"item_id":601}"#));
    assert_eq!((r.status, r.body.as_str()), (200, "6"));
    let r = call(&s, "POST", "/rest/v1/rpc/gw_set_headers", &k, Some("{}"));
    assert_eq!((r.body.as_str(), r.header("x-test")), ("7", Some("yes")));
}

#[test]
fn auth_keys_jwts_and_roles() {
    let Some(s) = setup() else { return };
    let r = call(&s, "GET", "/rest/v1/gw_items", &[], None);
    assert_eq!(r.status, 401);
    assert_eq!(
        r.json(),
        serde_json::json!({"message":"No API key found in request","hint":"No `apikey` request header or url param was found."})
    );
    let r = call(&s, "GET", "/rest/v1/gw_items", &[("apikey", "wrong")], None);
    assert_eq!((r.status, r.json()["message"].as_str()), (401, Some("Invalid API key")));
    assert!(r.json().get("code").is_none());
    let r = call(&s, "GET", &format!("/rest/v1/gw_items?apikey={}&limit=1", s.anon), &[], None);
    assert_eq!(r.status, 200);

    let who = |auth: &[(&str, &str)]| call(&s, "POST", "/rest/v1/rpc/gw_whoami", auth, Some("{}")).json();
    assert_eq!(who(&[("apikey", &s.anon)])["role"], "anon");
    assert_eq!(who(&[("apikey", &s.publishable)])["role"], "anon");
    assert_eq!(who(&[("apikey", &s.service)])["role"], "service_role");
    assert_eq!(who(&[("apikey", &s.secret)])["role"], "service_role");
    assert_eq!(who(&[("apikey", &s.secret), ("Authorization", &bearer(&s.secret))])["role"], "service_role");
    let user = jwt(&s, "aaaaaaaa-0000-0000-0000-000000000001", "authenticated", 3600);
    let me = who(&[("apikey", &s.publishable), ("Authorization", &bearer(&user))]);
    assert_eq!(
        (me["role"].as_str(), me["sub"].as_str()),
        (Some("authenticated"), Some("aaaaaaaa-0000-0000-0000-000000000001"))
    );
    assert_eq!((me["method"].as_str(), me["path"].as_str()), (Some("POST"), Some("/rest/v1/rpc/gw_whoami")));

    let expired = jwt(&s, "aaaaaaaa-0000-0000-0000-000000000001", "authenticated", -120);
    let r = call(&s, "GET", "/rest/v1/gw_items", &[("apikey", &s.anon), ("Authorization", &bearer(&expired))], None);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["message"].as_str()),
        (401, Some("PGRST303"), Some("JWT expired"))
    );
    assert_eq!(r.header("www-authenticate"), Some(r#"Bearer error="invalid_token", error_description="JWT expired""#));
    let forged = format!("{}x", &user[..user.len() - 1]);
    let r = call(&s, "GET", "/rest/v1/gw_items", &[("apikey", &s.anon), ("Authorization", &bearer(&forged))], None);
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("PGRST301")));
    let ghost = jwt(&s, "aaaaaaaa-0000-0000-0000-000000000001", "no_such_role", 3600);
    let r = call(&s, "GET", "/rest/v1/gw_items", &[("apikey", &s.anon), ("Authorization", &bearer(&ghost))], None);
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("22023")));
    // Bare PostgREST paths: no API-key gate, anon without a token.
    assert_eq!(call(&s, "POST", "/rpc/gw_whoami", &[], Some("{}")).json()["role"], "anon");
    // anon has no grant on gw_owned: 42501 → 401 for anon, 403 for a signed-in role.
    let r = call(&s, "GET", "/rest/v1/gw_owned", &[("apikey", &s.anon)], None);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.header("www-authenticate")),
        (401, Some("42501"), Some("Bearer"))
    );
}

#[test]
fn rls_isolates_users_on_every_verb() {
    let Some(s) = setup() else { return };
    let a = jwt(&s, "bbbbbbbb-0000-0000-0000-00000000000a", "authenticated", 3600);
    let b = jwt(&s, "bbbbbbbb-0000-0000-0000-00000000000b", "authenticated", 3600);
    let (ba, bb) = (bearer(&a), bearer(&b));
    let as_a = [("apikey", s.anon.as_str()), ("Authorization", ba.as_str())];
    let as_b = [("apikey", s.anon.as_str()), ("Authorization", bb.as_str())];
    let slug = format!("a-{}", std::process::id());
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_owned",
        &with(&as_a, ("Prefer", "return=representation")),
        Some(&format!(r#"{{"body":"secret of a","slug":"{slug}"}}"#)),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let id = r.json()[0]["id"].as_i64().unwrap();
    assert_eq!(r.json()[0]["owner"], "bbbbbbbb-0000-0000-0000-00000000000a");

    // B reads nothing, even by id; A reads its row.
    assert_eq!(call(&s, "GET", &format!("/rest/v1/gw_owned?id=eq.{id}"), &as_b, None).body, "[]");
    assert_eq!(ids(&call(&s, "GET", &format!("/rest/v1/gw_owned?id=eq.{id}"), &as_a, None)), [id]);
    // B's update and delete match no row; the row is unchanged.
    let r = call(
        &s,
        "PATCH",
        &format!("/rest/v1/gw_owned?id=eq.{id}"),
        &with(&as_b, ("Prefer", "return=representation")),
        Some(r#"{"body":"stolen"}"#),
    );
    assert_eq!((r.status, r.body.as_str()), (200, "[]"));
    let r = call(
        &s,
        "DELETE",
        &format!("/rest/v1/gw_owned?id=eq.{id}"),
        &with(&as_b, ("Prefer", "return=representation")),
        None,
    );
    assert_eq!((r.status, r.body.as_str()), (200, "[]"));
    let r = call(&s, "GET", &format!("/rest/v1/gw_owned?id=eq.{id}&select=body"), &svc(&s), None);
    assert_eq!(r.json(), serde_json::json!([{"body":"secret of a"}]));
    // B cannot write a row owned by A: RLS WITH CHECK → 42501 → 403 for a signed-in user.
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_owned",
        &as_b,
        Some(r#"{"body":"forged","owner":"bbbbbbbb-0000-0000-0000-00000000000a"}"#),
    );
    assert_eq!((r.status, r.json()["code"].as_str()), (403, Some("42501")));
    // B's upsert on A's unique slug cannot touch A's row.
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_owned?on_conflict=slug",
        &[("apikey", &s.anon), ("Authorization", &bb), ("Prefer", "resolution=merge-duplicates")],
        Some(&format!(r#"{{"body":"takeover","slug":"{slug}"}}"#)),
    );
    assert!(r.status >= 400, "{r:?}");
    let r = call(&s, "GET", &format!("/rest/v1/gw_owned?id=eq.{id}&select=body"), &svc(&s), None);
    assert_eq!(r.json(), serde_json::json!([{"body":"secret of a"}]));
    // The check constraint maps to 400 and writes nothing.
    let r = call(&s, "POST", "/rest/v1/gw_owned", &as_a, Some(&format!(r#"{{"body":"{}"}}"#, "x".repeat(200))));
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("23514")));
    // A deletes its own row.
    let r = call(
        &s,
        "DELETE",
        &format!("/rest/v1/gw_owned?id=eq.{id}"),
        &[("apikey", &s.anon), ("Authorization", &ba), ("Prefer", "count=exact")],
        None,
    );
    assert_eq!((r.status, r.header("content-range")), (204, Some("*/1")));
}

#[test]
fn error_mapping_table() {
    let Some(s) = setup() else { return };
    let k = svc(&s);
    call(
        &s,
        "POST",
        "/rest/v1/gw_parents?on_conflict=id",
        &[("apikey", &s.service), ("Prefer", "resolution=ignore-duplicates")],
        Some(r#"{"id":1}"#),
    );
    let r = call(&s, "POST", "/rest/v1/gw_children", &k, Some(r#"{"id":900,"parent_id":999}"#));
    assert_eq!((r.status, r.json()["code"].as_str()), (409, Some("23503")));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=eq.abc", &k, None);
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("22P02")));
    let r = call(&s, "GET", "/rest/v1/gw_items?nope=eq.1", &k, None);
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("42703")));
    let r = call(&s, "GET", "/rest/v1/gw_items?id=5", &k, None);
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("PGRST100")));
    let r = call(&s, "GET", "/rest/v1/gw_missing", &k, None);
    assert_eq!((r.status, r.json()["code"].as_str()), (404, Some("PGRST205")));
    assert_eq!(r.header("proxy-status"), Some("PostgREST; error=PGRST205"));
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.1", &k, Some("{}"));
    assert_eq!(r.status, 405);
    let body = r.json();
    for key in ["code", "message", "details", "hint"] {
        assert!(body.get(key).is_some(), "{key} missing from {body}");
    }
    let r = call(
        &s,
        "GET",
        "/rest/v1/gw_items",
        &[("apikey", &s.service), ("Prefer", "handling=strict, return=sideways")],
        None,
    );
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("PGRST122")));
}

#[test]
fn cors_like_postgrest() {
    let Some(s) = setup() else { return };
    let r = call(
        &s,
        "OPTIONS",
        "/rest/v1/gw_items",
        &[
            ("Origin", "http://app.test"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "apikey, content-type, prefer"),
        ],
        None,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        r.header("access-control-allow-headers"),
        Some("Authorization, apikey, content-type, prefer, Accept, Accept-Language, Content-Language")
    );
    let r = call(&s, "GET", "/rest/v1/gw_items?limit=1", &[("apikey", &s.anon), ("Origin", "http://app.test")], None);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(r.header("access-control-expose-headers").unwrap().contains("Content-Range"));
    let r = call(&s, "GET", "/rest/v1/gw_missing", &[("apikey", &s.anon), ("Origin", "http://app.test")], None);
    assert_eq!((r.status, r.header("access-control-allow-origin")), (404, Some("*")));
    let r = call(&s, "GET", "/rest/v1/gw_items?limit=1", &[("apikey", &s.anon)], None);
    assert_eq!(r.header("access-control-allow-origin"), None);
}

#[test]
fn fault_mode_status_drop_and_delay() {
    let Some(s) = setup() else { return };
    let admin =
        |method: &str, path: &str, body: Option<&str>| call(&s, method, &format!("/__gateway/{path}"), &[], body);
    // Only gw_children is touched here, so other tests running in parallel are unaffected.
    let rules = r#"[{"action":"status","status":503,"path":"/gw_children","method":"GET","nth":[1]},
                    {"action":"drop_before","path":"/gw_children","method":"POST","nth":[1]},
                    {"action":"drop_after","path":"/gw_children","method":"POST","nth":[2]},
                    {"action":"delay","delay_ms":300,"path":"/gw_children","method":"DELETE","times":1}]"#;
    let k = svc(&s);
    call(
        &s,
        "POST",
        "/rest/v1/gw_parents?on_conflict=id",
        &[("apikey", &s.service), ("Prefer", "resolution=ignore-duplicates")],
        Some(r#"{"id":1}"#),
    );
    call(&s, "DELETE", "/rest/v1/gw_children?id=in.(950,951)", &k, None);
    assert_eq!(admin("PUT", "faults", Some(rules)).status, 200);

    let r = call(&s, "GET", "/rest/v1/gw_children", &k, None);
    assert_eq!(r.status, 503);
    assert_eq!(call(&s, "GET", "/rest/v1/gw_children", &k, None).status, 200);

    // drop_before: the connection closes and nothing was written.
    assert!(try_call(&s, "POST", "/rest/v1/gw_children", &k, Some(r#"{"id":950,"parent_id":1}"#)).is_err());
    assert_eq!(call(&s, "GET", "/rest/v1/gw_children?id=eq.950", &k, None).body, "[]");
    // drop_after: the client sees a dropped connection, yet the row was committed.
    assert!(try_call(&s, "POST", "/rest/v1/gw_children", &k, Some(r#"{"id":951,"parent_id":1}"#)).is_err());
    assert_eq!(ids(&call(&s, "GET", "/rest/v1/gw_children?id=eq.951", &k, None)), [951]);
    let t = std::time::Instant::now();
    assert_eq!(call(&s, "DELETE", "/rest/v1/gw_children?id=eq.951", &k, None).status, 204);
    assert!(t.elapsed() >= std::time::Duration::from_millis(300));

    let log = admin("GET", "requests", None).json();
    assert!(log["count"].as_u64().unwrap() > 0);
    assert_eq!(admin("DELETE", "faults", None).status, 200);
}
