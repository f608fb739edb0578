//! Building PostgREST requests as plain descriptions (method, URL, headers, body), with no
//! I/O, so every header and query string is unit-tested natively (the postgrest-rs model).
//!
//! Why not the `postgrest` crate itself: its builder yields a `reqwest::RequestBuilder`
//! (reqwest always sends through the *global* `fetch`, so callers could not inject one,
//! and it has no per-request AbortController timeout), and its `in_` joins values with
//! bare commas (postgrest-1.6.0 src/filter.rs), so a value containing `,` or `)` silently
//! changes the filter. We keep its shape (a builder producing a request) and write the
//! quoting PostgREST actually specifies (see `encode`).

use serde_json::Value;

use super::TransportError;
use super::encode::{percent_encode, scalar_text};
use super::filter::{check_name, column_token, filter_pairs, parse_filters};
use super::options::{OrderSpec, ReadOptions, Returning, RpcOptions, WriteOptions};
use super::target::Target;

/// A request ready to hand to `fetch`.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// Safe to send twice (decides retries).
    pub idempotent: bool,
    pub expect: Expect,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What the caller wants back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The JSON body as PostgREST sent it (array, object, scalar) or null when empty.
    Body,
    /// Exactly one row (singular Accept header; PGRST116 otherwise).
    Single,
    /// Zero or one row: null when none, an error when more.
    MaybeSingle,
}

fn order_value(order: &OrderSpec) -> Result<String, TransportError> {
    match order {
        OrderSpec::Raw(s) => {
            check_name("order", s)?;
            Ok(s.clone())
        }
        OrderSpec::Terms(terms) => terms
            .iter()
            .enumerate()
            .map(|(i, t)| {
                check_name(&format!("order[{i}].column"), &t.column)?;
                let mut s = column_token(&t.column);
                s.push_str(if t.ascending { ".asc" } else { ".desc" });
                match t.nulls_first {
                    Some(true) => s.push_str(".nullsfirst"),
                    Some(false) => s.push_str(".nullslast"),
                    None => {}
                }
                Ok(s)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.join(",")),
    }
}

fn url(target: &Target, path: &str, pairs: &[(String, String)]) -> String {
    let mut u = format!("{}/{}", target.rest_url, path);
    for (i, (k, v)) in pairs.iter().enumerate() {
        u.push(if i == 0 { '?' } else { '&' });
        u.push_str(&percent_encode(k));
        u.push('=');
        u.push_str(&percent_encode(v));
    }
    u
}

fn prefer(parts: &[Option<String>]) -> Option<String> {
    let p: Vec<&str> = parts.iter().flatten().map(String::as_str).collect();
    (!p.is_empty()).then(|| p.join(","))
}

struct Shape<'a> {
    columns: Option<&'a str>,
    filters: &'a [Value],
    order: Option<&'a OrderSpec>,
    limit: Option<u64>,
    offset: Option<u64>,
}

fn read_pairs(s: &Shape) -> Result<Vec<(String, String)>, TransportError> {
    let mut pairs = Vec::new();
    if let Some(c) = s.columns {
        check_name("columns", c)?;
        pairs.push(("select".to_owned(), c.replace(char::is_whitespace, "")));
    }
    let filters = parse_filters("filters", s.filters)?;
    pairs.extend(filter_pairs(&filters).map_err(|m| TransportError::invalid("filters", m))?);
    if let Some(o) = s.order {
        pairs.push(("order".to_owned(), order_value(o)?));
    }
    if let Some(l) = s.limit {
        pairs.push(("limit".to_owned(), l.to_string()));
    }
    if let Some(o) = s.offset.filter(|o| *o > 0) {
        pairs.push(("offset".to_owned(), o.to_string()));
    }
    Ok(pairs)
}

fn expect_of(single: bool, maybe_single: bool) -> Result<Expect, TransportError> {
    match (single, maybe_single) {
        (true, true) => Err(TransportError::invalid("single", "single and maybeSingle cannot both be set")),
        (true, false) => Ok(Expect::Single),
        (false, true) => Ok(Expect::MaybeSingle),
        (false, false) => Ok(Expect::Body),
    }
}

