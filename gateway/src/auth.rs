//! A local Supabase Auth (GoTrue) under `/auth/v1`, on the same port as `/rest/v1`, as
//! Supabase serves it: email + password sign-up and sign-in, anonymous sign-in, rotating
//! refresh tokens, the user endpoints, logout and the admin user routes, with GoTrue's
//! tables (supabase/local/bootstrap.sql), answers and error bodies. Read from
//! supabase/auth @bc32168 (internal/api/*.go, internal/tokens/service.go,
//! internal/models/*.go); gateway/README.md lists what is covered and what is not.
//!
//! Configured as a local Supabase with `enable_confirmations = false` (sign-up confirms the
//! email and returns a session), anonymous sign-ins on, phone sign-ups off, legacy (v1)
//! refresh tokens with rotation and a reuse interval.

use std::sync::Mutex;

use serde_json::{Map, Value, json};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row, Transaction};

use crate::app::Request;
use crate::error::ApiError;
use crate::jwt;
use crate::shape::Response;

pub struct AuthConfig {
    /// Connects as `supabase_auth_admin`, the role GoTrue uses.
    pub db_url: String,
    pub jwt_secret: Vec<u8>,
    /// Access token lifetime in seconds (GoTrue's `GOTRUE_JWT_EXP`, 3600 by default).
    pub jwt_exp: i64,
    /// The `iss` claim: `<url>/auth/v1`, as a local Supabase sets `GOTRUE_JWT_ISSUER`.
    pub issuer: String,
    /// Seconds a revoked refresh token may still be exchanged (`refresh_token_reuse_interval`, 10).
    pub reuse_interval: i64,
    /// The API keys Supabase's gateway accepts, with the role each stands for.
    pub api_keys: Vec<(String, String)>,
    /// bcrypt cost (GoTrue: bcrypt.DefaultCost, 10).
    pub bcrypt_cost: u32,
}

pub struct Auth {
    pub config: AuthConfig,
    idle: Mutex<Vec<Client>>,
    /// At most this many connections at once, as the REST side's pool.
    permits: tokio::sync::Semaphore,
}

const MIN_PASSWORD_LENGTH: usize = 6;
const AUD: &str = "authenticated";
const INVALID_LOGIN: &str = "Invalid login credentials";
const ADMIN_ROLES: [&str; 2] = ["service_role", "supabase_admin"];

/// An error as GoTrue answers it (apierrors.HTTPError, OAuthError, WeakPasswordError).
#[derive(Debug)]
pub struct AuthError {
    status: u16,
    code: &'static str,
    msg: String,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Http,
    /// `{"error": …, "error_description": …}` (the refresh grant's missing token).
    OAuth(&'static str),
    Weak(Vec<&'static str>),
    /// Supabase's API gateway refused the key before GoTrue saw the request.
    Gateway(Box<ApiError>),
    /// chi's own 404 for a route GoTrue does not have.
    NoRoute,
}

impl AuthError {
    fn new(status: u16, code: &'static str, msg: impl Into<String>) -> AuthError {
        AuthError { status, code, msg: msg.into(), kind: Kind::Http }
    }

    fn bad(code: &'static str, msg: impl Into<String>) -> AuthError {
        AuthError::new(400, code, msg)
    }

    fn db(context: &str, e: impl std::fmt::Display) -> AuthError {
        eprintln!("agentmem-gateway auth: {context}: {e}");
        AuthError::new(500, "unexpected_failure", context)
    }

    /// HandleResponseError: the 2024-01-01 API version (auth-js sends it) answers
    /// `{code, message}`; older clients get `{code: <status>, error_code, msg}`.
    fn render(self, v2024: bool) -> Response {
        let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
        if v2024 {
            headers.push(("X-Supabase-Api-Version".into(), "2024-01-01".into()));
        }
        let body = match self.kind {
            Kind::Gateway(e) => return Response::error(&e),
            Kind::NoRoute => {
                return Response {
                    status: 404,
                    headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
                    body: b"404 page not found\n".to_vec(),
                };
            }
            Kind::OAuth(error) => json!({"error": error, "error_description": self.msg}),
            Kind::Weak(reasons) if v2024 => {
                json!({"code": "weak_password", "message": self.msg, "weak_password": {"reasons": reasons}})
            }
            Kind::Weak(reasons) => {
                headers.push(("x-sb-error-code".into(), "weak_password".into()));
                json!({"code": self.status, "error_code": "weak_password", "msg": self.msg, "weak_password": {"reasons": reasons}})
            }
            Kind::Http => {
                headers.push(("x-sb-error-code".into(), self.code.into()));
                if v2024 {
                    json!({"code": self.code, "message": self.msg})
                } else {
                    json!({"code": self.status, "error_code": self.code, "msg": self.msg})
                }
            }
        };
        Response { status: self.status, headers, body: body.to_string().into_bytes() }
    }
}

type Result<T> = std::result::Result<T, AuthError>;

fn ok_json(status: u16, v: &Value) -> Response {
    Response {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: v.to_string().into_bytes(),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// Who the request comes as, after Supabase's API gateway: a JWT (the user's, or the
/// legacy API key standing in for it) or an opaque `sb_…` key's role.
enum Caller {
    Jwt(String),
    KeyRole(String),
}

/// `to_char` of a timestamptz as Go's JSON time (UTC, RFC 3339 with microseconds).
fn ts(col: &str) -> String {
    format!("to_char({col} at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
}

/// GoTrue's models.User as JSON: fields tagged `omitempty` are left out when empty.
fn user_json_sql() -> String {
    format!(
        "jsonb_build_object(
           'id', u.id, 'aud', coalesce(u.aud, ''), 'role', coalesce(u.role, ''), 'email', coalesce(u.email, ''),
           'phone', coalesce(u.phone, ''), 'app_metadata', coalesce(u.raw_app_meta_data, '{{}}'),
           'user_metadata', coalesce(u.raw_user_meta_data, '{{}}'),
           'identities', coalesce((select jsonb_agg(jsonb_build_object(
               'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
               'provider', i.provider, 'last_sign_in_at', {i_last}, 'created_at', {i_created}, 'updated_at', {i_updated},
               'email', i.email) order by i.created_at) from auth.identities i where i.user_id = u.id), '[]'),
           'created_at', {created}, 'updated_at', {updated}, 'is_anonymous', u.is_anonymous)
         || jsonb_strip_nulls(jsonb_build_object(
           'email_confirmed_at', {email_confirmed}, 'phone_confirmed_at', {phone_confirmed},
           'confirmed_at', {confirmed}, 'last_sign_in_at', {last}, 'banned_until', {banned},
           'deleted_at', {deleted}, 'new_email', nullif(u.email_change, ''), 'email_change_sent_at', {ecs},
           'new_phone', nullif(u.phone_change, ''), 'invited_at', {invited}, 'confirmation_sent_at', {conf_sent},
           'recovery_sent_at', {rec_sent}))",
        i_last = ts("i.last_sign_in_at"),
        i_created = ts("i.created_at"),
        i_updated = ts("i.updated_at"),
        created = ts("u.created_at"),
        updated = ts("u.updated_at"),
        email_confirmed = ts("u.email_confirmed_at"),
        phone_confirmed = ts("u.phone_confirmed_at"),
        confirmed = ts("u.confirmed_at"),
        last = ts("u.last_sign_in_at"),
        banned = ts("u.banned_until"),
        deleted = ts("u.deleted_at"),
        ecs = ts("u.email_change_sent_at"),
        invited = ts("u.invited_at"),
        conf_sent = ts("u.confirmation_sent_at"),
        rec_sent = ts("u.recovery_sent_at"),
    )
}

static USER_SELECT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "select u.id::text, u.email, u.phone, coalesce(u.aud, ''), coalesce(u.role, ''), u.encrypted_password,
                u.email_confirmed_at is not null, u.phone_confirmed_at is not null,
                coalesce(u.banned_until > now(), false), u.is_anonymous, u.deleted_at is not null,
                coalesce(u.raw_app_meta_data, '{{}}'), coalesce(u.raw_user_meta_data, '{{}}'), {}
           from auth.users u",
        user_json_sql()
    )
});

#[derive(Debug, Clone)]
struct User {
    id: String,
    email: Option<String>,
    phone: Option<String>,
    aud: String,
    role: String,
    encrypted_password: Option<String>,
    email_confirmed: bool,
    phone_confirmed: bool,
    banned: bool,
    is_anonymous: bool,
    app_metadata: Value,
    user_metadata: Value,
    json: Value,
}

impl User {
    fn from_row(r: &Row) -> User {
        User {
            id: r.get(0),
            email: r.get(1),
            phone: r.get(2),
            aud: r.get(3),
            role: r.get(4),
            encrypted_password: r.get(5),
            email_confirmed: r.get(6),
            phone_confirmed: r.get(7),
            banned: r.get(8),
            is_anonymous: r.get(9),
            app_metadata: r.get(11),
            user_metadata: r.get(12),
            json: r.get(13),
        }
    }

