//! One request, start to finish: CORS, Supabase's API-key gate, JWT → role, the
//! statement for the resource and one transaction; `shape` makes PostgREST's response.

use std::sync::{Arc, RwLock};

use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::jwt;
use crate::media::Media;
use crate::plan::{self, RpcArgs, Window};
use crate::pool::{DbFailure, Pool};
use crate::prefer::{Prefer, Resolution};
use crate::query::{self, QueryParams};
use crate::quote::{ident, literal};
use crate::schema::{Function, SchemaCache, Table};
use crate::shape::{Kind, Response, respond, veto_sql};
use crate::sql::Sql;

pub struct Config {
    pub schema: String,
    pub extra_search_path: Vec<String>,
    pub jwt_secret: Vec<u8>,
    pub jwt_aud: Option<String>,
    pub anon_role: String,
    pub max_rows: Option<u64>,
    /// Keys Supabase's API gateway accepts in `apikey` (legacy JWT keys and opaque
    /// `sb_publishable_…` / `sb_secret_…` keys), with the role each stands for.
    pub api_keys: Vec<(String, String)>,
    /// PostgREST's `db-tx-end`: whether `Prefer: tx=commit|rollback` is honoured
    /// (`*-allow-override`) and what happens without it (`rollback*`).
    pub tx_allow_override: bool,
    pub tx_rollback_all: bool,
}

pub struct App {
    pub config: Config,
    pub schema: RwLock<Arc<SchemaCache>>,
    pub pool: Pool,
}