fn accept(headers: &mut Vec<(String, String)>, expect: Expect) {
    let value = if expect == Expect::Single { "application/vnd.pgrst.object+json" } else { "application/json" };
    headers.push(("Accept".to_owned(), value.to_owned()));
}

pub fn select(target: &Target, table: &str, o: &ReadOptions) -> Result<HttpRequest, TransportError> {
    check_name("table", table)?;
    let expect = expect_of(o.single, o.maybe_single)?;
    let pairs = read_pairs(&Shape {
        columns: o.columns.as_deref(),
        filters: &o.filters,
        order: o.order.as_ref(),
        limit: o.limit,
        offset: o.offset,
    })?;
    let method = if o.head { "HEAD" } else { "GET" };
    let mut headers = target.base_headers(method);
    accept(&mut headers, expect);
    if let Some(p) = prefer(&[o.count.map(|c| format!("count={}", c.as_str()))]) {
        headers.push(("Prefer".to_owned(), p));
    }
    Ok(HttpRequest {
        method,
        url: url(target, &percent_encode(table), &pairs),
        headers,
        body: None,
        idempotent: true,
        expect,
    })
}

fn rows_body(field: &str, rows: &Value, allow_array: bool) -> Result<String, TransportError> {
    match rows {
        Value::Object(_) => Ok(crate::json::text(rows)),
        Value::Array(items) if allow_array && items.iter().all(Value::is_object) => Ok(crate::json::text(rows)),
        _ if allow_array => {
            Err(TransportError::invalid(field, format!("{field} must be an object or an array of objects")))
        }
        _ => Err(TransportError::invalid(field, format!("{field} must be an object"))),
    }
}

/// Postgres text cannot hold NUL; refusing it here keeps the write from failing half-way
/// through a batch on the server.
fn check_no_nul(field: &str, body: &str) -> Result<(), TransportError> {
    // A `\u0000` escape, not text that merely reads so (`\\u0000`: an escaped backslash,
    // then "u0000", as in JSON text carried inside a string): the backslashes before it
    // must be an odd run.
    // One pass over the runs of backslashes (a substring search for each candidate costs a
    // searcher per call at the size-optimized level).
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut nul = false;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let run = i;
        while i < bytes.len() && bytes[i] == b'\\' {
            i += 1;
        }
        if (i - run) % 2 == 1 && bytes[i..].starts_with(b"u0000") {
            nul = true;
            break;
        }
    }
    if nul {
        return Err(TransportError::invalid(
            field,
            format!("{field} contains a NUL character (\\u0000), which Postgres text cannot store"),
        ));
    }
    Ok(())
}

fn write(
    target: &Target,
    method: &'static str,
    table: &str,
    body: Option<String>,
    o: &WriteOptions,
    upsert: bool,
) -> Result<HttpRequest, TransportError> {
    check_name("table", table)?;
    let expect = expect_of(o.single, false)?;
    let mut pairs = Vec::new();
    if let Some(cols) = &o.insert_columns {
        cols.iter().try_for_each(|c| check_name("insertColumns", c))?;
        pairs.push(("columns".to_owned(), cols.iter().map(|c| column_token(c)).collect::<Vec<_>>().join(",")));
    }
    if upsert && let Some(cols) = &o.on_conflict {
        cols.iter().try_for_each(|c| check_name("onConflict", c))?;
        pairs.push(("on_conflict".to_owned(), cols.iter().map(|c| column_token(c)).collect::<Vec<_>>().join(",")));
    }
    if o.returning == Returning::Representation
        && let Some(c) = &o.columns
    {
        check_name("columns", c)?;
        pairs.push(("select".to_owned(), c.replace(char::is_whitespace, "")));
    }
    let filters = parse_filters("filters", &o.filters)?;
    if method == "POST" && !filters.is_empty() {
        return Err(TransportError::invalid("filters", "inserts take no filters"));
    }
    pairs.extend(filter_pairs(&filters).map_err(|m| TransportError::invalid("filters", m))?);
    let mut headers = target.base_headers(method);
    accept(&mut headers, expect);
    if body.is_some() {
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
    }
    let resolution = upsert.then(|| {
        if o.ignore_duplicates {
            "resolution=ignore-duplicates".to_owned()
        } else {
            "resolution=merge-duplicates".to_owned()
        }
    });
    let ret = Some(match o.returning {
        Returning::Minimal => "return=minimal".to_owned(),
        Returning::Representation => "return=representation".to_owned(),
    });
    let missing = o.missing_default.then(|| "missing=default".to_owned());
    if let Some(p) = prefer(&[resolution, ret, o.count.map(|c| format!("count={}", c.as_str())), missing]) {
        headers.push(("Prefer".to_owned(), p));
    }
    // A plain insert is not idempotent; an upsert with a conflict target, an update that
    // assigns literal values (PostgREST's PATCH) and a delete are.
    let idempotent = method != "POST" || upsert;
    Ok(HttpRequest { method, url: url(target, &percent_encode(table), &pairs), headers, body, idempotent, expect })
}