    fn has_password(&self) -> bool {
        self.encrypted_password.as_deref().is_some_and(|p| !p.is_empty())
    }
}

/// The body as a JSON object, as GoTrue's `retrieveRequestParams` decodes it.
struct Params(Map<String, Value>);

impl Params {
    fn parse(body: &[u8]) -> Result<Params> {
        let bad = |e: String| AuthError::bad("bad_json", format!("Could not parse request body as JSON: {e}"));
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(m)) => Ok(Params(m)),
            Ok(Value::Null) => Ok(Params(Map::new())),
            Ok(other) => Err(bad(format!("json: cannot unmarshal {} into Go value", go_type(&other)))),
            Err(_) if body.iter().all(u8::is_ascii_whitespace) => Err(bad("unexpected end of JSON input".into())),
            Err(e) => Err(bad(e.to_string())),
        }
    }

    /// A string field; JSON null and absence are "".
    fn str(&self, name: &str) -> Result<String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(AuthError::bad(
                "bad_json",
                format!(
                    "Could not parse request body as JSON: json: cannot unmarshal {} into Go struct field .{name} of type string",
                    go_type(other)
                ),
            )),
        }
    }

    /// A `*string` field: absent or null is None.
    fn opt_str(&self, name: &str) -> Result<Option<String>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            _ => self.str(name).map(Some),
        }
    }

    fn bool(&self, name: &str) -> bool {
        self.0.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// A `map[string]interface{}` field.
    fn object(&self, name: &str) -> Result<Option<Map<String, Value>>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m.clone())),
            Some(other) => Err(AuthError::bad(
                "bad_json",
                format!(
                    "Could not parse request body as JSON: json: cannot unmarshal {} into Go struct field .{name} of type map[string]interface {{}}",
                    go_type(other)
                ),
            )),
        }
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// UpdateUserMetaData / UpdateAppMetaData: a shallow merge where null deletes the key.
fn merge(base: &Value, updates: &Map<String, Value>) -> Value {
    let mut out = base.as_object().cloned().unwrap_or_default();
    for (k, v) in updates {
        if v.is_null() {
            out.remove(k);
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

fn check_password(password: &str) -> Result<()> {
    if password.chars().count() < MIN_PASSWORD_LENGTH {
        return Err(AuthError {
            status: 422,
            code: "weak_password",
            msg: format!("Password should be at least {MIN_PASSWORD_LENGTH} characters."),
            kind: Kind::Weak(vec!["length"]),
        });
    }
    Ok(())
}

/// `validateEmail`: required, at most 255 bytes, a plausible address (checkmail's format
/// check: one `@`, a local part and a domain without spaces); lower-cased.
fn validate_email(email: &str) -> Result<String> {
    if email.is_empty() {
        return Err(AuthError::bad("validation_failed", "An email address is required"));
    }
    if email.len() > 255 {
        return Err(AuthError::bad("validation_failed", "An email address is too long"));
    }
    let valid = email.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && !domain.is_empty()
            && !domain.contains('@')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !email.chars().any(|c| c.is_whitespace() || c.is_control())
    });
    if !valid {
        return Err(AuthError::bad("validation_failed", "Unable to validate email address: invalid format"));
    }
    Ok(email.to_lowercase())
}

/// Go's `time.ParseDuration` ("1h30m", "100ms", "-1.5h", "0"), in seconds.
fn parse_go_duration(s: &str) -> std::result::Result<f64, String> {
    let err = || format!("time: invalid duration \"{s}\"");
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Ok(0.0);
    }
    if rest.is_empty() {
        return Err(err());
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let num_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let (num, after) = rest.split_at(num_end);
        if num.is_empty() || num == "." {
            return Err(err());
        }
        let value: f64 = num.parse().map_err(|_| err())?;
        let unit_end = after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_end);
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            "" => return Err(format!("time: missing unit in duration \"{s}\"")),
            u => return Err(format!("time: unknown unit \"{u}\" in duration \"{s}\"")),
        };
        total += value * scale;
        rest = next;
    }
    Ok(if neg { -total } else { total })
}

/// GoTrue's refresh tokens are random alphanumerics; these carry 128 bits.
fn random_token() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut bytes = [0u8; 22];
    getrandom::fill(&mut bytes).expect("the OS random source");
    bytes.iter().map(|b| ALPHABET[(*b as usize) % ALPHABET.len()] as char).collect()
}

async fn hash_password(password: String, cost: u32) -> Result<String> {
    tokio::task::spawn_blocking(move || bcrypt::non_truncating_hash(password, cost))
        .await
        .map_err(|e| AuthError::db("Error hashing password", e))?
        .map_err(|e| match e {
            bcrypt::BcryptError::Truncation(_) => {
                AuthError::bad("validation_failed", "bcrypt: password length exceeds 72 bytes")
            }
            other => AuthError::db("Error hashing password", other),
        })
}

async fn password_matches(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || bcrypt::verify(password, &hash).unwrap_or(false)).await.unwrap_or(false)
}

/// A pooled connection, handed back when dropped.
struct Conn<'a> {
    auth: &'a Auth,
    client: Option<Client>,
    _permit: tokio::sync::SemaphorePermit<'a>,
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.client.take()
            && !c.is_closed()
        {
            self.auth.idle.lock().expect("auth pool").push(c);
        }
    }
}

type Tx<'a> = Transaction<'a>;

async fn user_where(tx: &Tx<'_>, cond: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<User>> {
    let sql = format!("{} where {cond}", *USER_SELECT);
    let row = tx.query_opt(&sql, params).await.map_err(|e| AuthError::db("Database error finding user", e))?;
    Ok(row.as_ref().map(User::from_row))
}

