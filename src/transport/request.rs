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
use super::encode::{array_literal, list, percent_encode, quote, scalar_text, token};
use crate::error::ErrorReport;
use crate::input::{self, Object};

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

string_enum!(
    /// `count`: how PostgREST counts the rows (`Prefer: count=…`).
    CountMode { Exact = "exact", Planned = "planned", Estimated = "estimated" }
);

string_enum!(
    /// `returning`: what a write answers with.
    Returning { Minimal = "minimal", Representation = "representation" }
);

#[allow(clippy::derivable_impls)] // string_enum! derives; a variant attribute would be its only use
impl Default for Returning {
    fn default() -> Self {
        Returning::Minimal
    }
}

/// `order` as a PostgREST string (`"created_at.desc,id"`) or a list of terms.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderSpec {
    Raw(String),
    Terms(Vec<OrderTerm>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderTerm {
    pub column: String,
    pub ascending: bool,
    pub nulls_first: Option<bool>,
}

impl OrderSpec {
    fn parse(o: &Object) -> Result<Option<OrderSpec>, ErrorReport> {
        let field = o.field("order");
        Ok(match o.get("order") {
            None => None,
            Some(Value::String(s)) => Some(OrderSpec::Raw(s.clone())),
            Some(Value::Array(terms)) => Some(OrderSpec::Terms(
                terms
                    .iter()
                    .enumerate()
                    .map(|(i, term)| {
                        let t =
                            Object::new(term, &format!("{field}[{i}]"), "", &["column", "ascending", "nullsFirst"])?;
                        let nulls_first = match t.get("nullsFirst") {
                            None => None,
                            Some(_) => Some(t.flag("nullsFirst")?),
                        };
                        let ascending = t.get("ascending").is_none() || t.flag("ascending")?;
                        Ok(OrderTerm { column: t.required_string("column")?, ascending, nulls_first })
                    })
                    .collect::<Result<_, ErrorReport>>()?,
            )),
            Some(other) => {
                return Err(input::expected(
                    &field,
                    "a string or an array of { column, ascending, nullsFirst }",
                    other,
                )
                .into());
            }
        })
    }
}

/// Options shared by reads and by the representation of writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadOptions {
    pub columns: Option<String>,
    pub filters: Vec<Value>,
    pub order: Option<OrderSpec>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub count: Option<CountMode>,
    pub single: bool,
    pub maybe_single: bool,
    /// HEAD instead of GET: only the count and headers.
    pub head: bool,
}

/// The options of a read (a `select`, or the rows an RPC returns), in the order a message
/// lists them; `head` is the select's alone.
const READ_OPTIONS: [&str; 9] =
    ["columns", "filters", "order", "limit", "offset", "count", "single", "maybeSingle", "head"];

impl ReadOptions {
    /// `select` options, as the caller writes them.
    pub fn parse(v: &Value) -> Result<ReadOptions, ErrorReport> {
        let o = Object::new(v, "", "options", &READ_OPTIONS)?;
        Ok(ReadOptions { head: o.flag("head")?, ..ReadOptions::read(&o)? })
    }