pub fn insert(target: &Target, table: &str, rows: &Value, o: &WriteOptions) -> Result<HttpRequest, TransportError> {
    if o.on_conflict.is_some() || o.ignore_duplicates {
        return Err(TransportError::invalid("onConflict", "onConflict and ignoreDuplicates belong to upsert"));
    }
    let body = rows_body("rows", rows, true)?;
    check_no_nul("rows", &body)?;
    write(target, "POST", table, Some(body), o, false)
}

pub fn upsert(target: &Target, table: &str, rows: &Value, o: &WriteOptions) -> Result<HttpRequest, TransportError> {
    let body = rows_body("rows", rows, true)?;
    check_no_nul("rows", &body)?;
    write(target, "POST", table, Some(body), o, true)
}

pub fn update(target: &Target, table: &str, patch: &Value, o: &WriteOptions) -> Result<HttpRequest, TransportError> {
    if o.filters.is_empty() {
        // A PATCH without filters rewrites every visible row: almost always a bug.
        return Err(TransportError::invalid(
            "filters",
            "update needs at least one filter (use [\"id\", \"not.is\", null] to mean every row)",
        ));
    }
    let body = rows_body("patch", patch, false)?;
    check_no_nul("patch", &body)?;
    write(target, "PATCH", table, Some(body), o, false)
}

pub fn delete(target: &Target, table: &str, o: &WriteOptions) -> Result<HttpRequest, TransportError> {
    if o.filters.is_empty() {
        return Err(TransportError::invalid(
            "filters",
            "delete needs at least one filter (use [\"id\", \"not.is\", null] to mean every row)",
        ));
    }
    write(target, "DELETE", table, None, o, false)
}