/// GoTrue's refusal of an email another (non-SSO) user of the audience has already, but
/// `except` (the user changing their own email).
async fn email_free(tx: &Tx<'_>, email: &str, except: Option<&str>) -> Result<()> {
    let taken = match except {
        None => user_where(tx, "lower(u.email) = $1 and u.aud = $2 and not u.is_sso_user", &[&email, &AUD]).await?,
        Some(id) => {
            user_where(
                tx,
                "lower(u.email) = $1 and u.aud = $2 and u.id <> ($3::text)::uuid and not u.is_sso_user",
                &[&email, &AUD, &id],
            )
            .await?
        }
    };
    match taken {
        Some(_) => Err(email_exists()),
        None => Ok(()),
    }
}

fn email_exists() -> AuthError {
    AuthError::new(422, "email_exists", "A user with this email address has already been registered")
}

async fn user_by_id(tx: &Tx<'_>, id: &str) -> Result<Option<User>> {
    user_where(tx, "u.id = ($1::text)::uuid", &[&id]).await
}

async fn exec(tx: &Tx<'_>, context: &str, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
    tx.execute(sql, params).await.map_err(|e| AuthError::db(context, e))
}

impl Auth {
    pub fn new(config: AuthConfig) -> Auth {
        Auth { config, idle: Mutex::new(Vec::new()), permits: tokio::sync::Semaphore::new(10) }
    }

