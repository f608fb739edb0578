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
    // At run time (cargo sets it for the tests it runs): with a target dir shared between
    // checkouts, cargo may reuse a binary built in another one, whose compile-time path is
    // that checkout's (or gone).
    let manifest =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest.parent().unwrap().to_path_buf()
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
fn json_path_keys_parse_as_postgrest() {
    let Some(s) = setup() else { return };
    seed_items(&s, r#"[{"id":111,"name":"keys","meta":{"--":"dashes","a-b":1,"list":[1,2,3]}}]"#);
    let get = |q: &str| call(&s, "GET", &format!("/rest/v1/gw_items?id=eq.111&{q}"), &svc(&s), None);
    // PostgREST's answer for a key of dashes: its JSON-path parser refuses it (QueryParams.hs
    // pJsonPath: neither an index, `-` then digits, nor a key, which cannot start with `-`).
    let r = get("select=id&meta-%3E--=eq.dashes");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json(),
        serde_json::json!({"code": "PGRST100", "details": "unexpected \"-\" expecting digit", "hint": null,
                           "message": "\"failed to parse tree path (meta->--)\" (line 1, column 8)"})
    );
    let r = get("select=id,meta-%3E--");
    assert_eq!(
        (r.status, r.json()["message"].as_str()),
        (400, Some(r#""failed to parse select parameter (id,meta->--)" (line 1, column 11)"#))
    );
    assert_eq!(get("select=id&order=meta-%3E--").status, 400);
    assert_eq!(get("select=id&or=(meta-%3E--.eq.1)").status, 400);
    assert_eq!(get("select=id&meta-=eq.1").json()["details"], "unexpected end of input expecting letter or digit");
    // columns= is parsed on every request (QueryParams.hs `parse`), reads included.
    let r = get("columns=,a");
    assert_eq!(
        (r.status, r.json()["message"].as_str()),
        (400, Some(r#""failed to parse columns parameter (,a)" (line 1, column 1)"#))
    );
    // What it accepts: a quoted key, dashes between key characters, negative indexes.
    assert_eq!(ids(&get("select=id&meta-%3E%3E%22--%22=eq.dashes")), [111]);
    assert_eq!(ids(&get("select=id&meta-%3Ea-b=eq.1")), [111]);
    assert_eq!(get("select=last:meta-%3Elist-%3E-1").json(), serde_json::json!([{"last": 3}]));
    // Aliases are field names and casts identifiers (pFieldSelect).
    assert_eq!(
        get("select=%22my%20alias%22:id,n:name::text").json(),
        serde_json::json!([{"my alias": 111, "n": "keys"}])
    );
    assert_eq!(get("select=a!b:id").status, 400);
    let r = get("select=id::text%5B%5D");
    assert_eq!(
        (r.status, r.json()["message"].as_str()),
        (400, Some(r#""failed to parse select parameter (id::text[])" (line 1, column 9)"#))
    );
    // Text after a complete path is ignored by PostgREST's filter-key parser.
    assert_eq!(ids(&get("select=id&id!x=eq.111")), [111]);
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
        "/rest/v1/rpc/gw_items_over?id=gte.601&id=lte.603&order=id.desc&select=id",
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
    let r = call(&s, "TRACE", "/rest/v1/gw_items", &k, None);
    assert_eq!(r.status, 405);
    assert_eq!(
        r.json(),
        serde_json::json!({"code":"PGRST117","details":null,"hint":null,"message":"Unsupported HTTP method: TRACE"})
    );
    // PUT with a filter that is not the primary key (the PUT cases are in `put_…`).
    let r = call(&s, "PUT", "/rest/v1/gw_items?name=eq.x", &k, Some(r#"{"id":1,"name":"x"}"#));
    assert_eq!((r.status, r.json()["code"].as_str()), (405, Some("PGRST105")));
    let r = call(
        &s,
        "GET",
        "/rest/v1/gw_items",
        &[("apikey", &s.service), ("Prefer", "handling=strict, return=sideways")],
        None,
    );
    assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("PGRST122")));
}

/// The error body PostgREST gives for its own request errors (no details, no hint).
fn pgrst_error(code: &str, message: &str) -> serde_json::Value {
    serde_json::json!({"code": code, "details": null, "hint": null, "message": message})
}

/// PUT as UpsertSpec.hs ("with PUT") and tables_views.rst (`upsert_put`) describe it.
#[test]
fn put_upserts_one_row_by_primary_key() {
    let Some(s) = setup() else { return };
    let k = svc(&s);
    let rep = [("apikey", s.service.as_str()), ("Prefer", "return=representation")];
    // Inserting: 201 with the row; updating: 200. No Content-Range on PUT (Response.hs).
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.701&select=id,name", &rep, Some(r#"{"id":701,"name":"new"}"#));
    assert_eq!((r.status, r.json()), (201, serde_json::json!([{"id":701,"name":"new"}])));
    assert_eq!(r.header("content-type"), Some("application/json; charset=utf-8"));
    assert_eq!((r.header("preference-applied"), r.header("content-range")), (Some("return=representation"), None));
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.701&select=id,name", &rep, Some(r#"{"id":701,"name":"upd"}"#));
    assert_eq!((r.status, r.json()), (200, serde_json::json!([{"id":701,"name":"upd"}])));
    // Without a representation: 204, no body, no Content-Type; return=minimal is reported.
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.701", &k, Some(r#"{"id":701,"name":"quiet","score":3}"#));
    assert_eq!(
        (r.status, r.body.as_str(), r.header("content-type"), r.header("preference-applied")),
        (204, "", None, None)
    );
    let r = call(
        &s,
        "PUT",
        "/rest/v1/gw_items?id=eq.701",
        &[("apikey", &s.service), ("Prefer", "return=minimal")],
        Some(r#"{"id":701,"name":"minimal"}"#),
    );
    assert_eq!((r.status, r.body.as_str(), r.header("preference-applied")), (204, "", Some("return=minimal")));
    // Only the columns sent are updated.
    let r = call(&s, "GET", "/rest/v1/gw_items?id=eq.701&select=name,score", &k, None);
    assert_eq!(r.json(), serde_json::json!([{"name":"minimal","score":3}]));
    // A one-element array, the singular media type, the Range header ignored, offset=0.
    let r = call(
        &s,
        "PUT",
        "/rest/v1/gw_items?id=eq.702&select=id,name&offset=0",
        &[
            ("apikey", &s.service),
            ("Prefer", "return=representation"),
            ("Accept", "application/vnd.pgrst.object+json"),
            ("Range", "1-1"),
        ],
        Some(r#"[{"id":702,"name":"arr"}]"#),
    );
    assert_eq!((r.status, r.json()), (201, serde_json::json!({"id":702,"name":"arr"})));
    assert_eq!(r.header("content-type"), Some("application/vnd.pgrst.object+json; charset=utf-8"));
    // Of several payload rows only the one whose key matches the URL is written.
    let r = call(
        &s,
        "PUT",
        "/rest/v1/gw_items?id=eq.705&select=id",
        &rep,
        Some(r#"[{"id":705,"name":"in"},{"id":706,"name":"out"}]"#),
    );
    assert_eq!((r.status, r.json()), (201, serde_json::json!([{"id":705}])));
    assert_eq!(call(&s, "GET", "/rest/v1/gw_items?id=eq.706", &k, None).body, "[]");
    // Composite key, filters in any order.
    let r =
        call(&s, "PUT", "/rest/v1/gw_pairs?k2=eq.a%20b&k1=eq.1", &rep, Some(r#"{"k1":1,"k2":"a b","note":"first"}"#));
    assert_eq!((r.status, r.json()), (201, serde_json::json!([{"k2":"a b","k1":1,"note":"first"}])));
    let r =
        call(&s, "PUT", "/rest/v1/gw_pairs?k1=eq.1&k2=eq.a%20b", &rep, Some(r#"{"k1":1,"k2":"a b","note":"second"}"#));
    assert_eq!((r.status, r.json()[0]["note"].as_str()), (200, Some("second")));

    // MainTx.hs `failPut`: a payload key that differs from the URL's writes nothing.
    let mismatch = pgrst_error("PGRST115", "Payload values do not match URL in primary key column(s)");
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.703", &k, Some(r#"{"id":704,"name":"x"}"#));
    assert_eq!((r.status, r.json()), (400, mismatch.clone()));
    assert_eq!(r.header("proxy-status"), Some("PostgREST; error=PGRST115"));
    assert_eq!(call(&s, "GET", "/rest/v1/gw_items?id=in.(703,704)", &k, None).body, "[]");
    let r = call(&s, "PUT", "/rest/v1/gw_pairs?k1=eq.1&k2=eq.zz", &k, Some(r#"{"k1":1,"k2":"a b","note":"x"}"#));
    assert_eq!((r.status, r.json()), (400, mismatch));
    let r = call(&s, "GET", "/rest/v1/gw_pairs?k1=eq.1&select=note", &k, None);
    assert_eq!(r.json(), serde_json::json!([{"note":"second"}]));

    // ApiRequest.hs `getRanges`: limit/offset refused (PGRST114), before the table lookup.
    let ranged = pgrst_error("PGRST114", "limit/offset querystring parameters are not allowed for PUT");
    for path in
        ["/rest/v1/gw_items?id=eq.703&limit=1", "/rest/v1/gw_items?id=eq.703&offset=1", "/rest/v1/gw_nowhere?limit=0"]
    {
        let r = call(&s, "PUT", path, &k, Some(r#"{"id":703}"#));
        assert_eq!((r.status, r.json()), (400, ranged.clone()), "{path}");
    }
    // Plan.hs `mutatePlan`: only `eq` on every key column and nothing else (PGRST105).
    let filters = pgrst_error("PGRST105", "Filters must include all and only primary key columns with 'eq' operators");
    for path in [
        "/rest/v1/gw_items?name=eq.x",
        "/rest/v1/gw_items?id=not.eq.703",
        "/rest/v1/gw_items?id=in.(703)",
        "/rest/v1/gw_items?id=gte.703",
        "/rest/v1/gw_items?and=(id.eq.703)",
        "/rest/v1/gw_items?id=eq.703&name=eq.x",
        "/rest/v1/gw_items?id=eq.703&or=(name.eq.x,name.eq.y)",
        "/rest/v1/gw_items",
        "/rest/v1/gw_pairs?k1=eq.1",
        "/rest/v1/gw_nopk?a=eq.one&b=eq.two",
    ] {
        let r = call(&s, "PUT", path, &k, Some(r#"{"id":703,"name":"x"}"#));
        assert_eq!((r.status, r.json()), (405, filters.clone()), "{path}");
    }
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.703", &k, Some("not json"));
    assert_eq!((r.status, r.json()), (400, pgrst_error("PGRST102", "Empty or invalid json")));
    // The key column missing from the body: the URL filter names a column the payload lacks.
    let r = call(&s, "PUT", "/rest/v1/gw_items?id=eq.703", &k, Some(r#"{"name":"x"}"#));
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["message"].as_str()),
        (400, Some("42703"), Some("column pgrst_body.id does not exist"))
    );
}

/// PUT is INSERT … ON CONFLICT DO UPDATE, so RLS applies as to both: INSERT's WITH CHECK
/// for a new row, UPDATE's USING/WITH CHECK for an existing one.
#[test]
fn put_under_rls() {
    let Some(s) = setup() else { return };
    let a = jwt(&s, "cccccccc-0000-0000-0000-00000000000a", "authenticated", 3600);
    let b = jwt(&s, "cccccccc-0000-0000-0000-00000000000b", "authenticated", 3600);
    let (ba, bb) = (bearer(&a), bearer(&b));
    let as_a = [("apikey", s.anon.as_str()), ("Authorization", ba.as_str()), ("Prefer", "return=representation")];
    let as_b = [("apikey", s.anon.as_str()), ("Authorization", bb.as_str()), ("Prefer", "return=representation")];
    let id = 7000 + (std::process::id() % 1000) as i32;
    let path = format!("/rest/v1/gw_notes?id=eq.{id}&select=id,owner,body");
    let r = call(&s, "PUT", &path, &as_a, Some(&format!(r#"{{"id":{id},"body":"mine"}}"#)));
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(r.json(), serde_json::json!([{"id":id,"owner":"cccccccc-0000-0000-0000-00000000000a","body":"mine"}]));
    let r = call(&s, "PUT", &path, &as_a, Some(&format!(r#"{{"id":{id},"body":"still mine"}}"#)));
    assert_eq!((r.status, r.json()[0]["body"].as_str()), (200, Some("still mine")));
    // B's PUT on A's key conflicts with a row B's UPDATE policy does not let it touch.
    let r = call(&s, "PUT", &path, &as_b, Some(&format!(r#"{{"id":{id},"body":"stolen"}}"#)));
    assert_eq!((r.status, r.json()["code"].as_str()), (403, Some("42501")), "{r:?}");
    // B cannot create a row owned by A either (INSERT's WITH CHECK).
    let other = id + 1000;
    let r = call(
        &s,
        "PUT",
        &format!("/rest/v1/gw_notes?id=eq.{other}"),
        &as_b,
        Some(&format!(r#"{{"id":{other},"owner":"cccccccc-0000-0000-0000-00000000000a","body":"forged"}}"#)),
    );
    assert_eq!((r.status, r.json()["code"].as_str()), (403, Some("42501")));
    // anon has no grant: 401.
    let r = call(&s, "PUT", &path, &[("apikey", &s.anon)], Some(&format!(r#"{{"id":{id},"body":"anon"}}"#)));
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("42501")));
    let r = call(&s, "GET", &format!("/rest/v1/gw_notes?id=in.({id},{other})&select=body"), &svc(&s), None);
    assert_eq!(r.json(), serde_json::json!([{"body":"still mine"}]));
}

/// `Prefer: return=headers-only` (preferences.rst "Headers Only", InsertSpec.hs): 201, no
/// body, and for one inserted row of a table with a primary key a `Location` built by
/// Statements.hs `locF` / SqlFragment.hs `locationF` and rendered by Response.hs.
#[test]
fn inserts_return_headers_only_with_location() {
    let Some(s) = setup() else { return };
    let k = svc(&s);
    let only = [("apikey", s.service.as_str()), ("Prefer", "return=headers-only")];
    let r = call(&s, "POST", "/rest/v1/gw_items", &only, Some(r#"{"id":801,"name":"x"}"#));
    assert_eq!((r.status, r.body.as_str(), r.header("content-type")), (201, "", None));
    assert_eq!(r.header("location"), Some("/gw_items?id=eq.801"));
    assert_eq!(r.header("content-range"), Some("*/*"));
    assert_eq!(r.header("preference-applied"), Some("return=headers-only"));
    // A select without the key still gets it (Plan.hs `inferColsEmbedNeeds`).
    let r = call(&s, "POST", "/rest/v1/gw_items?select=name", &only, Some(r#"{"id":802,"name":"y"}"#));
    assert_eq!((r.status, r.header("location")), (201, Some("/gw_items?id=eq.802")));
    // Composite key: table column order with `*`, sorted with a column list; values
    // percent-encoded as http-types' renderSimpleQuery does; the Location reads the row back.
    let r = call(&s, "POST", "/rest/v1/gw_pairs", &only, Some(r#"{"k1":3,"k2":"Rock & R+ll"}"#));
    assert_eq!(r.header("location"), Some("/gw_pairs?k2=eq.Rock%20%26%20R%2Bll&k1=eq.3"));
    let back = call(&s, "GET", &format!("/rest/v1{}&select=k1,k2", r.header("location").unwrap()), &k, None);
    assert_eq!(back.json(), serde_json::json!([{"k1":3,"k2":"Rock & R+ll"}]));
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_pairs?select=note",
        &[("apikey", &s.service), ("Prefer", "return=headers-only, count=exact")],
        Some(r#"{"k1":4,"k2":"圍棋"}"#),
    );
    assert_eq!(r.header("location"), Some("/gw_pairs?k1=eq.4&k2=eq.%E5%9C%8D%E6%A3%8B"));
    assert_eq!(r.header("content-range"), Some("*/1"));
    assert_eq!(r.header("preference-applied"), Some("return=headers-only, count=exact"));
    // No Location for a bulk insert, a table without a primary key, or nothing inserted.
    let r = call(&s, "POST", "/rest/v1/gw_items", &only, Some(r#"[{"id":803},{"id":804}]"#));
    assert_eq!((r.status, r.header("location")), (201, None));
    let r = call(&s, "POST", "/rest/v1/gw_nopk", &only, Some(r#"{"a":"one","b":"two"}"#));
    assert_eq!(
        (r.status, r.header("location"), r.header("preference-applied")),
        (201, None, Some("return=headers-only"))
    );
    let ignore = [("apikey", s.service.as_str()), ("Prefer", "return=headers-only, resolution=ignore-duplicates")];
    let r = call(&s, "POST", "/rest/v1/gw_items", &ignore, Some(r#"{"id":801,"name":"again"}"#));
    assert_eq!((r.status, r.header("location")), (201, None));
    // An upsert that updates its one row: 200, with the Location.
    let merge = [("apikey", s.service.as_str()), ("Prefer", "return=headers-only, resolution=merge-duplicates")];
    let r = call(&s, "POST", "/rest/v1/gw_items", &merge, Some(r#"{"id":801,"name":"merged"}"#));
    assert_eq!((r.status, r.header("location")), (200, Some("/gw_items?id=eq.801")));
    assert_eq!(r.header("preference-applied"), Some("resolution=merge-duplicates, return=headers-only"));
    // Under RLS: reading the key back needs the SELECT policy, which the owner passes.
    let a = jwt(&s, "cccccccc-0000-0000-0000-0000000000aa", "authenticated", 3600);
    let ba = bearer(&a);
    let r = call(
        &s,
        "POST",
        "/rest/v1/gw_owned",
        &[("apikey", &s.anon), ("Authorization", &ba), ("Prefer", "return=headers-only")],
        Some(r#"{"body":"located"}"#),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let loc = r.header("location").unwrap().to_owned();
    assert!(loc.starts_with("/gw_owned?id=eq."), "{loc}");
    let back =
        call(&s, "GET", &format!("/rest/v1{loc}&select=body"), &[("apikey", &s.anon), ("Authorization", &ba)], None);
    assert_eq!(back.json(), serde_json::json!([{"body":"located"}]));
    // Without it (return=minimal) there is no Location.
    let r = call(&s, "POST", "/rest/v1/gw_items", &k, Some(r#"{"id":805}"#));
    assert_eq!((r.status, r.header("location")), (201, None));
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
    let admin = |method: &str, path: &str, body: Option<&str>| {
        call(&s, method, &format!("/__gateway/{path}"), &[("apikey", &s.secret)], body)
    };
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

#[test]
fn admin_routes_need_the_service_key_and_answer_no_cors() {
    let Some(s) = setup() else { return };
    let origin = ("Origin", "http://evil.test");
    let user = bearer(&jwt(&s, "00000000-0000-0000-0000-0000000000aa", "authenticated", 60));
    let service_jwt = bearer(&jwt(&s, "", "service_role", 60));
    let forged = format!("Bearer {}x", &service_jwt["Bearer ".len()..]);
    let refused: [Vec<(&str, &str)>; 6] = [
        vec![],
        vec![("apikey", &s.anon)],
        vec![("apikey", &s.publishable)],
        vec![("apikey", &s.anon), ("Authorization", &user)],
        vec![("Authorization", &forged)],
        vec![("apikey", "sb_secret_wrong")],
    ];
    for headers in &refused {
        for (method, path) in [("GET", "requests"), ("PUT", "faults"), ("DELETE", "requests")] {
            let r = call(&s, method, &format!("/__gateway/{path}"), &with(headers, origin), Some("[]"));
            assert_eq!(r.status, 401, "{method} {path} with {headers:?}: {}", r.body);
            assert_eq!(r.header("access-control-allow-origin"), None, "{method} {path} with {headers:?}");
        }
    }
    // The key in the query string is not enough: only headers count.
    let r = call(&s, "GET", &format!("/__gateway/requests?apikey={}", s.secret), &[], None);
    assert_eq!(r.status, 401);
    let accepted: [Vec<(&str, &str)>; 3] =
        [vec![("apikey", &s.secret)], vec![("apikey", &s.service)], vec![("Authorization", &service_jwt)]];
    for headers in &accepted {
        let r = call(&s, "GET", "/__gateway/requests", &with(headers, origin), None);
        assert_eq!(r.status, 200, "{headers:?}: {}", r.body);
        assert_eq!(r.header("access-control-allow-origin"), None, "{headers:?}");
        assert_eq!(r.header("access-control-expose-headers"), None, "{headers:?}");
    }
    // A browser's preflight gets no CORS answer, so a page on another origin cannot send
    // the key even if it had it.
    let r = call(
        &s,
        "OPTIONS",
        "/__gateway/faults",
        &[origin, ("Access-Control-Request-Method", "PUT"), ("Access-Control-Request-Headers", "apikey")],
        None,
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert_eq!(r.header("access-control-allow-methods"), None);
    // The API itself keeps PostgREST's CORS.
    let r = call(&s, "OPTIONS", "/rest/v1/gw_items", &[origin, ("Access-Control-Request-Method", "GET")], None);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
}

/// Runs SQL as postgres (DDL, or a look at the server's own state); returns psql's output.
fn psql(sql: &str) -> String {
    let out = Command::new(root().join("scripts/postgres.sh"))
        .args(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .env("PGOPTIONS", "-c client_min_messages=warning")
        .output()
        .expect("psql");
    assert!(out.status.success(), "psql failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Each request's statements are pipelined behind BEGIN and ended by COMMIT/ROLLBACK in the
/// same round trip: a failure at any step (parse, execution, the singular veto) must reach
/// the client unchanged and leave its connection idle, outside any transaction, for the next
/// request. Several rounds, so each statement runs unprepared, being prepared, and prepared.
#[test]
fn failed_requests_leave_their_connection_usable() {
    let Some(s) = setup() else { return };
    let k = svc(&s);
    call(&s, "DELETE", "/rest/v1/gw_items?id=in.(1701,1702,1703)", &k, None);
    seed_items(&s, r#"{"id":1701,"name":"kept","score":0}"#);
    let rounds = 4;
    for _ in 0..rounds {
        let r = call(
            &s,
            "POST",
            "/rest/v1/gw_items",
            &k,
            Some(r#"[{"id":1702,"name":"x"},{"id":1703,"name":"x"},{"id":1701,"name":"dup"}]"#),
        );
        assert_eq!((r.status, r.json()["code"].as_str()), (409, Some("23505")), "{r:?}");
        let r = call(&s, "POST", "/rest/v1/rpc/gw_raise", &k, Some("{}"));
        assert_eq!(
            (r.status, r.json()),
            (
                400,
                serde_json::json!({"code":"P0001","details":"Pretty simple","hint":"There is nothing you can do.","message":"I refuse!"})
            )
        );
        let r = call(&s, "GET", "/rest/v1/gw_items?nope=eq.1", &k, None);
        assert_eq!((r.status, r.json()["code"].as_str()), (400, Some("42703")));
        let r = call(
            &s,
            "GET",
            "/rest/v1/gw_items?id=eq.1702",
            &with(&k, ("Accept", "application/vnd.pgrst.object+json")),
            None,
        );
        assert_eq!(
            (r.status, r.json()["code"].as_str(), r.json()["details"].as_str()),
            (406, Some("PGRST116"), Some("The result contains 0 rows"))
        );
        let r = call(&s, "POST", "/rest/v1/rpc/gw_bump", &k, Some(r#"{"item_id":1701}"#));
        assert_eq!(r.status, 200, "{r:?}");
    }
    // Every bump committed once, and nothing of the failed inserts did.
    let r = call(&s, "GET", "/rest/v1/gw_items?id=in.(1701,1702,1703)&select=id,score", &k, None);
    assert_eq!(r.json(), serde_json::json!([{"id":1701,"score":rounds}]));
    let open =
        "select count(*) from pg_stat_activity where usename = 'authenticator' and state like 'idle in transaction%'";
    // Other tests' requests may be between two of their statements right now; a leaked
    // transaction would stay open for good.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while psql(open) != "0" {
        assert!(std::time::Instant::now() < deadline, "a gateway connection was left inside a transaction");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Statements stay prepared per connection; replacing what they name (a function's result
/// columns, a table's) must not surface Postgres's "cached plan must not change result type".
#[test]
fn prepared_statements_survive_replaced_functions_and_tables() {
    let Some(s) = setup() else { return };
    let k = svc(&s);
    psql(
        "drop function if exists public.gw_reshaped; drop table if exists public.gw_reshaped_t;
         create function public.gw_reshaped() returns table (a int, b int) language sql as $$ select 1, 2 $$;
         create table public.gw_reshaped_t (id int primary key);
         insert into public.gw_reshaped_t values (1);
         grant select on public.gw_reshaped_t to service_role;
         notify pgrst, 'reload schema';",
    );
    let until = |path: &str, want: serde_json::Value| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let method = if path.contains("/rpc/") { "POST" } else { "GET" };
            let r = call(&s, method, path, &k, (method == "POST").then_some("{}"));
            if r.status == 200 && r.json() == want {
                return;
            }
            // Until the gateway reloads, the old shape (or a 404 for what it has not seen
            // yet) is fine; any other error is not.
            assert!(r.status == 200 || r.status == 404, "{path}: {r:?}");
            assert!(std::time::Instant::now() < deadline, "{path}: still {r:?}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    for _ in 0..5 {
        until("/rest/v1/rpc/gw_reshaped", serde_json::json!([{"a":1,"b":2}]));
        until("/rest/v1/gw_reshaped_t", serde_json::json!([{"id":1}]));
    }
    psql(
        "drop function public.gw_reshaped();
         create function public.gw_reshaped() returns table (a int, b text, c text) language sql as $$ select 1, 'x', 'y' $$;
         alter table public.gw_reshaped_t add column note text default 'n';
         notify pgrst, 'reload schema';",
    );
    for _ in 0..5 {
        until("/rest/v1/rpc/gw_reshaped", serde_json::json!([{"a":1,"b":"x","c":"y"}]));
        until("/rest/v1/gw_reshaped_t", serde_json::json!([{"id":1,"note":"n"}]));
    }
    psql("drop function public.gw_reshaped(); drop table public.gw_reshaped_t; notify pgrst, 'reload schema';");
}

/// A function may DEALLOCATE the gateway's prepared statements mid-request. The requests
/// after it find theirs missing: each must still run exactly once (the transaction that
/// failed on a missing statement rolls back before it runs again, prepared afresh).
#[test]
fn deallocated_statements_are_prepared_again() {
    let Some(s) = setup() else { return };
    let k = svc(&s);
    psql(
        "drop function if exists public.gw_dealloc, public.gw_dealloc_bump; drop table if exists public.gw_dealloc_t;
         create table public.gw_dealloc_t (n int not null);
         insert into public.gw_dealloc_t values (0);
         grant select, update on public.gw_dealloc_t to service_role;
         create function public.gw_dealloc() returns int language plpgsql as
           $$ begin execute 'deallocate all'; update public.gw_dealloc_t set n = n + 1; return (select n from public.gw_dealloc_t); end $$;
         create function public.gw_dealloc_bump() returns int language sql as
           $$ update public.gw_dealloc_t set n = n + 10 returning n $$;
         notify pgrst, 'reload schema';",
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while call(&s, "GET", "/rest/v1/gw_dealloc_t", &k, None).status != 200 {
        assert!(std::time::Instant::now() < deadline, "the gateway never saw gw_dealloc_t");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut n = 0;
    for _ in 0..4 {
        n += 1;
        let r = call(&s, "POST", "/rest/v1/rpc/gw_dealloc", &k, Some("{}"));
        assert_eq!((r.status, r.body.clone()), (200, n.to_string()));
        n += 10;
        let r = call(&s, "POST", "/rest/v1/rpc/gw_dealloc_bump", &k, Some("{}"));
        assert_eq!((r.status, r.body.clone()), (200, n.to_string()));
        let r = call(&s, "GET", "/rest/v1/gw_dealloc_t?select=n", &k, None);
        assert_eq!(r.json(), serde_json::json!([{ "n": n }]));
    }
    psql(
        "drop function public.gw_dealloc, public.gw_dealloc_bump; drop table public.gw_dealloc_t; notify pgrst, 'reload schema';",
    );
}