pub struct Request<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl Request<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn headers_named<'b>(&'b self, name: &'b str) -> impl Iterator<Item = &'b str> + 'b {
        self.headers.iter().filter(move |(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// The settings every request makes, in `setup_sql`'s parameter order (then `timezone`
/// with `Prefer: timezone`, then the role's own settings).
const SETTINGS: [&str; 7] = [
    "search_path",
    "role",
    "request.jwt.claims",
    "request.method",
    "request.path",
    "request.headers",
    "request.cookies",
];

/// Who the request runs as.
struct Auth {
    role: String,
    claims: Map<String, Value>,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn bearer(req: &Request) -> Option<String> {
    let h = req.header("authorization")?;
    let (scheme, token) = h.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

impl App {
    fn authenticate(&self, req: &Request, supabase: bool) -> Result<Auth, ApiError> {
        let mut token = bearer(req);
        if supabase {
            // Supabase's API gateway: an API key is mandatory and must be one it knows.
            let apikey = req
                .header("apikey")
                .map(str::to_owned)
                .or_else(|| query::decode_pairs(req.query).into_iter().find(|(k, _)| k == "apikey").map(|(_, v)| v));
            let Some(apikey) = apikey else {
                return Err(ApiError::api_gateway(
                    401,
                    "No API key found in request",
                    "No `apikey` request header or url param was found.",
                ));
            };
            let Some((_, key_role)) = self.config.api_keys.iter().find(|(k, _)| *k == apikey) else {
                return Err(ApiError::api_gateway(
                    401,
                    "Invalid API key",
                    "Double check your Supabase `anon` or `service_role` API key.",
                ));
            };
            // Supabase's gateway keeps a user JWT in Authorization; otherwise (no header, or a
            // `Bearer sb_…` one) it substitutes the apikey, translating opaque sb_ keys into the
            // role they stand for (docker/volumes/api/kong.yml, LUA_AUTH_EXPR).
            if token.as_deref().is_none_or(|t| t.starts_with("sb_")) {
                if apikey.starts_with("sb_") {
                    return Ok(Auth {
                        role: key_role.clone(),
                        claims: Map::from_iter([("role".into(), json!(key_role))]),
                    });
                }
                token = Some(apikey.clone());
            }
        }
        let Some(token) = token else {
            return Ok(Auth { role: self.config.anon_role.clone(), claims: Map::new() });
        };
        let claims =
            jwt::verify(&token, &self.config.jwt_secret, self.config.jwt_aud.as_deref(), now()).map_err(|e| {
                let mut err = ApiError::pgrst(401, e.code(), e.message());
                if let Some(d) = e.details() {
                    err = err.with_details(d);
                }
                err.with_header(
                    "WWW-Authenticate",
                    format!("Bearer error=\"invalid_token\", error_description={:?}", e.message()),
                )
            })?;
        let role =
            claims.get("role").and_then(Value::as_str).map_or_else(|| self.config.anon_role.clone(), str::to_owned);
        Ok(Auth { role, claims })
    }

    /// Whether the request carries the service role's credentials: an `apikey` that stands
    /// for `service_role` (the secret key or the legacy service JWT), or a verified JWT whose
    /// role is `service_role` as `Authorization: Bearer`. Only headers count, never the query.
    pub fn is_service(&self, req: &Request) -> bool {
        let key_is_service = req
            .header("apikey")
            .is_some_and(|k| self.config.api_keys.iter().any(|(key, role)| key == k && role == "service_role"));
        let bearer_is_service = bearer(req).is_some_and(|t| {
            jwt::verify(&t, &self.config.jwt_secret, None, now())
                .is_ok_and(|c| c.get("role").and_then(Value::as_str) == Some("service_role"))
        });
        key_is_service || bearer_is_service
    }

    /// Schema negotiation (ApiRequest.hs `getSchema`): reads name the schema in
    /// `Accept-Profile`, writes in `Content-Profile`; only the exposed schema is served.
    fn check_profile(&self, req: &Request) -> Result<(), ApiError> {
        let header = if matches!(req.method, "GET" | "HEAD") { "accept-profile" } else { "content-profile" };
        match req.header(header) {
            Some(profile) if profile != self.config.schema => {
                Err(ApiError::pgrst(406, "PGRST106", format!("Invalid schema: {profile}"))
                    .with_hint(format!("Only the following schemas are exposed: {}", self.config.schema)))
            }
            _ => Ok(()),
        }
    }

    /// The request's settings as parameters, so the text depends only on how many there are.
    fn setup_sql(&self, req: &Request, auth: &Auth, prefer: &Prefer, schema: &SchemaCache) -> Sql {
        let mut claims = auth.claims.clone();
        claims.insert("role".into(), json!(auth.role));
        let headers: Map<String, Value> = req
            .headers
            .iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("cookie"))
            .map(|(k, v)| (k.to_ascii_lowercase(), json!(v)))
            .collect();
        let cookies: Map<String, Value> = req
            .header("cookie")
            .map(|c| {
                c.split(';').filter_map(|kv| kv.trim().split_once('=')).map(|(k, v)| (k.to_owned(), json!(v))).collect()
            })
            .unwrap_or_default();
        let mut search_path = vec![ident(&self.config.schema)];
        search_path.extend(self.config.extra_search_path.iter().map(|s| ident(s)));
        let mut params = vec![
            search_path.join(", "),
            auth.role.clone(),
            Value::Object(claims).to_string(),
            req.method.to_owned(),
            req.path.to_owned(),
            Value::Object(headers).to_string(),
            Value::Object(cookies).to_string(),
        ];
        let mut names: Vec<&str> = SETTINGS[..params.len()].to_vec();
        if let Some(tz) = &prefer.timezone {
            names.push("timezone");
            params.push(tz.clone());
        }
        // The impersonated role's own settings (statement_timeout and the like), after the
        // request's, as PostgREST applies them.
        for (name, value) in schema.role_settings.get(&auth.role).into_iter().flatten() {
            names.push(name);
            params.push(value.clone());
        }
        let sets: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, name)| format!("set_config({}, ${}, true)", literal(name), i + 1))
            .collect();
        Sql { text: format!("SELECT {}", sets.join(", ")), params }
    }

    pub async fn handle(&self, req: &Request<'_>) -> Response {
        match self.handle_inner(req).await {
            Ok(r) => r,
            Err(e) => Response::error(&e),
        }
    }

    async fn handle_inner(&self, req: &Request<'_>) -> Result<Response, ApiError> {
        let (supabase, path) = match req.path.strip_prefix("/rest/v1") {
            Some(rest) => (true, rest),
            None => (false, req.path),
        };
        let auth = self.authenticate(req, supabase)?;
        self.check_profile(req)?;
        let prefer = Prefer::parse(req.headers_named("prefer"), self.config.tx_allow_override);
        prefer.check_strict()?;
        let media = Media::negotiate(req.header("accept"))?;
        let singular = media.singular();
        let resource = path.trim_start_matches('/');
        let schema = self.schema.read().expect("schema lock").clone();
        let authed = auth.role != self.config.anon_role;

        if resource.is_empty() {
            return Err(self.root());
        }
        let mut pairs = query::decode_pairs(req.query);
        if supabase {
            // The platform's gateway consumes `apikey`; it never reaches PostgREST as a filter.
            pairs.retain(|(k, _)| k != "apikey");
        }
        let (sql, kind, read_only) = if let Some(name) = resource.strip_prefix("rpc/") {
            let funcs = schema.functions.get(name);
            let (sql, kind, volatile) = self.call_plan(req, &schema, name, funcs, &pairs, &prefer, media)?;
            // GET runs read-only; POST too, unless the function is VOLATILE (MainTx.hs).
            (sql, kind, matches!(req.method, "GET" | "HEAD") || !volatile)
        } else {
            // ApiRequest.hs parses the query string and checks the ranges before Plan.hs
            // looks the table up.
            let q = query::parse_query(&pairs, false)?;
            if req.method == "PUT" && (q.limit.is_some() || q.offset.is_some_and(|o| o > 0)) {
                // ApiRequest.hs `getRanges`: any top-level range other than "all rows";
                // `offset=0` and a non-integer limit leave it whole.
                return Err(ApiError::pgrst(
                    400,
                    "PGRST114",
                    "limit/offset querystring parameters are not allowed for PUT",
                ));
            }
            let table = schema.tables.get(resource).ok_or_else(|| {
                let names: Vec<&str> = schema.tables.keys().map(String::as_str).collect();
                let mut e = ApiError::pgrst(
                    404,
                    "PGRST205",
                    format!("Could not find the table '{}.{resource}' in the schema cache", schema.schema),
                );
                // Error.hs `tableNotFoundHint`: a fuzzy match scoring at least 0.75.
                e.hint = crate::fuzzy::best(&names, resource, 0.75)
                    .map(|(t, _)| format!("Perhaps you meant the table '{}.{t}'", schema.schema));
                e
            })?;
            let (sql, kind) = self.table_plan(req, &schema, table, &q, &pairs, &prefer, media)?;
            (sql, kind, matches!(req.method, "GET" | "HEAD"))
        };
        let setup = self.setup_sql(req, &auth, &prefer, &schema);
        let veto = veto_sql(&kind, singular, &prefer);
        let rollback = match prefer.tx_rollback {
            Some(r) => r,
            None => self.config.tx_rollback_all,
        };
        let row = match self.pool.run(&setup, &sql, read_only, veto.as_deref(), rollback).await {
            Ok(row) => row,
            Err(DbFailure::Db(db)) => return Err(ApiError::from_db(&db, authed)),
            Err(DbFailure::Connection(msg)) => {
                return Err(ApiError::pgrst(503, "PGRST001", "Database client error. Retrying the connection.")
                    .with_details(msg));
            }
        };
        respond(&kind, &row, &prefer, media)
    }

    /// The gateway serves no OpenAPI document: it answers as PostgREST does with
    /// `openapi-mode=disabled` rather than with a 200 that is not OpenAPI.
    fn root(&self) -> ApiError {
        ApiError::pgrst(404, "PGRST126", "Root endpoint metadata is disabled")
    }

    #[allow(clippy::too_many_arguments)]
    fn table_plan(
        &self,
        req: &Request,
        schema: &SchemaCache,
        table: &Table,
        q: &QueryParams,
        pairs: &[(String, String)],
        prefer: &Prefer,
        media: Media,
    ) -> Result<(Sql, Kind), ApiError> {
        let mutation = plan::Mutation { cache: schema, table, q, prefer, media };
        match req.method {
            "GET" | "HEAD" => {
                // The Range header counts only for GET (RangeQuery.hs / ApiRequest.getRanges).
                let range = match req.header("range") {
                    Some(h) if req.method == "GET" => query::parse_range_header(h)?,
                    _ => None,
                };
                let window = Window::new(range, q, self.config.max_rows);
                Ok((
                    Sql::bare(plan::read(schema, table, q, window, prefer, media, self.config.max_rows)?),
                    Kind::Read { window, head: req.method == "HEAD" },
                ))
            }
            "POST" => {
                if !table.insertable {
                    return Err(ApiError::pgrst(405, "PGRST100", format!("Cannot insert into '{}'", table.name)));
                }
                let p = plan::payload(req.body, q.columns.as_deref())?;
                let merge = prefer.resolution == Some(Resolution::MergeDuplicates)
                    && (q.on_conflict.is_some() || !table.primary_key.is_empty());
                Ok((mutation.insert(&p)?, Kind::Insert { merge, table: table.name.clone() }))
            }
            "PUT" => {
                // The body is parsed (PGRST102) before the filters are checked, as ApiRequest.hs
                // reads the payload before Plan.hs plans the mutation; `columns=` is not
                // consulted for PUT (Payload.hs).
                let p = plan::payload(req.body, None)?;
                plan::check_put_filters(table, &query::filter_fields(pairs), q)?;
                Ok((mutation.put(&p)?, Kind::Put))
            }
            "PATCH" => {
                let p = plan::payload(req.body, q.columns.as_deref())?;
                Ok((mutation.update(&p)?, Kind::Update))
            }
            "DELETE" => Ok((Sql::bare(mutation.delete()?), Kind::Delete)),
            m => Err(ApiError::pgrst(405, "PGRST117", format!("Unsupported HTTP method: {m}"))),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn call_plan(
        &self,
        req: &Request,
        schema: &SchemaCache,
        name: &str,
        funcs: Option<&Vec<Function>>,
        pairs: &[(String, String)],
        prefer: &Prefer,
        media: Media,
    ) -> Result<(Sql, Kind, bool), ApiError> {
        let (keys, json_args, q): (Vec<String>, Option<plan::Payload>, QueryParams) = match req.method {
            "POST" => {
                let body = if req.body.iter().all(u8::is_ascii_whitespace) { b"{}".as_slice() } else { req.body };
                let p = plan::payload(body, None)?;
                (p.keys.clone(), Some(p), query::parse_query(pairs, false)?)
            }
            // ApiRequest.hs: on GET a pair whose value is no operator expression is an
            // argument; the others filter the result.
            "GET" | "HEAD" => {
                let q = query::parse_query(pairs, true)?;
                (q.rpc_args.iter().map(|(k, _)| k.clone()).collect(), None, q)
            }
            m => return Err(ApiError::pgrst(405, "PGRST101", format!("Cannot use the {m} method on RPC"))),
        };
        let s = &schema.schema;
        let not_found = || {
            let mut sorted = keys.clone();
            sorted.sort();
            sorted.dedup();
            let list = sorted.join(", ");
            let (sig, with) = if sorted.is_empty() {
                (" without parameters".to_owned(), " without parameters".to_owned())
            } else {
                (format!("({list})"), format!(" with parameter{} {list}", if sorted.len() > 1 { "s" } else { "" }))
            };
            let json = if json_args.is_some() { " or with a single unnamed json/jsonb parameter" } else { "" };
            let mut e = ApiError::pgrst(
                404,
                "PGRST202",
                format!("Could not find the function {s}.{name}{sig} in the schema cache"),
            )
            .with_details(format!(
                "Searched for the function {s}.{name}{with}{json}, but no matches were found in the schema cache."
            ));
            e.hint = rpc_hint(schema, name, &sorted);
            e
        };
        let candidates: Vec<&Function> = funcs
            .map(|fs| {
                fs.iter()
                    .filter(|f| {
                        if f.single_unnamed_json() || (prefer.single_object && f.args.len() == 1) {
                            return json_args.is_some();
                        }
                        keys.iter().all(|k| f.args.iter().any(|a| a.name == *k))
                            && f.args.iter().all(|a| a.has_default || keys.contains(&a.name))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let func = match candidates.as_slice() {
            [] => return Err(not_found()),
            [f] => *f,
            many => {
                let list: Vec<String> = many
                    .iter()
                    .map(|f| {
                        let args: Vec<String> =
                            f.args.iter().map(|a| format!("{} => {}", a.name, a.type_name)).collect();
                        format!("{s}.{}({})", f.name, args.join(", "))
                    })
                    .collect();
                return Err(ApiError::pgrst(300, "PGRST203", format!("Could not choose the best candidate function between: {}", list.join(", ")))
                    .with_hint("Try renaming the parameters or the function itself in the database so function overloading can be resolved"));
            }
        };
        let set_returning = matches!(
            func.returns,
            crate::schema::ReturnShape::SetofComposite | crate::schema::ReturnShape::SetofScalar
        );
        if prefer.strict && prefer.max_affected.is_some() && !set_returning {
            return Err(ApiError::pgrst(
                400,
                "PGRST128",
                "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
            ));
        }
        let args = match json_args {
            Some(p) => RpcArgs::Json(p),
            None => RpcArgs::Direct(q.rpc_args.clone()),
        };
        let range = match req.header("range") {
            Some(h) if req.method == "GET" => query::parse_range_header(h)?,
            _ => None,
        };
        let window = Window::new(
            range,
            &q,
            self.config.max_rows.filter(|_| {
                func.returns == crate::schema::ReturnShape::SetofComposite
                    || func.returns == crate::schema::ReturnShape::SetofScalar
            }),
        );
        let sql = plan::call(schema, func, &args, &q, window, prefer, media, self.config.max_rows)?;
        Ok((sql, Kind::Call { window, void: func.returns == crate::schema::ReturnShape::Void }, func.volatility == "v"))
    }
}

/// Error.hs `noRpcHint`: a function of a similar name, or the closest argument list of the
/// function's overloads.
fn rpc_hint(schema: &SchemaCache, name: &str, keys: &[String]) -> Option<String> {
    let s = &schema.schema;
    match schema.functions.get(name) {
        None => {
            let names: Vec<&str> = schema.functions.keys().map(String::as_str).collect();
            crate::fuzzy::best(&names, name, 0.75)
                .map(|(f, _)| format!("Perhaps you meant to call the function {s}.{f}"))
        }
        Some(overloads) => {
            let lists: Vec<String> = overloads
                .iter()
                .map(|f| {
                    let mut args: Vec<&str> = f.args.iter().map(|a| a.name.as_str()).collect();
                    args.sort();
                    format!("({})", args.join(", "))
                })
                .collect();
            let refs: Vec<&str> = lists.iter().map(String::as_str).collect();
            crate::fuzzy::best(&refs, &format!("({})", keys.join(", ")), 0.33)
                .map(|(l, _)| format!("Perhaps you meant to call the function {s}.{name}{l}"))
        }
    }
}