    async fn conn(&self) -> Result<Conn<'_>> {
        let permit = self.permits.acquire().await.expect("semaphore never closed");
        let existing = self.idle.lock().expect("auth pool").pop();
        let client = match existing {
            Some(c) if !c.is_closed() => c,
            _ => crate::pool::connect(&self.config.db_url).await.map_err(|e| AuthError::db("Database error", e))?,
        };
        Ok(Conn { auth: self, client: Some(client), _permit: permit })
    }

    pub async fn handle(&self, req: &Request<'_>, route: &str) -> Response {
        let v2024 = req
            .header("x-supabase-api-version")
            .and_then(|v| {
                let d: Vec<&str> = v.trim().split('-').collect();
                (d.len() == 3 && d.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
                    .then(|| v.trim().to_owned())
            })
            .is_some_and(|d| d.as_str() >= "2024-01-01");
        match self.route(req, route).await {
            Ok(r) => r,
            Err(e) => e.render(v2024),
        }
    }

    /// Supabase's API gateway in front of Auth: an `apikey` it knows is required; a user
    /// JWT in Authorization passes, otherwise the key stands in (kong.yml `LUA_AUTH_EXPR`).
    fn gate(&self, req: &Request) -> Result<Caller> {
        let apikey = req
            .header("apikey")
            .map(str::to_owned)
            .or_else(|| crate::query::decode_pairs(req.query).into_iter().find(|(k, _)| k == "apikey").map(|(_, v)| v));
        let gateway = |status, message: &str, hint: &str| AuthError {
            status,
            code: "",
            msg: String::new(),
            kind: Kind::Gateway(Box::new(ApiError::api_gateway(status, message, hint))),
        };
        let Some(apikey) = apikey else {
            return Err(gateway(
                401,
                "No API key found in request",
                "No `apikey` request header or url param was found.",
            ));
        };
        let Some((_, key_role)) = self.config.api_keys.iter().find(|(k, _)| *k == apikey) else {
            return Err(gateway(
                401,
                "Invalid API key",
                "Double check your Supabase `anon` or `service_role` API key.",
            ));
        };
        let bearer = req.header("authorization").and_then(|h| {
            let (scheme, token) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
        });
        Ok(match bearer {
            Some(t) if !t.starts_with("sb_") => Caller::Jwt(t),
            _ if apikey.starts_with("sb_") => Caller::KeyRole(key_role.clone()),
            _ => Caller::Jwt(apikey),
        })
    }

    async fn route(&self, req: &Request<'_>, route: &str) -> Result<Response> {
        let caller = self.gate(req)?;
        let route = route.trim_end_matches('/');
        let pairs = crate::query::decode_pairs(req.query);
        let param = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str()).unwrap_or("");
        match (req.method, route) {
            ("GET", "/health") => Ok(ok_json(
                200,
                &json!({"version": "agentmem-gateway", "name": "GoTrue", "description": "GoTrue is a user registration and authentication API"}),
            )),
            ("GET", "/settings") => Ok(ok_json(200, &settings())),
            ("POST", "/signup") => self.signup(req).await,
            ("POST", "/token") => match param("grant_type") {
                "password" => self.password_grant(req).await,
                "refresh_token" => self.refresh_grant(req).await,
                _ => Err(AuthError::bad("invalid_credentials", "unsupported_grant_type")),
            },
            ("GET", "/user") => {
                let (user, _, claims) = self.authenticated(&caller).await?;
                if claims.get("aud").and_then(Value::as_str) != Some(AUD) {
                    return Err(AuthError::bad("validation_failed", "Token audience doesn't match request audience"));
                }
                Ok(ok_json(200, &user.json))
            }
            ("PUT", "/user") => self.update_user(req, &caller).await,
            ("POST", "/logout") => self.logout(&caller, param("scope")).await,
            (method, r) if r == "/admin/users" || r.starts_with("/admin/users/") => {
                self.require_admin(&caller)?;
                let id = r.strip_prefix("/admin/users").unwrap_or("").trim_start_matches('/');
                match (method, id) {
                    ("GET", "") => self.admin_list(&pairs).await,
                    ("POST", "") => self.admin_create(req).await,
                    (_, id) if id.contains('/') => {
                        Err(AuthError { kind: Kind::NoRoute, ..AuthError::new(404, "", "") })
                    }
                    ("GET", id) => Ok(ok_json(200, &self.admin_load(id).await?.json)),
                    ("PUT", id) => self.admin_update(req, id).await,
                    ("DELETE", id) => self.admin_delete(req, id).await,
                    _ => Err(AuthError { kind: Kind::NoRoute, ..AuthError::new(405, "", "") }),
                }
            }
            _ => Err(AuthError { kind: Kind::NoRoute, ..AuthError::new(404, "", "") }),
        }
    }

    /// `requireAuthentication`: a verified JWT whose `sub` is an existing user, whose
    /// `session_id` (when present) is a live session, and who is not banned.
    async fn authenticated(&self, caller: &Caller) -> Result<(User, Option<String>, Map<String, Value>)> {
        let token = match caller {
            Caller::Jwt(t) => t,
            // An opaque key's role reaches GoTrue as a JWT without `sub`.
            Caller::KeyRole(_) => return Err(AuthError::new(403, "bad_jwt", "invalid claim: missing sub claim")),
        };
        let claims = self.parse_jwt(token)?;
        let sub = claims.get("sub").and_then(Value::as_str).unwrap_or("");
        if sub.is_empty() {
            return Err(AuthError::new(403, "bad_jwt", "invalid claim: missing sub claim"));
        }
        if !is_uuid(sub) {
            return Err(AuthError::bad("bad_jwt", "invalid claim: sub claim must be a UUID"));
        }
        let session = claims.get("session_id").and_then(Value::as_str).filter(|s| !s.is_empty() && *s != NIL_UUID);
        if session.is_some_and(|s| !is_uuid(s)) {
            return Err(AuthError::new(403, "bad_jwt", "invalid claim: session_id claim must be a UUID"));
        }
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        let user = user_by_id(&tx, sub)
            .await?
            .ok_or_else(|| AuthError::new(403, "user_not_found", "User from sub claim in JWT does not exist"))?;
        if let Some(sid) = session {
            let found = tx
                .query_opt("select 1 from auth.sessions where id = ($1::text)::uuid", &[&sid])
                .await
                .map_err(|e| AuthError::db("Database error finding session", e))?;
            if found.is_none() {
                return Err(AuthError::new(
                    403,
                    "session_not_found",
                    "Session from session_id claim in JWT does not exist",
                ));
            }
        }
        if user.banned {
            return Err(AuthError::new(403, "user_banned", "User is banned"));
        }
        Ok((user, session.map(str::to_owned), claims))
    }

    /// `parseJWTClaims`: HS256 with the stack's secret, `exp`/`nbf`/`iat` checked exactly
    /// (golang-jwt allows no leeway by default).
    fn parse_jwt(&self, token: &str) -> Result<Map<String, Value>> {
        let fail = |why: &str| {
            AuthError::new(403, "bad_jwt", format!("invalid JWT: unable to parse or verify signature, {why}"))
        };
        let claims = jwt::verify(token, &self.config.jwt_secret, None, now() - jwt::CLOCK_SKEW_SECONDS).map_err(
            |e| match e {
                jwt::JwtError::Expired => fail("token has invalid claims: token is expired"),
                jwt::JwtError::Signature => fail("token signature is invalid: signature is invalid"),
                jwt::JwtError::Parts(_) | jwt::JwtError::Empty | jwt::JwtError::Undecodable => {
                    fail("token is malformed: token contains an invalid number of segments")
                }
                other => fail(&other.message()),
            },
        )?;
        let t = now();
        let time = |k: &str| claims.get(k).and_then(Value::as_f64).map(|v| v as i64);
        if time("exp").is_some_and(|exp| t >= exp) {
            return Err(fail("token has invalid claims: token is expired"));
        }
        if time("nbf").is_some_and(|nbf| t < nbf) {
            return Err(fail("token has invalid claims: token is not valid yet"));
        }
        Ok(claims)
    }

    fn require_admin(&self, caller: &Caller) -> Result<()> {
        let role = match caller {
            Caller::KeyRole(r) => r.clone(),
            Caller::Jwt(t) => self.parse_jwt(t)?.get("role").and_then(Value::as_str).unwrap_or_default().to_owned(),
        };
        if ADMIN_ROLES.contains(&role.as_str()) {
            Ok(())
        } else {
            Err(AuthError::new(403, "not_admin", "User not allowed"))
        }
    }

    // --- sessions and tokens -----------------------------------------------------------

    /// `IssueRefreshToken` (legacy refresh tokens): a session with its AMR claim and first
    /// refresh token; the user's `last_sign_in_at` is now.
    async fn issue_session(
        &self,
        tx: &Tx<'_>,
        user_id: &str,
        method: &str,
        user_agent: Option<&str>,
    ) -> Result<(String, String)> {
        let token = random_token();
        let row = tx
            .query_one(
                "with s as (insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent)
                            values (gen_random_uuid(), ($1::text)::uuid, now(), now(), 'aal1', $3) returning id),
                      a as (insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
                            select gen_random_uuid(), s.id, now(), now(), $2 from s),
                      r as (insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
                            select '00000000-0000-0000-0000-000000000000', $4, $1, false, now(), now(), s.id from s
                            returning token),
                      u as (update auth.users set last_sign_in_at = now(), updated_at = now()
                            where id = ($1::text)::uuid returning 1),
                      i as (update auth.identities set last_sign_in_at = now(), updated_at = now()
                            where user_id = ($1::text)::uuid and provider = 'email' returning 1)
                 select (select id::text from s), (select token from r)",
                &[&user_id, &method, &user_agent, &token],
            )
            .await
            .map_err(|e| AuthError::db("Database error granting user", e))?;
        Ok((row.get(0), row.get(1)))
    }

    /// `GenerateAccessToken`: the claims GoTrue signs, with the session's AMR.
    async fn access_token(&self, tx: &Tx<'_>, user: &User, session_id: &str) -> Result<(String, i64)> {
        let amr: Value = tx
            .query_one(
                "select coalesce(jsonb_agg(jsonb_build_object('method', authentication_method,
                                                              'timestamp', extract(epoch from updated_at)::bigint)
                                           order by updated_at desc), '[]')
                   from auth.mfa_amr_claims where session_id = ($1::text)::uuid",
                &[&session_id],
            )
            .await
            .map_err(|e| AuthError::db("Database error reading session", e))?
            .get(0);
        let iat = now();
        let exp = iat + self.config.jwt_exp;
        let claims = json!({
            "iss": self.config.issuer,
            "sub": user.id,
            "aud": user.aud,
            "exp": exp,
            "iat": iat,
            "email": user.email.clone().unwrap_or_default(),
            "phone": user.phone.clone().unwrap_or_default(),
            "app_metadata": user.app_metadata,
            "user_metadata": user.user_metadata,
            "role": user.role,
            "aal": "aal1",
            "amr": amr,
            "session_id": session_id,
            "is_anonymous": user.is_anonymous,
        });
        Ok((jwt::sign(&claims, &self.config.jwt_secret), exp))
    }

    async fn token_response(&self, tx: &Tx<'_>, user_id: &str, session_id: &str, refresh_token: &str) -> Result<Value> {
        let user =
            user_by_id(tx, user_id).await?.ok_or_else(|| AuthError::db("Database error loading user", "gone"))?;
        let (access, exp) = self.access_token(tx, &user, session_id).await?;
        Ok(json!({
            "access_token": access,
            "token_type": "bearer",
            "expires_in": exp - now(),
            "expires_at": exp,
            "refresh_token": refresh_token,
            "user": user.json,
        }))
    }

    // --- endpoints ---------------------------------------------------------------------

    /// POST /signup: anonymous without email and phone, else email + password (phone
    /// sign-ups are off, as in a local Supabase's default config).
    async fn signup(&self, req: &Request<'_>) -> Result<Response> {
        let p = Params::parse(req.body)?;
        let (email, phone, password) = (p.str("email")?, p.str("phone")?, p.str("password")?);
        let data = p.object("data")?.unwrap_or_default();
        let agent = req.header("user-agent");
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        if email.is_empty() && phone.is_empty() {
            let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
            let id: String = tx
                .query_one(
                    "insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password,
                                             raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
                                             confirmation_token, recovery_token, email_change_token_new, email_change,
                                             is_anonymous)
                     values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), $1, $1, null, null, '',
                             '{}', $2, now(), now(), '', '', '', '', true)
                     returning id::text",
                    &[&AUD, &Value::Object(data)],
                )
                .await
                .map_err(|e| AuthError::db("Database error creating anonymous user", e))?
                .get(0);
            let (sid, rt) = self.issue_session(&tx, &id, "anonymous", agent).await?;
            let body = self.token_response(&tx, &id, &sid, &rt).await?;
            tx.commit().await.map_err(|e| AuthError::db("Database error creating anonymous user", e))?;
            return Ok(ok_json(200, &body));
        }
        if password.is_empty() {
            return Err(AuthError::bad("validation_failed", "Signup requires a valid password"));
        }
        check_password(&password)?;
        if !email.is_empty() && !phone.is_empty() {
            return Err(AuthError::bad(
                "validation_failed",
                "Only an email address or phone number should be provided on signup.",
            ));
        }
        if email.is_empty() {
            return Err(AuthError::bad("phone_provider_disabled", "Phone signups are disabled"));
        }
        let email = validate_email(&email)?;
        let hash = hash_password(password, self.config.bcrypt_cost).await?;
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        if user_where(&tx, "lower(u.email) = $1 and u.aud = $2 and not u.is_sso_user", &[&email, &AUD]).await?.is_some()
        {
            // "User already registered" (autoconfirm on). GoTrue would let an unconfirmed
            // user sign up again; here every existing address is taken.
            return Err(AuthError::new(422, "user_already_exists", "User already registered"));
        }
        let mut identity_data = Map::from_iter([
            ("sub".to_owned(), Value::Null),
            ("email".to_owned(), json!(email)),
            ("email_verified".to_owned(), json!(false)),
            ("phone_verified".to_owned(), json!(false)),
        ]);
        for (k, v) in &data {
            identity_data.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let mut user_metadata = data.clone();
        user_metadata.insert("email_verified".into(), json!(true));
        let id: String = tx
            .query_one(
                "with u as (
                   insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                                           raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
                                           confirmation_token, recovery_token, email_change_token_new, email_change,
                                           is_anonymous)
                   values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), $1, $1, $2, $3, now(),
                           '{\"provider\": \"email\", \"providers\": [\"email\"]}', $4, now(), now(), '', '', '', '', false)
                   returning id),
                 i as (insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
                       select u.id::text, u.id, $5::jsonb || jsonb_build_object('sub', u.id::text), 'email', now(), now() from u)
                 select id::text from u",
                &[&AUD, &email, &hash, &Value::Object(user_metadata), &Value::Object(identity_data)],
            )
            .await
            .map_err(|e| match e.as_db_error().map(|d| d.code().code()) {
                Some("23505") => AuthError::new(422, "user_already_exists", "User already registered"),
                _ => AuthError::db("Database error saving new user", e),
            })?
            .get(0);
        let (sid, rt) = self.issue_session(&tx, &id, "password", agent).await?;
        let body = self.token_response(&tx, &id, &sid, &rt).await?;
        tx.commit().await.map_err(|e| AuthError::db("Database error saving new user", e))?;
        Ok(ok_json(200, &body))
    }

    /// POST /token?grant_type=password (`ResourceOwnerPasswordGrant`).
    async fn password_grant(&self, req: &Request<'_>) -> Result<Response> {
        let p = Params::parse(req.body)?;
        let (email, phone, password) = (p.str("email")?, p.str("phone")?, p.str("password")?);
        if !email.is_empty() && !phone.is_empty() {
            return Err(AuthError::bad(
                "validation_failed",
                "Only an email address or phone number should be provided on login.",
            ));
        }
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        let user = if !email.is_empty() {
            user_where(&tx, "lower(u.email) = lower($1) and u.aud = $2 and not u.is_sso_user", &[&email, &AUD]).await?
        } else if !phone.is_empty() {
            let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
            user_where(&tx, "u.phone = $1 and u.aud = $2", &[&digits, &AUD]).await?
        } else {
            return Err(AuthError::bad("validation_failed", "missing email or phone"));
        };
        let invalid = || AuthError::bad("invalid_credentials", INVALID_LOGIN);
        let user = user.ok_or_else(invalid)?;
        if !user.has_password() {
            return Err(invalid());
        }
        if user.banned {
            return Err(AuthError::bad("user_banned", "User is banned"));
        }
        let hash = user.encrypted_password.clone().unwrap_or_default();
        if !password_matches(password, hash).await {
            return Err(invalid());
        }
        if !email.is_empty() && !user.email_confirmed {
            return Err(AuthError::bad("email_not_confirmed", "Email not confirmed"));
        }
        if !phone.is_empty() && !user.phone_confirmed {
            return Err(AuthError::bad("phone_not_confirmed", "Phone not confirmed"));
        }
        let (sid, rt) = self.issue_session(&tx, &user.id, "password", req.header("user-agent")).await?;
        let body = self.token_response(&tx, &user.id, &sid, &rt).await?;
        tx.commit().await.map_err(|e| AuthError::db("Database error granting user", e))?;
        Ok(ok_json(200, &body))
    }

    /// POST /token?grant_type=refresh_token (`RefreshTokenGrant`, legacy tokens): the
    /// token is swapped for a new one and revoked. A revoked token that is the parent of
    /// the session's active one gets the active one back (the client lost the answer);
    /// within the reuse interval it is swapped again; after it, the whole session's tokens
    /// are revoked and the answer is `refresh_token_already_used`.
    async fn refresh_grant(&self, req: &Request<'_>) -> Result<Response> {
        let p = Params::parse(req.body)?;
        let token = p.str("refresh_token")?;
        if token.is_empty() {
            return Err(AuthError {
                kind: Kind::OAuth("invalid_request"),
                ..AuthError::new(400, "", "refresh_token required")
            });
        }
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        let row = tx
            .query_opt(
                "select t.id, t.user_id, t.revoked, t.session_id::text,
                        extract(epoch from (now() - t.updated_at))::float8,
                        coalesce(s.not_after < now(), false)
                   from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id
                  where t.token = $1
                    for update of t, s",
                &[&token],
            )
            .await
            .map_err(|e| AuthError::db("Database error finding refresh token", e))?
            .ok_or_else(|| {
                AuthError::bad("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            })?;
        let (token_id, user_id, revoked, session_id, age, expired): (i64, String, Option<bool>, String, f64, bool) =
            (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4), row.get(5));
        let user = user_by_id(&tx, &user_id).await?.ok_or_else(|| {
            AuthError::bad("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
        })?;
        if user.banned {
            return Err(AuthError::bad("user_banned", "Invalid Refresh Token: User Banned"));
        }
        if expired {
            return Err(AuthError::bad("session_expired", "Invalid Refresh Token: Session Expired"));
        }
        let mut issued = None;
        if revoked == Some(true) {
            let active: Option<(String, Option<String>)> = tx
                .query_opt(
                    "select token, parent from auth.refresh_tokens
                      where session_id = ($1::text)::uuid and revoked is false order by id desc limit 1",
                    &[&session_id],
                )
                .await
                .map_err(|e| AuthError::db("Database error finding refresh token", e))?
                .map(|r| (r.get(0), r.get(1)));
            match active {
                Some((active_token, Some(parent))) if parent == token => issued = Some(active_token),
                _ if age > self.config.reuse_interval as f64 => {
                    exec(
                        &tx,
                        "Database error revoking tokens",
                        "update auth.refresh_tokens set revoked = true, updated_at = now()
                          where session_id = ($1::text)::uuid and revoked = false",
                        &[&session_id],
                    )
                    .await?;
                    tx.commit().await.map_err(|e| AuthError::db("Database error revoking tokens", e))?;
                    return Err(AuthError::bad("refresh_token_already_used", "Invalid Refresh Token: Already Used"));
                }
                _ => {}
            }
        }
        let issued = match issued {
            Some(t) => t,
            None => {
                let new_token = random_token();
                let row = tx
                    .query_one(
                        "with old as (update auth.refresh_tokens set revoked = true, updated_at = now()
                                       where id = $1 returning token, user_id, session_id)
                         insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
                         select '00000000-0000-0000-0000-000000000000', $2, old.user_id, false, now(), now(), old.token, old.session_id
                           from old returning token",
                        &[&token_id, &new_token],
                    )
                    .await
                    .map_err(|e| AuthError::db("Database error swapping refresh token", e))?;
                row.get(0)
            }
        };
        exec(
            &tx,
            "failed to update session information",
            "update auth.sessions set refreshed_at = now() at time zone 'UTC', updated_at = now(), user_agent = $2
              where id = ($1::text)::uuid",
            &[&session_id, &req.header("user-agent")],
        )
        .await?;
        let body = self.token_response(&tx, &user_id, &session_id, &issued).await?;
        tx.commit().await.map_err(|e| AuthError::db("Database error refreshing", e))?;
        Ok(ok_json(200, &body))
    }

    /// PUT /user (`UserUpdate`): metadata, password, and an email — which an anonymous
    /// user gets confirmed at once (the same id becomes a permanent user), while a
    /// permanent user's new address waits in `new_email` for a confirmation this local
    /// Auth never mails.
    async fn update_user(&self, req: &Request<'_>, caller: &Caller) -> Result<Response> {
        let p = Params::parse(req.body)?;
        let (user, _, _) = self.authenticated(caller).await?;
        let mut email = p.str("email")?;
        let password = p.opt_str("password")?;
        let phone = p.str("phone")?;
        let data = p.object("data")?;
        if p.object("app_metadata")?.is_some() {
            return Err(AuthError::new(403, "not_admin", "Updating app_metadata requires admin privileges"));
        }
        if !email.is_empty() {
            email = validate_email(&email)?;
        }
        if let Some(pw) = &password {
            check_password(pw)?;
        }
        if !phone.is_empty() {
            return Err(AuthError::new(
                422,
                "phone_provider_disabled",
                "Phone changes are not supported by the local Auth",
            ));
        }
        if user.is_anonymous && password.as_deref().is_some_and(|p| !p.is_empty()) && email.is_empty() {
            return Err(AuthError::new(
                422,
                "validation_failed",
                "Updating password of an anonymous user without an email or phone is not allowed",
            ));
        }
        let changing_email = !email.is_empty() && user.email.as_deref() != Some(email.as_str());
        let mut hash = None;
        if let Some(pw) = password.filter(|p| !p.is_empty()) {
            if user.has_password()
                && password_matches(pw.clone(), user.encrypted_password.clone().unwrap_or_default()).await
            {
                return Err(AuthError::new(
                    422,
                    "same_password",
                    "New password should be different from the old password.",
                ));
            }
            hash = Some(hash_password(pw, self.config.bcrypt_cost).await?);
        }
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        if changing_email {
            email_free(&tx, &email, Some(&user.id)).await?;
        }
        if let Some(h) = &hash {
            exec(
                &tx,
                "Error during password storage",
                "update auth.users set encrypted_password = $2, updated_at = now() where id = ($1::text)::uuid",
                &[&user.id, h],
            )
            .await?;
        }
        if let Some(d) = &data {
            exec(
                &tx,
                "Error updating user",
                "update auth.users set raw_user_meta_data = $2, updated_at = now() where id = ($1::text)::uuid",
                &[&user.id, &merge(&user.user_metadata, d)],
            )
            .await?;
        }
        if changing_email && user.is_anonymous {
            // emailChangeVerify with autoconfirm: the address is confirmed, an email identity
            // appears, and the user stops being anonymous.
            let mut app = user.app_metadata.as_object().cloned().unwrap_or_default();
            let mut providers: Vec<Value> = app.get("providers").and_then(Value::as_array).cloned().unwrap_or_default();
            if !providers.contains(&json!("email")) {
                providers.push(json!("email"));
            }
            app.insert("provider".into(), app.get("provider").cloned().unwrap_or(json!("email")));
            app.insert("providers".into(), Value::Array(providers));
            exec(
                &tx,
                "Error updating user",
                "with u as (update auth.users set email = $2, email_change = '', email_change_token_new = '',
                                   email_confirmed_at = coalesce(email_confirmed_at, now()), is_anonymous = false,
                                   raw_app_meta_data = $3, updated_at = now()
                             where id = ($1::text)::uuid returning id)
                 insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
                 select u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'email', $2::text, 'email_verified', true,
                                                             'phone_verified', false), 'email', now(), now(), now() from u
                 on conflict (provider_id, provider) do update set identity_data = excluded.identity_data, updated_at = now()",
                &[&user.id, &email, &Value::Object(app)],
            )
            .await?;
        } else if changing_email {
            exec(
                &tx,
                "Error updating user",
                "update auth.users set email_change = $2, email_change_token_new = $3, email_change_sent_at = now(),
                        updated_at = now() where id = ($1::text)::uuid",
                &[&user.id, &email, &random_token()],
            )
            .await?;
        }
        let fresh = user_by_id(&tx, &user.id).await?.ok_or_else(|| AuthError::db("Error updating user", "gone"))?;
        tx.commit().await.map_err(|e| AuthError::db("Error updating user", e))?;
        Ok(ok_json(200, &fresh.json))
    }

    /// POST /logout?scope=global|local|others: 204; sessions (and their refresh tokens) go.
    async fn logout(&self, caller: &Caller, scope: &str) -> Result<Response> {
        let scope = match scope {
            "" | "global" => "global",
            "local" => "local",
            "others" => "others",
            other => return Err(AuthError::bad("validation_failed", format!("Unsupported logout scope {other:?}"))),
        };
        let (user, session, _) = self.authenticated(caller).await?;
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        let fail = "Error logging out user";
        match (scope, &session) {
            ("local", Some(s)) => {
                exec(&tx, fail, "delete from auth.sessions where id = ($1::text)::uuid", &[s]).await?;
            }
            ("others", Some(s)) => {
                exec(
                    &tx,
                    fail,
                    "delete from auth.sessions where id <> ($1::text)::uuid and user_id = ($2::text)::uuid",
                    &[s, &user.id],
                )
                .await?;
            }
            _ => {
                exec(&tx, fail, "delete from auth.sessions where user_id = ($1::text)::uuid", &[&user.id]).await?;
            }
        }
        tx.commit().await.map_err(|e| AuthError::db(fail, e))?;
        Ok(Response { status: 204, headers: Vec::new(), body: Vec::new() })
    }

    // --- admin -------------------------------------------------------------------------

    async fn admin_load(&self, id: &str) -> Result<User> {
        if !is_uuid(id) {
            return Err(AuthError::new(404, "validation_failed", "user_id must be an UUID"));
        }
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        user_by_id(&tx, id).await?.ok_or_else(|| AuthError::new(404, "user_not_found", "User not found"))
    }

    /// GET /admin/users?page=&per_page= (newest first, as GoTrue's default sort).
    async fn admin_list(&self, pairs: &[(String, String)]) -> Result<Response> {
        let num =
            |k: &str, d: i64| pairs.iter().find(|(n, _)| n == k).and_then(|(_, v)| v.parse::<i64>().ok()).unwrap_or(d);
        let (page, per_page) = (num("page", 1).max(1), num("per_page", 50).clamp(1, 1000));
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        let sql = format!("{} where u.aud = $1 order by u.created_at desc, u.id limit $2 offset $3", *USER_SELECT);
        let rows = tx
            .query(&sql, &[&AUD, &per_page, &((page - 1) * per_page)])
            .await
            .map_err(|e| AuthError::db("Database error finding users", e))?;
        let users: Vec<Value> = rows.iter().map(|r| User::from_row(r).json).collect();
        Ok(ok_json(200, &json!({"users": users, "aud": AUD})))
    }

    /// POST /admin/users (`adminUserCreate`).
    async fn admin_create(&self, req: &Request<'_>) -> Result<Response> {
        let p = Params::parse(req.body)?;
        let mut email = p.str("email")?;
        let phone = p.str("phone")?;
        if email.is_empty() && phone.is_empty() {
            return Err(AuthError::bad("validation_failed", "Cannot create a user without either an email or phone"));
        }
        let mut providers = Vec::new();
        if !email.is_empty() {
            email = validate_email(&email)?;
            providers.push("email");
        }
        if !phone.is_empty() {
            providers.push("phone");
        }
        let ban = ban_duration(&p)?;
        let password =
            p.opt_str("password")?.filter(|p| !p.is_empty()).unwrap_or_else(|| random_token() + &random_token());
        let id = p.str("id")?;
        if !id.is_empty() && !is_uuid(&id) {
            return Err(AuthError::bad("validation_failed", "ID must conform to the uuid v4 format"));
        }
        if id == NIL_UUID {
            return Err(AuthError::bad("validation_failed", "ID cannot be a nil uuid"));
        }
        let role = Some(p.str("role")?).filter(|r| !r.is_empty()).unwrap_or_else(|| AUD.to_owned());
        let user_metadata = p.object("user_metadata")?.unwrap_or_default();
        let mut app =
            Map::from_iter([("provider".to_owned(), json!(providers[0])), ("providers".to_owned(), json!(providers))]);
        if let Some(extra) = p.object("app_metadata")? {
            app = merge(&Value::Object(app), &extra).as_object().cloned().unwrap_or_default();
        }
        let mut user_metadata = Value::Object(user_metadata);
        let email_confirm = p.bool("email_confirm");
        if email_confirm {
            user_metadata = merge(&user_metadata, &Map::from_iter([("email_verified".to_owned(), json!(true))]));
        }
        let hash = hash_password(password, self.config.bcrypt_cost).await?;
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        if !email.is_empty() {
            email_free(&tx, &email, None).await?;
        }
        let phone_digits: String = phone.chars().filter(char::is_ascii_digit).collect();
        if !phone.is_empty() && user_where(&tx, "u.phone = $1", &[&phone_digits]).await?.is_some() {
            return Err(AuthError::new(422, "phone_exists", "Phone number already registered by another user"));
        }
        let email_opt = Some(email.clone()).filter(|e| !e.is_empty());
        let phone_opt = Some(phone_digits).filter(|p| !p.is_empty());
        let id_opt = Some(id).filter(|i| !i.is_empty());
        let new_id: String = tx
            .query_one(
                "with u as (
                   insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password,
                                           email_confirmed_at, phone_confirmed_at, raw_app_meta_data, raw_user_meta_data,
                                           created_at, updated_at, confirmation_token, recovery_token,
                                           email_change_token_new, email_change, is_anonymous, banned_until)
                   values ('00000000-0000-0000-0000-000000000000', coalesce(($1::text)::uuid, gen_random_uuid()), $2, $3,
                           $4, $5, $6, case when $7 then now() end, case when $8 then now() end, $9, $10, now(), now(),
                           '', '', '', '', false, case when $11::float8 > 0 then now() + make_interval(secs => $11) end)
                   returning id, email, phone),
                 ie as (insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
                        select u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'email', u.email,
                                                                    'email_verified', $7, 'phone_verified', false),
                               'email', now(), now() from u where u.email is not null),
                 ip as (insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
                        select u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'phone', u.phone,
                                                                    'email_verified', false, 'phone_verified', $8),
                               'phone', now(), now() from u where u.phone is not null)
                 select id::text from u",
                &[
                    &id_opt,
                    &AUD,
                    &role,
                    &email_opt,
                    &phone_opt,
                    &hash,
                    &email_confirm,
                    &p.bool("phone_confirm"),
                    &Value::Object(app),
                    &user_metadata,
                    &ban.unwrap_or(0.0),
                ],
            )
            .await
            .map_err(|e| match e.as_db_error().map(|d| d.code().code()) {
                Some("23505") => email_exists(),
                _ => AuthError::db("Database error creating new user", e),
            })?
            .get(0);
        let user =
            user_by_id(&tx, &new_id).await?.ok_or_else(|| AuthError::db("Database error creating new user", "gone"))?;
        tx.commit().await.map_err(|e| AuthError::db("Database error creating new user", e))?;
        Ok(ok_json(200, &user.json))
    }

    /// PUT /admin/users/{id} (`adminUserUpdate`): ban_duration ("none" lifts a ban),
    /// password, email (set directly), email_confirm, role, user and app metadata.
    async fn admin_update(&self, req: &Request<'_>, id: &str) -> Result<Response> {
        let user = self.admin_load(id).await?;
        let p = Params::parse(req.body)?;
        let mut email = p.str("email")?;
        if !email.is_empty() {
            email = validate_email(&email)?;
        }
        let ban = ban_duration(&p)?;
        let hash = match p.opt_str("password")? {
            Some(pw) => {
                check_password(&pw)?;
                Some(hash_password(pw, self.config.bcrypt_cost).await?)
            }
            None => None,
        };
        let email_confirm = p.bool("email_confirm");
        let role = p.str("role")?;
        let mut user_metadata = user.user_metadata.clone();
        if email_confirm {
            user_metadata = merge(&user_metadata, &Map::from_iter([("email_verified".to_owned(), json!(true))]));
        }
        if let Some(d) = p.object("user_metadata")? {
            user_metadata = merge(&user_metadata, &d);
        }
        let app = match p.object("app_metadata")? {
            Some(d) => merge(&user.app_metadata, &d),
            None => user.app_metadata.clone(),
        };
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        let fail = "Error updating user";
        let email_opt = Some(email).filter(|e| !e.is_empty());
        exec(
            &tx,
            fail,
            "update auth.users set
                role = coalesce(nullif($2, ''), role),
                email_confirmed_at = case when $3 then now() else email_confirmed_at end,
                encrypted_password = coalesce($4, encrypted_password),
                email = coalesce($5, email),
                is_anonymous = case when $5 is not null and $3 then false else is_anonymous end,
                raw_user_meta_data = $6, raw_app_meta_data = $7,
                banned_until = case when $8::float8 is null then banned_until
                                    when $8::float8 = 0 then null
                                    else now() + make_interval(secs => $8::float8) end,
                updated_at = now()
              where id = ($1::text)::uuid",
            &[&user.id, &role, &email_confirm, &hash, &email_opt, &user_metadata, &app, &ban],
        )
        .await?;
        if let Some(e) = &email_opt {
            exec(
                &tx,
                fail,
                "insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
                 values ($1, ($1::text)::uuid, jsonb_build_object('sub', $1::text, 'email', $2::text, 'email_verified', $3,
                                                                  'phone_verified', false), 'email', now(), now())
                 on conflict (provider_id, provider) do update
                   set identity_data = auth.identities.identity_data || jsonb_build_object('email', $2::text, 'email_verified', $3),
                       updated_at = now()",
                &[&user.id, e, &email_confirm],
            )
            .await?;
        }
        let fresh = user_by_id(&tx, &user.id).await?.ok_or_else(|| AuthError::db(fail, "gone"))?;
        tx.commit().await.map_err(|e| AuthError::db(fail, e))?;
        Ok(ok_json(200, &fresh.json))
    }

    /// DELETE /admin/users/{id}: the row goes (its sessions, identities and refresh tokens
    /// with it), or with `{"should_soft_delete": true}` it stays, deleted_at set, email and
    /// phone obfuscated, password and metadata cleared, every session gone.
    async fn admin_delete(&self, req: &Request<'_>, id: &str) -> Result<Response> {
        let user = self.admin_load(id).await?;
        let soft = if req.body.iter().all(u8::is_ascii_whitespace) {
            false
        } else {
            Params::parse(req.body)?.bool("should_soft_delete")
        };
        let mut conn = self.conn().await?;
        let client = conn.client.as_mut().expect("held");
        let tx = client.transaction().await.map_err(|e| AuthError::db("Database error", e))?;
        if soft {
            // obfuscateValue: base64url(sha256(id || value)), unpadded.
            exec(
                &tx,
                "Error soft deleting user",
                "with obf as (select id,
                     case when email is null then null
                          else rtrim(translate(encode(sha256(convert_to(id::text || email, 'UTF8')), 'base64'), '+/', '-_'), '=') end as e,
                     case when phone is null then null
                          else rtrim(translate(encode(sha256(convert_to(id::text || phone, 'UTF8')), 'base64'), '+/', '-_'), '=') end as p
                     from auth.users where id = ($1::text)::uuid and deleted_at is null)
                 update auth.users u set email = obf.e, phone = obf.p, encrypted_password = null,
                        email_change = '', phone_change = '', confirmation_token = '', recovery_token = '',
                        email_change_token_current = '', email_change_token_new = '', phone_change_token = '',
                        deleted_at = now(), raw_user_meta_data = '{}', raw_app_meta_data = '{}', updated_at = now()
                   from obf where u.id = obf.id",
                &[&user.id],
            )
            .await?;
            exec(
                &tx,
                "Error soft deleting user identities",
                "update auth.identities set identity_data = '{}',
                        provider_id = rtrim(translate(encode(sha256(convert_to(provider || provider_id, 'UTF8')), 'base64'), '+/', '-_'), '=')
                  where user_id = ($1::text)::uuid",
                &[&user.id],
            )
            .await?;
            exec(
                &tx,
                "Error deleting user's sessions",
                "delete from auth.sessions where user_id = ($1::text)::uuid",
                &[&user.id],
            )
            .await?;
        } else {
            exec(
                &tx,
                "Database error deleting user",
                "delete from auth.users where id = ($1::text)::uuid",
                &[&user.id],
            )
            .await?;
        }
        tx.commit().await.map_err(|e| AuthError::db("Database error deleting user", e))?;
        Ok(ok_json(200, &json!({})))
    }
}