    /// The read options of `o` but `head`.
    fn read(o: &Object) -> Result<ReadOptions, ErrorReport> {
        Ok(ReadOptions {
            columns: o.string("columns")?,
            filters: o.array("filters")?,
            order: OrderSpec::parse(o)?,
            limit: o.count("limit")?,
            offset: o.count("offset")?,
            count: o.choice("count")?,
            single: o.flag("single")?,
            maybe_single: o.flag("maybeSingle")?,
            head: false,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteOptions {
    pub returning: Returning,
    /// Columns to return with `returning: "representation"`.
    pub columns: Option<String>,
    /// Insert only these keys (PostgREST `columns=`): tolerates rows with differing keys.
    pub insert_columns: Option<Vec<String>>,
    pub count: Option<CountMode>,
    pub single: bool,
    /// For upserts: the conflict target (defaults to the primary key).
    pub on_conflict: Option<Vec<String>>,
    /// For upserts: keep existing rows instead of merging.
    pub ignore_duplicates: bool,
    /// Columns missing from a row take their DEFAULT instead of NULL (`missing=default`).
    pub missing_default: bool,
    pub filters: Vec<Value>,
}

impl WriteOptions {
    /// `insert` / `upsert` / `update` / `delete` options, as the caller writes them.
    pub fn parse(v: &Value) -> Result<WriteOptions, ErrorReport> {
        let keys = [
            "returning",
            "columns",
            "insertColumns",
            "count",
            "single",
            "onConflict",
            "ignoreDuplicates",
            "missingDefault",
            "filters",
        ];
        let o = Object::new(v, "", "options", &keys)?;
        Ok(WriteOptions {
            returning: o.choice("returning")?.unwrap_or_default(),
            columns: o.string("columns")?,
            insert_columns: o.strings("insertColumns")?,
            count: o.choice("count")?,
            single: o.flag("single")?,
            on_conflict: o.strings("onConflict")?,
            ignore_duplicates: o.flag("ignoreDuplicates")?,
            missing_default: o.flag("missingDefault")?,
            filters: o.array("filters")?,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RpcOptions {
    /// Declares the function safe to call twice, which allows retries.
    pub idempotent: bool,
    /// Call with GET (arguments in the query string; the function must not write).
    pub get: bool,
    /// The options of the result's rows, as for a read (`head` aside).
    pub read: ReadOptions,
}

impl RpcOptions {
    /// `rpc` options, as the caller writes them.
    pub fn parse(v: &Value) -> Result<RpcOptions, ErrorReport> {
        let mut keys = vec!["idempotent", "get"];
        keys.extend(&READ_OPTIONS[..READ_OPTIONS.len() - 1]);
        let o = Object::new(v, "", "options", &keys)?;
        Ok(RpcOptions { idempotent: o.flag("idempotent")?, get: o.flag("get")?, read: ReadOptions::read(&o)? })
    }

    /// An RPC that is safe to send twice (so it may be retried), with no other option.
    pub fn idempotent() -> RpcOptions {
        RpcOptions { idempotent: true, ..RpcOptions::default() }
    }
}

/// The key space of rows the service role writes without acting for a user.
pub const SERVICE_TENANT: &str = "00000000-0000-0000-0000-000000000000";
const ACTING_FOR_HEADER: &str = "x-agentmem-tenant";

/// Where requests go and with which credentials.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// `https://<project>.supabase.co/rest/v1` (no trailing slash).
    pub rest_url: String,
    pub api_key: String,
    pub access_token: Option<String>,
    pub schema: Option<String>,
    pub headers: Vec<(String, String)>,
    /// The user a service-role client acts for: sent as `x-agentmem-tenant`, which the
    /// SQL honours for the service role only.
    pub acting_for: Option<String>,
}

impl Target {
    /// Accepts a Supabase project URL (`/rest/v1` is appended) or a full REST URL.
    pub fn new(url: &str, api_key: &str, access_token: Option<&str>) -> Result<Target, TransportError> {
        let trimmed = url.trim().trim_end_matches('/');
        let scheme_ok = trimmed.starts_with("https://") || trimmed.starts_with("http://");
        let host = trimmed.split_once("://").map(|(_, rest)| rest).unwrap_or("");
        if !scheme_ok
            || host.is_empty()
            || host.starts_with('/')
            || trimmed.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(TransportError::invalid(
                "url",
                "url must be an http(s) URL such as https://<project>.supabase.co",
            ));
        }
        if trimmed.contains('?') || trimmed.contains('#') {
            return Err(TransportError::invalid("url", "url must not carry a query string or fragment"));
        }
        check_service_path(trimmed)?;
        let rest_url = if trimmed.ends_with("/rest/v1") { trimmed.to_owned() } else { format!("{trimmed}/rest/v1") };
        check_credential("apiKey", api_key)?;
        if let Some(t) = access_token {
            // A user's access token is always a JWT; anything else (a pasted API key, a
            // truncated token, "undefined") cannot stand for a user: the 401 the server
            // would give, said before sending, so an edge function answers 401, not 400.
            let not_a_user =
                |message: &str| TransportError::Unauthorized { field: "accessToken".into(), message: message.into() };
            check_credential("accessToken", t).map_err(|_| {
                not_a_user("accessToken must be the signed-in user's JWT, a non-empty token without whitespace")
            })?;
            let info = super::credentials::inspect("accessToken", t).map_err(|_| {
                not_a_user("accessToken is not a JWT (expected header.payload.signature): pass the signed-in user's access token")
            })?;
            if info.kind != "jwt" {
                return Err(not_a_user("accessToken must be the signed-in user's JWT, not an API key"));
            }
        }
        Ok(Target {
            rest_url,
            api_key: api_key.to_owned(),
            access_token: access_token.map(str::to_owned),
            schema: None,
            headers: Vec::new(),
            acting_for: None,
        })
    }

    /// Acts for the user `user_id` (a UUID): only a service-role key or token may.
    pub fn act_for(&mut self, user_id: &str) -> Result<(), TransportError> {
        if user_id.len() != 36 || uuid::Uuid::try_parse(user_id).is_err() || user_id == SERVICE_TENANT {
            return Err(TransportError::invalid("actingFor", "actingFor must be a user id (a UUID, not the nil UUID)"));
        }
        let token = self.access_token.as_deref().unwrap_or(&self.api_key);
        let role = super::credentials::inspect("apiKey", token).ok().and_then(|i| i.role);
        if role.as_deref() != Some("service_role") {
            return Err(TransportError::invalid(
                "actingFor",
                "actingFor needs a service-role key without a user's accessToken: a signed-in user always acts as themselves",
            ));
        }
        self.acting_for = Some(user_id.to_ascii_lowercase());
        Ok(())
    }

    /// The tenant (key space) the requests act in: the user acted for, the access
    /// token's user, the service tenant for a service-role key, or None for anon.
    pub fn tenant(&self) -> Option<String> {
        if let Some(id) = &self.acting_for {
            return Some(id.clone());
        }
        let token = self.access_token.as_deref().unwrap_or(&self.api_key);
        let info = super::credentials::inspect("apiKey", token).ok()?;
        match info.role.as_deref() {
            Some("service_role") => Some(SERVICE_TENANT.to_owned()),
            Some("authenticated") => info.sub.map(|s| s.to_ascii_lowercase()),
            _ => None,
        }
    }

    /// Sets the schema (sent as `Accept-Profile` / `Content-Profile`) and extra headers,
    /// refusing what `fetch` would reject only when sending (a CR or LF, a non-Latin-1
    /// character, a name that is not an HTTP token), which would pass for a network error.
    pub fn set_schema_and_headers(
        &mut self,
        schema: Option<String>,
        headers: Vec<(String, String)>,
    ) -> Result<(), TransportError> {
        if let Some(s) = &schema {
            check_header_value("schema", s)?;
        }
        for (name, value) in &headers {
            let field = format!("headers.{name}");
            let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
            if name.is_empty() || !name.chars().all(token) {
                return Err(TransportError::invalid(
                    field,
                    format!("header name {name:?} is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"),
                ));
            }
            check_header_value(&field, value)?;
        }
        self.schema = schema;
        self.headers = headers;
        Ok(())
    }

    fn base_headers(&self, method: &str) -> Vec<(String, String)> {
        let bearer = self.access_token.as_deref().unwrap_or(&self.api_key);
        let mut h = vec![
            ("apikey".to_owned(), self.api_key.clone()),
            ("Authorization".to_owned(), format!("Bearer {bearer}")),
            ("X-Client-Info".to_owned(), concat!("agentmem/", env!("CARGO_PKG_VERSION")).to_owned()),
        ];
        if let Some(schema) = &self.schema {
            let profile = if matches!(method, "GET" | "HEAD") { "Accept-Profile" } else { "Content-Profile" };
            h.push((profile.to_owned(), schema.clone()));
        }
        for (k, v) in &self.headers {
            h.retain(|(existing, _)| !existing.eq_ignore_ascii_case(k));
            h.push((k.clone(), v.clone()));
        }
        if let Some(id) = &self.acting_for {
            h.retain(|(existing, _)| !existing.eq_ignore_ascii_case(ACTING_FOR_HEADER));
            h.push((ACTING_FOR_HEADER.to_owned(), id.clone()));
        }
        h
    }
}

fn check_header_value(field: &str, value: &str) -> Result<(), TransportError> {
    if value.chars().any(|c| matches!(c, '\r' | '\n' | '\0') || c > '\u{ff}') {
        return Err(TransportError::invalid(
            field,
            format!("{field} must not contain CR, LF, NUL or characters beyond U+00FF (fetch refuses them)"),
        ));
    }
    Ok(())
}

/// Supabase serves PostgREST at `/rest/v1` of the project URL, next to `/functions/v1`,
/// `/auth/v1`, ... A URL pointing at one of those (an edge function's own URL, often) or
/// below `/rest/v1` would become a table name on the server ("Could not find the table
/// 'public.functions/v1/rest/v1/notes'"), so it is refused here with the URL to use.
/// Other paths stay allowed: a self-hosted stack may sit under a proxy prefix.
fn check_service_path(url: &str) -> Result<(), TransportError> {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let path = url[after_scheme..].find('/').map_or("", |i| &url[after_scheme + i..]);
    let services = ["/rest/v1/", "/functions/v1", "/auth/v1", "/storage/v1", "/realtime/v1", "/graphql/v1"];
    let Some(at) = services.iter().filter_map(|s| path.find(s)).min() else {
        return Ok(());
    };
    let base = &url[..url.len() - path.len() + at];
    Err(TransportError::invalid(
        "url",
        format!(
            "url must be the project URL ({base}) or its REST URL ({base}/rest/v1), not {url}: \
             agentmem talks to PostgREST, which Supabase serves at /rest/v1"
        ),
    ))
}

fn check_credential(field: &str, value: &str) -> Result<(), TransportError> {
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        // Never echo the value: it is a secret.
        return Err(TransportError::invalid(field, format!("{field} must be a non-empty token without whitespace")));
    }
    Ok(())
}

fn check_name(field: &str, name: &str) -> Result<(), TransportError> {
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(TransportError::invalid(field, format!("{field} must be a non-empty name")));
    }
    Ok(())
}

/// One filter: `[column, operator, value]`, or `{ or: [...] }` / `{ and: [...] }`,
/// optionally `{ not: { or: [...] } }`.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Cond { column: String, negated: bool, op: String, value: Value },
    Group { or: bool, negated: bool, children: Vec<Filter> },
}

const SCALAR_OPS: [&str; 11] =
    ["eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "isdistinct"];
const RANGE_OPS: [&str; 5] = ["sl", "sr", "nxr", "nxl", "adj"];
const FTS_OPS: [&str; 4] = ["fts", "plfts", "phfts", "wfts"];

pub fn parse_filters(field: &str, values: &[Value]) -> Result<Vec<Filter>, TransportError> {
    values.iter().enumerate().map(|(i, v)| parse_filter(&format!("{field}[{i}]"), v)).collect()
}

fn parse_filter(field: &str, v: &Value) -> Result<Filter, TransportError> {
    let bad = |msg: &str| TransportError::invalid(field, format!("{field}: {msg}"));
    match v {
        Value::Array(parts) if parts.len() == 3 => {
            let column = parts[0].as_str().ok_or_else(|| bad("the column must be a string"))?;
            check_name(field, column)?;
            let op_raw = parts[1].as_str().ok_or_else(|| bad("the operator must be a string"))?;
            let (negated, op) = match op_raw.strip_prefix("not.") {
                Some(op) => (true, op),
                None => (false, op_raw),
            };
            let known = SCALAR_OPS.contains(&op)
                || RANGE_OPS.contains(&op)
                || FTS_OPS.contains(&op)
                || matches!(op, "is" | "in" | "cs" | "cd" | "ov");
            if !known {
                return Err(bad(&format!("unknown operator {op_raw:?}")));
            }
            let f = Filter::Cond { column: column.to_owned(), negated, op: op.to_owned(), value: parts[2].clone() };
            // Render once now so that a bad operand is reported here, with its field.
            render_operand(&f, false).map_err(|m| bad(&m))?;
            Ok(f)
        }
        Value::Object(map) if map.len() == 1 => {
            let (key, inner) = map.iter().next().expect("len 1");
            match (key.as_str(), inner) {
                ("or" | "and", Value::Array(children)) if !children.is_empty() => {
                    Ok(Filter::Group { or: key == "or", negated: false, children: parse_filters(field, children)? })
                }
                ("not", inner @ Value::Object(_)) => match parse_filter(field, inner)? {
                    Filter::Group { or, children, .. } => Ok(Filter::Group { or, negated: true, children }),
                    Filter::Cond { .. } => Err(bad(
                        "`not` takes an { or } or { and } group; negate a condition with a \"not.<op>\" operator",
                    )),
                },
                _ => Err(bad("expected { or: [...] }, { and: [...] } or { not: { or|and: [...] } }")),
            }
        }
        _ => Err(bad("expected [column, operator, value] or a { or | and | not } group")),
    }
}

/// The text after `op.`; `in_logic` quotes values that would otherwise split tokens.
fn render_operand(f: &Filter, in_logic: bool) -> Result<String, String> {
    let Filter::Cond { op, value, .. } = f else { unreachable!("only conditions have operands") };
    let op = op.as_str();
    let plain = |v: &Value| -> Result<String, String> {
        if in_logic { token(v) } else { scalar_text(v) }
            .ok_or_else(|| format!("{op} needs a string, number or boolean"))
    };
    Ok(match op {
        "is" => match value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::String(s) if matches!(s.as_str(), "null" | "not_null" | "true" | "false" | "unknown") => s.clone(),
            _ => return Err("is takes null, true, false, \"not_null\" or \"unknown\"".into()),
        },
        "in" => match value {
            Value::Array(items) => list(items).ok_or("in takes an array of strings, numbers or booleans")?,
            _ => return Err("in takes an array".into()),
        },
        "cs" | "cd" | "ov" => {
            let text = match value {
                Value::Array(items) => {
                    array_literal(items).ok_or("array operands hold strings, numbers, booleans or null")?
                }
                Value::Object(_) => value.to_string(),
                Value::String(s) => s.clone(),
                _ => return Err(format!("{op} takes an array, an object (jsonb) or a literal string")),
            };
            if in_logic { quote(&text) } else { text }
        }
        op if FTS_OPS.contains(&op) => {
            let (query, config) = match value {
                Value::String(q) => (q.clone(), None),
                Value::Object(o) => (
                    o.get("query")
                        .and_then(Value::as_str)
                        .ok_or("full-text search takes a string or { query, config }")?
                        .to_owned(),
                    o.get("config").and_then(Value::as_str).map(str::to_owned),
                ),
                _ => return Err("full-text search takes a string or { query, config }".into()),
            };
            if config.as_deref().is_some_and(|c| !c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')) {
                return Err("the full-text configuration must be a plain name".into());
            }
            let q = if in_logic && needs_logic_quote(&query) { quote(&query) } else { query };
            // The configuration rides on the operator: fts(english).query
            return Ok(match config {
                Some(c) => format!("({c}).{q}"),
                None => format!(".{q}"),
            });
        }
        _ => plain(value)?,
    })
}

fn needs_logic_quote(s: &str) -> bool {
    token(&Value::String(s.to_owned())).is_some_and(|t| t.starts_with('"'))
}

/// Column names with reserved characters are quoted (JSON paths like `meta->>k` are not).
fn column_token(c: &str) -> String {
    if !c.contains("->") && c.chars().any(|ch| matches!(ch, ',' | '.' | ':' | '(' | ')' | '"' | '\\')) {
        quote(c)
    } else {
        c.to_owned()
    }
}

/// `op.value` (with `not.` and an fts configuration folded in).
fn op_and_operand(f: &Filter, in_logic: bool) -> Result<String, String> {
    let Filter::Cond { negated, op, .. } = f else { unreachable!() };
    let operand = render_operand(f, in_logic)?;
    let neg = if *negated { "not." } else { "" };
    Ok(if FTS_OPS.contains(&op.as_str()) { format!("{neg}{op}{operand}") } else { format!("{neg}{op}.{operand}") })
}

fn render_group_item(f: &Filter) -> Result<String, String> {
    match f {
        Filter::Cond { column, .. } => Ok(format!("{}.{}", column_token(column), op_and_operand(f, true)?)),
        Filter::Group { or, negated, children } => {
            let inner = children.iter().map(render_group_item).collect::<Result<Vec<_>, _>>()?.join(",");
            Ok(format!("{}{}({inner})", if *negated { "not." } else { "" }, if *or { "or" } else { "and" }))
        }
    }
}

/// Query pairs for a filter list (top-level conditions are ANDed by PostgREST).
pub fn filter_pairs(filters: &[Filter]) -> Result<Vec<(String, String)>, String> {
    filters
        .iter()
        .map(|f| match f {
            Filter::Cond { column, .. } => Ok((column_token(column), op_and_operand(f, false)?)),
            Filter::Group { or, negated, children } => {
                let inner = children.iter().map(render_group_item).collect::<Result<Vec<_>, _>>()?.join(",");
                let key = format!("{}{}", if *negated { "not." } else { "" }, if *or { "or" } else { "and" });
                Ok((key, format!("({inner})")))
            }
        })
        .collect()
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
        Value::Object(_) => Ok(rows.to_string()),
        Value::Array(items) if allow_array && items.iter().all(Value::is_object) => Ok(rows.to_string()),
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
    let nul = body
        .match_indices("\\u0000")
        .any(|(i, _)| body.as_bytes()[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0);
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
        let b = args.to_string();
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

    // {"role":"service_role"} and {"sub":"0F0E0D0C-…-000000000001","role":"authenticated"}
    const SERVICE: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE5ODM4MTI5OTYsImlzcyI6InN1cGFiYXNlLWRlbW8iLCJyb2xlIjoic2VydmljZV9yb2xlIn0.sig";
    const USER: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwRjBFMEQwQy0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDEiLCJyb2xlIjoiYXV0aGVudGljYXRlZCJ9.sig";

    #[test]
    fn only_real_nul_escapes_are_refused() {
        assert!(check_no_nul("args", r#"{"a":"\u0000"}"#).is_err());
        assert!(check_no_nul("args", r#"{"a":"x\\\u0000"}"#).is_err(), "an escaped backslash, then a NUL");
        assert!(check_no_nul("args", r#"{"a":"\\u0000"}"#).is_ok(), "the text \\u0000");
        assert!(
            check_no_nul("args", r#"{"text":"{\"k\":\"\\u0000\"}"}"#).is_ok(),
            "JSON text with an escape, in a string"
        );
    }

    #[test]
    fn tenant_follows_the_credentials_and_acting_for() {
        assert_eq!(target().tenant(), None, "anon has no tenant");
        let user = Target::new("https://x.co", "anon-key", Some(USER)).unwrap();
        assert_eq!(user.tenant().as_deref(), Some("0f0e0d0c-0000-4000-8000-000000000001"));
        let mut service = Target::new("https://x.co", SERVICE, None).unwrap();
        assert_eq!(service.tenant().as_deref(), Some(SERVICE_TENANT));
        assert!(!service.base_headers("GET").iter().any(|(k, _)| k == "x-agentmem-tenant"));

        service.act_for("0F0E0D0C-0000-4000-8000-00000000000A").unwrap();
        assert_eq!(service.tenant().as_deref(), Some("0f0e0d0c-0000-4000-8000-00000000000a"));
        let headers = service.base_headers("POST");
        assert_eq!(
            headers.iter().filter(|(k, _)| k == "x-agentmem-tenant").map(|(_, v)| v.as_str()).collect::<Vec<_>>(),
            ["0f0e0d0c-0000-4000-8000-00000000000a"]
        );
    }

    #[test]
    fn only_the_service_role_acts_for_a_user() {
        let id = "0f0e0d0c-0000-4000-8000-00000000000a";
        let mut user = Target::new("https://x.co", "anon-key", Some(USER)).unwrap();
        assert_eq!(user.act_for(id).unwrap_err().report().field.as_deref(), Some("actingFor"));
        let mut anon = target();
        assert!(anon.act_for(id).is_err());
        let mut service = Target::new("https://x.co", "sb_secret_abc", None).unwrap();
        for bad in
            ["", "nope", "0f0e0d0c00004000800000000000000a", SERVICE_TENANT, "{0f0e0d0c-0000-4000-8000-00000000000a}"]
        {
            let e = service.act_for(bad).unwrap_err().report();
            assert_eq!(e.field.as_deref(), Some("actingFor"), "{bad}");
        }
        assert_eq!(service.acting_for, None);
        service.act_for(id).unwrap();
        assert_eq!(service.tenant().as_deref(), Some(id));
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
        // A proxy prefix is a path like any other.
        assert_eq!(
            Target::new("https://proxy.example/sb", "k", None).unwrap().rest_url,
            "https://proxy.example/sb/rest/v1"
        );
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
        assert!(
            select(&target(), "t", &read(json!({"filters": [["tsv", "fts", {"query": "x", "config": "en');--"}]]})))
                .is_err()
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
            (json!([["", "eq", 1]]), "non-empty"),
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
        assert!(insert(&t, "cp", &json!({}), &o).is_err(), "insert refuses upsert options");

        let o = WriteOptions::parse(&json!({"filters": [["id", "eq", 5]]})).unwrap();
        let r = update(&t, "notes", &json!({"body": "x"}), &o).unwrap();
        assert_eq!((r.method, r.idempotent, query(&r).as_str()), ("PATCH", true, "id=eq.5"));
        let r = delete(&t, "notes", &o).unwrap();
        assert_eq!((r.method, r.idempotent, r.body.as_deref()), ("DELETE", true, None));
        assert!(update(&t, "notes", &json!({"a": 1}), &WriteOptions::default()).is_err());
        assert!(delete(&t, "notes", &WriteOptions::default()).is_err());
        assert!(update(&t, "notes", &json!([{"a": 1}]), &o).is_err());
        assert!(insert(&t, "notes", &json!(["x"]), &WriteOptions::default()).is_err());
        assert_eq!(
            insert(&t, "notes", &json!({"a": "x\u{0}y"}), &WriteOptions::default())
                .unwrap_err()
                .report()
                .field
                .as_deref(),
            Some("rows")
        );
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
        assert!(rpc(&t, "add", &json!({"a": [1]}), &o).is_err());
        assert!(rpc(&t, "add", &json!([1]), &RpcOptions::default()).is_err());
    }

    #[test]
    fn options_name_the_option_at_fault() {
        let field = |r: Result<ReadOptions, ErrorReport>| r.unwrap_err().field.unwrap_or_default();
        assert_eq!(field(ReadOptions::parse(&json!({"limt": 1}))), "limt");
        assert_eq!(field(ReadOptions::parse(&json!({"limit": -1}))), "limit");
        assert_eq!(field(ReadOptions::parse(&json!({"count": "all"}))), "count");
        assert_eq!(field(ReadOptions::parse(&json!({"order": [{"column": "a"}, {"column": 1}]}))), "order[1].column");
        assert_eq!(field(ReadOptions::parse(&json!({"order": 5}))), "order");
        let e = ReadOptions::parse(&json!({"count": "all"})).unwrap_err();
        assert_eq!(e.message, r#"count must be one of exact, planned, estimated, got the string "all""#);
        let e = WriteOptions::parse(&json!({"onConflict": ["a", 2]})).unwrap_err();
        assert_eq!(
            (e.field.as_deref(), e.message.as_str()),
            (Some("onConflict[1]"), "onConflict[1] must be a string, got the number 2")
        );
        let o = ReadOptions::parse(
            &json!({"order": [{"column": "a", "ascending": false, "nullsFirst": true}], "count": "planned"}),
        )
        .unwrap();
        assert_eq!(
            o.order,
            Some(OrderSpec::Terms(vec![OrderTerm { column: "a".into(), ascending: false, nulls_first: Some(true) }]))
        );
        assert_eq!(o.count, Some(CountMode::Planned));
        assert_eq!(
            RpcOptions::parse(&json!({"limit": null})).unwrap(),
            RpcOptions::default(),
            "null leaves an option out"
        );
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

    #[test]
    fn headers_fetch_would_refuse_are_invalid_input_naming_the_header() {
        let field = |schema: Option<&str>, h: &[(&str, &str)]| {
            let headers = h.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            match target().set_schema_and_headers(schema.map(str::to_owned), headers) {
                Err(TransportError::InvalidInput(e)) => Some(e.field),
                _ => None,
            }
        };
        assert_eq!(field(None, &[("X-Trace", "a\r\nSet-Cookie: x")]), Some("headers.X-Trace".into()));
        assert_eq!(field(None, &[("X-Trace", "a\nb")]), Some("headers.X-Trace".into()));
        assert_eq!(field(None, &[("X-Trace", "caf\u{20ac}")]), Some("headers.X-Trace".into()));
        assert_eq!(field(None, &[("X Trace", "1")]), Some("headers.X Trace".into()));
        assert_eq!(field(None, &[("", "1")]), Some("headers.".into()));
        assert_eq!(field(Some("api\n"), &[]), Some("schema".into()));
        assert_eq!(field(Some("api"), &[("X-Trace", "caf\u{e9} 1")]), None);
    }
}