pub fn rpc(target: &Target, function: &str, args: &Value, o: &RpcOptions) -> Result<HttpRequest, TransportError> {
    check_name("function", function)?;
    let r = &o.read;
    let expect = expect_of(r.single, r.maybe_single)?;
    let Value::Object(arg_map) = args else {
        return Err(TransportError::invalid("args", "args must be an object of named arguments"));
    };
    let mut pairs = read_pairs(&Shape {
        columns: r.columns.as_deref(),
        filters: &r.filters,
        order: r.order.as_ref(),
        limit: r.limit,
        offset: r.offset,
    })?;
    let method = if o.get { "GET" } else { "POST" };
    let body = if o.get {
        for (k, v) in arg_map {
            let text = scalar_text(v).ok_or_else(|| {
                TransportError::invalid(
                    "args",
                    format!("args.{k}: GET calls take only string, number or boolean arguments"),
                )
            })?;
            pairs.push((k.clone(), text));
        }
        None
    } else {
        let b = crate::json::text(args);
        check_no_nul("args", &b)?;
        Some(b)
    };
    let mut headers = target.base_headers(method);
    accept(&mut headers, expect);
    if body.is_some() {
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
    }
    if let Some(p) = prefer(&[r.count.map(|c| format!("count={}", c.as_str()))]) {
        headers.push(("Prefer".to_owned(), p));
    }
    Ok(HttpRequest {
        method,
        url: url(target, &format!("rpc/{}", percent_encode(function)), &pairs),
        headers,
        body,
        idempotent: o.get || o.idempotent,
        expect,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    fn target() -> Target {
        Target::new("https://abc.supabase.co/", "anon-key", None).unwrap()
    }

    fn read(v: Value) -> ReadOptions {
        ReadOptions::parse(&v).unwrap()
    }

    #[test]
    fn only_real_nul_escapes_are_refused() {
        assert_eq!(field_of(check_no_nul("args", r#"{"a":"\u0000"}"#)), "args");
        assert_eq!(field_of(check_no_nul("args", r#"{"a":"x\\\u0000"}"#)), "args", "an escaped backslash, then a NUL");
        assert!(check_no_nul("args", r#"{"a":"\\u0000"}"#).is_ok(), "the text \\u0000");
        assert!(
            check_no_nul("args", r#"{"text":"{\"k\":\"\\u0000\"}"}"#).is_ok(),
            "JSON text with an escape, in a string"
        );
    }

    /// The field an error names (every refusal here is `invalid_input` naming one).
    fn field_of<T: std::fmt::Debug>(r: Result<T, TransportError>) -> String {
        r.unwrap_err().report().field.unwrap_or_default()
    }

    fn query(r: &HttpRequest) -> String {
        let q = r.url.split_once('?').map_or("", |(_, q)| q);
        percent_decode(q)
    }

    fn percent_decode(s: &str) -> String {
        let bytes = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn urls_and_credentials() {
        let t = target();
        assert_eq!(t.rest_url, "https://abc.supabase.co/rest/v1");
        assert_eq!(
            Target::new("http://127.0.0.1:54321/rest/v1", "k", None).unwrap().rest_url,
            "http://127.0.0.1:54321/rest/v1"
        );
        for bad in ["", "ftp://x", "abc.supabase.co", "https://", "https://x?y=1", "https://a b"] {
            assert_eq!(Target::new(bad, "k", None).unwrap_err().report().field.as_deref(), Some("url"), "{bad}");
        }
        // Another Supabase service's URL, or a table under /rest/v1: refused with the URL to use.
        for (bad, base) in [
            ("https://abc.supabase.co/functions/v1", "https://abc.supabase.co"),
            ("https://abc.supabase.co/functions/v1/memory-tools", "https://abc.supabase.co"),
            ("http://127.0.0.1:54321/auth/v1/", "http://127.0.0.1:54321"),
            ("https://abc.supabase.co/rest/v1/notes", "https://abc.supabase.co"),
            ("https://proxy.example/sb/storage/v1", "https://proxy.example/sb"),
        ] {
            let e = Target::new(bad, "k", None).unwrap_err().report();
            assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("url")), "{bad}");
            assert!(
                e.message
                    .starts_with(&format!("url must be the project URL ({base}) or its REST URL ({base}/rest/v1)")),
                "{}",
                e.message
            );
        }
        // A stack behind a proxy prefix is named by its REST URL; the prefix alone is refused
        // (it would be taken for part of a table name).
        assert_eq!(
            Target::new("https://proxy.example/sb/rest/v1", "k", None).unwrap().rest_url,
            "https://proxy.example/sb/rest/v1"
        );
        assert!(Target::new("https://proxy.example/sb", "k", None).is_err());
        let e = Target::new("https://x", "secret value", None).unwrap_err();
        assert!(!e.report().message.contains("secret value"), "credentials are never echoed");
        assert_eq!(e.report().field.as_deref(), Some("apiKey"));

        let jwt = "e30.eyJzdWIiOiJ1In0.sig";
        let r =
            select(&Target::new("https://x", "anon", Some(jwt)).unwrap(), "notes", &ReadOptions::default()).unwrap();
        assert_eq!(r.header("apikey"), Some("anon"));
        assert_eq!(r.header("authorization"), Some("Bearer e30.eyJzdWIiOiJ1In0.sig"));
        // A user token that cannot be one is the server's 401, said before sending.
        for not_a_jwt in ["user-jwt", "sb_publishable_x", "a.b.c", "", "undefined", "two words"] {
            let e = Target::new("https://x", "anon", Some(not_a_jwt)).unwrap_err().report();
            assert_eq!((e.code, e.field.as_deref()), (ErrorCode::Unauthorized, Some("accessToken")), "{not_a_jwt:?}");
            assert!(not_a_jwt.is_empty() || !e.message.contains(not_a_jwt));
        }
        let r = select(&t, "notes", &ReadOptions::default()).unwrap();
        assert_eq!(r.header("authorization"), Some("Bearer anon-key"));
        assert_eq!((r.method, r.url.as_str(), r.idempotent), ("GET", "https://abc.supabase.co/rest/v1/notes", true));
    }

    #[test]
    fn select_with_every_option() {
        let r = select(
            &target(),
            "notes",
            &read(json!({
                "columns": "id, body, src:meta->>source",
                "filters": [["id", "gte", 10], ["meta->>source", "eq", "loop"], ["tags", "cs", ["a", "b,c"]], ["deleted_at", "is", null]],
                "order": [{"column": "created_at", "ascending": false, "nullsFirst": false}, {"column": "id"}],
                "limit": 5, "offset": 10, "count": "exact", "single": true
            })),
        )
        .unwrap();
        assert_eq!(
            query(&r),
            r#"select=id,body,src:meta->>source&id=gte.10&meta->>source=eq.loop&tags=cs.{"a","b,c"}&deleted_at=is.null&order=created_at.desc.nullslast,id.asc&limit=5&offset=10"#
        );
        assert_eq!(r.header("prefer"), Some("count=exact"));
        assert_eq!(r.header("accept"), Some("application/vnd.pgrst.object+json"));
        assert_eq!(r.expect, Expect::Single);
    }

    #[test]
    fn hostile_values_stay_values() {
        let hostile = r#"a,b).or=(id.gt.0"\&x=1"#;
        let r = select(
            &target(),
            "t",
            &read(json!({"filters": [["name", "in", [hostile, "ok"]], ["note", "eq", hostile]]})),
        )
        .unwrap();
        // The raw URL has no unescaped separators from the value.
        assert!(!r.url.contains(",b)") && !r.url.contains("&x=1"));
        let pairs: Vec<(String, String)> = r
            .url
            .split_once('?')
            .unwrap()
            .1
            .split('&')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (percent_decode(k), percent_decode(v))
            })
            .collect();
        assert_eq!(pairs.len(), 2, "{pairs:?}");
        assert_eq!(pairs[0].1, r#"in.("a,b).or=(id.gt.0\"\\&x=1","ok")"#);
        assert_eq!(pairs[1].1, format!("eq.{hostile}"));
    }

    #[test]
    fn logic_groups_quote_their_tokens() {
        let r = select(
            &target(),
            "t",
            &read(json!({"filters": [{"or": [["a", "eq", "x,y"], ["b", "in", [1, 2]], {"and": [["c", "gt", 1.5], ["d", "not.is", null]]}]},
                                     {"not": {"or": [["e", "eq", "1"], ["f", "cs", {"k": "v"}]]}}]})),
        )
        .unwrap();
        assert_eq!(
            query(&r),
            r#"or=(a.eq."x,y",b.in.(1,2),and(c.gt.1.5,d.not.is.null))&not.or=(e.eq.1,f.cs."{\"k\":\"v\"}")"#
        );
    }

    #[test]
    fn fts_operands_carry_their_configuration() {
        let r = select(&target(), "t", &read(json!({"filters": [["tsv", "wfts", {"query": "cat dog", "config": "english"}], ["tsv", "not.fts", "x"]]}))).unwrap();
        assert_eq!(query(&r), "tsv=wfts(english).cat dog&tsv=not.fts.x");
        assert_eq!(
            field_of(select(
                &target(),
                "t",
                &read(json!({"filters": [["tsv", "fts", {"query": "x", "config": "en');--"}]]}))
            )),
            "filters[0]"
        );
    }

    #[test]
    fn bad_filters_name_their_position() {
        for (filters, needle) in [
            (json!([["id", "equals", 1]]), "unknown operator"),
            (json!([["id", "eq"]]), "expected [column, operator, value]"),
            (json!([["id", "in", "1,2"]]), "in takes an array"),
            (json!([["id", "eq", null]]), "eq needs a string"),
            (json!([["id", "is", "maybe"]]), "is takes null"),
            (json!([{"or": []}]), "expected { or"),
            (json!([{"not": ["id", "eq", 1]}]), "expected { or"),
            (json!([["", "eq", 1]]), "must not be empty"),
        ] {
            let e = select(&target(), "t", &read(json!({ "filters": filters }))).unwrap_err();
            let r = e.report();
            assert_eq!(r.field.as_deref().map(|f| f.starts_with("filters")), Some(true), "{filters}");
            assert!(r.message.contains(needle), "{filters}: {}", r.message);
        }
    }

    #[test]
    fn writes_and_their_idempotence() {
        let t = target();
        let r = insert(&t, "notes", &json!([{"a": 1}, {"a": 2}]), &WriteOptions::default()).unwrap();
        assert_eq!((r.method, r.idempotent, r.header("prefer")), ("POST", false, Some("return=minimal")));
        assert_eq!(r.body.as_deref(), Some(r#"[{"a":1},{"a":2}]"#));
        let o = WriteOptions::parse(&json!({"onConflict": ["thread_id", "checkpoint_ns"], "returning": "representation", "columns": "id", "count": "exact"})).unwrap();
        let r = upsert(&t, "cp", &json!({"thread_id": "1"}), &o).unwrap();
        assert!(r.idempotent);
        assert_eq!(r.header("prefer"), Some("resolution=merge-duplicates,return=representation,count=exact"));
        assert_eq!(query(&r), "on_conflict=thread_id,checkpoint_ns&select=id");
        let o = WriteOptions::parse(&json!({"ignoreDuplicates": true})).unwrap();
        assert_eq!(
            upsert(&t, "cp", &json!({}), &o).unwrap().header("prefer"),
            Some("resolution=ignore-duplicates,return=minimal")
        );
        assert_eq!(field_of(insert(&t, "cp", &json!({}), &o)), "onConflict", "insert refuses upsert options");

        let o = WriteOptions::parse(&json!({"filters": [["id", "eq", 5]]})).unwrap();
        let r = update(&t, "notes", &json!({"body": "x"}), &o).unwrap();
        assert_eq!((r.method, r.idempotent, query(&r).as_str()), ("PATCH", true, "id=eq.5"));
        let r = delete(&t, "notes", &o).unwrap();
        assert_eq!((r.method, r.idempotent, r.body.as_deref()), ("DELETE", true, None));
        assert_eq!(field_of(update(&t, "notes", &json!({"a": 1}), &WriteOptions::default())), "filters");
        assert_eq!(field_of(delete(&t, "notes", &WriteOptions::default())), "filters");
        assert_eq!(field_of(update(&t, "notes", &json!([{"a": 1}]), &o)), "patch");
        assert_eq!(field_of(insert(&t, "notes", &json!(["x"]), &WriteOptions::default())), "rows");
        assert_eq!(field_of(insert(&t, "notes", &json!({"a": "x\u{0}y"}), &WriteOptions::default())), "rows");
    }

    #[test]
    fn rpc_requests() {
        let t = target();
        let r = rpc(&t, "search", &json!({"q": "x", "n": 3}), &RpcOptions::default()).unwrap();
        assert_eq!(
            (r.method, r.idempotent, r.url.as_str()),
            ("POST", false, "https://abc.supabase.co/rest/v1/rpc/search")
        );
        let o = RpcOptions::parse(&json!({"idempotent": true, "limit": 2, "order": "id.desc"})).unwrap();
        let r = rpc(&t, "search", &json!({}), &o).unwrap();
        assert!(r.idempotent);
        assert_eq!(query(&r), "order=id.desc&limit=2");
        let o = RpcOptions::parse(&json!({"get": true})).unwrap();
        let r = rpc(&t, "add", &json!({"a": 1, "b": "x y"}), &o).unwrap();
        assert_eq!((r.method, r.idempotent, query(&r).as_str()), ("GET", true, "a=1&b=x y"));
        assert_eq!(field_of(rpc(&t, "add", &json!({"a": [1]}), &o)), "args");
        assert_eq!(field_of(rpc(&t, "add", &json!([1]), &RpcOptions::default())), "args");
    }

    #[test]
    fn schema_and_custom_headers() {
        let mut t = target();
        t.schema = Some("api".into());
        t.headers = vec![("X-Trace".into(), "1".into()), ("x-client-info".into(), "mine".into())];
        let r = select(&t, "x", &ReadOptions::default()).unwrap();
        assert_eq!(
            (r.header("accept-profile"), r.header("x-trace"), r.header("x-client-info")),
            (Some("api"), Some("1"), Some("mine"))
        );
        let r = insert(&t, "x", &json!({}), &WriteOptions::default()).unwrap();
        assert_eq!(r.header("content-profile"), Some("api"));
    }
}