const NIL_UUID: &str = "00000000-0000-0000-0000-000000000000";

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter()
            .enumerate()
            .all(|(i, c)| if [8, 13, 18, 23].contains(&i) { *c == b'-' } else { c.is_ascii_hexdigit() })
}

/// `ban_duration`: a Go duration, or "none" (0: the ban is lifted); None when absent.
fn ban_duration(p: &Params) -> Result<Option<f64>> {
    let raw = p.str("ban_duration")?;
    if raw.is_empty() {
        return Ok(None);
    }
    if raw == "none" {
        return Ok(Some(0.0));
    }
    parse_go_duration(&raw)
        .map(Some)
        .map_err(|e| AuthError::bad("validation_failed", format!("invalid format for ban duration: {e}")))
}

/// GET /settings, as a local Supabase with email and anonymous sign-ins on and
/// confirmations off.
fn settings() -> Value {
    let mut external = Map::new();
    for p in [
        "anonymous_users",
        "apple",
        "azure",
        "bitbucket",
        "discord",
        "facebook",
        "snapchat",
        "figma",
        "fly",
        "github",
        "gitlab",
        "google",
        "keycloak",
        "kakao",
        "linkedin",
        "linkedin_oidc",
        "notion",
        "spotify",
        "slack",
        "slack_oidc",
        "workos",
        "twitch",
        "twitter",
        "email",
        "phone",
        "zoom",
    ] {
        external.insert(p.into(), json!(matches!(p, "anonymous_users" | "email")));
    }
    json!({
        "external": external,
        "disable_signup": false,
        "mailer_autoconfirm": true,
        "phone_autoconfirm": false,
        "sms_provider": "twilio",
        "saml_enabled": false,
        "saml_private_key_next_configured": false,
        "passkeys_enabled": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("24h"), Ok(86400.0));
        assert_eq!(parse_go_duration("1h30m"), Ok(5400.0));
        assert_eq!(parse_go_duration("1.5s"), Ok(1.5));
        assert_eq!(parse_go_duration("100ms"), Ok(0.1));
        assert_eq!(parse_go_duration("0"), Ok(0.0));
        assert_eq!(parse_go_duration("-2m"), Ok(-120.0));
        assert_eq!(parse_go_duration("10"), Err("time: missing unit in duration \"10\"".into()));
        assert_eq!(parse_go_duration("3d"), Err("time: unknown unit \"d\" in duration \"3d\"".into()));
        assert!(parse_go_duration("").is_err());
        assert!(parse_go_duration("h").is_err());
    }

    #[test]
    fn errors_in_both_api_versions() {
        let e = || AuthError::bad("invalid_credentials", INVALID_LOGIN);
        let body = |r: Response| serde_json::from_slice::<Value>(&r.body).unwrap();
        let old = e().render(false);
        assert_eq!(old.status, 400);
        assert_eq!(
            body(old),
            json!({"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
        );
        let new = e().render(true);
        assert!(new.headers.contains(&("x-sb-error-code".into(), "invalid_credentials".into())));
        assert_eq!(body(new), json!({"code": "invalid_credentials", "message": "Invalid login credentials"}));
        let weak = check_password("12345").unwrap_err().render(true);
        assert_eq!(weak.status, 422);
        assert_eq!(
            body(weak),
            json!({"code": "weak_password", "message": "Password should be at least 6 characters.", "weak_password": {"reasons": ["length"]}})
        );
    }

    #[test]
    fn metadata_merges_shallowly_and_null_deletes() {
        let base = json!({"a": 1, "b": {"x": 1}, "c": 3});
        let up = json!({"b": {"y": 2}, "c": null, "d": 4});
        assert_eq!(merge(&base, up.as_object().unwrap()), json!({"a": 1, "b": {"y": 2}, "d": 4}));
    }

    #[test]
    fn emails() {
        assert_eq!(validate_email("A@Example.COM").unwrap(), "a@example.com");
        for bad in ["", "plain", "@x.y", "a@", "a b@c.d", "a@.c"] {
            assert!(validate_email(bad).is_err(), "{bad}");
        }
    }
}
