//! agentmem-gateway: a PostgREST-compatible HTTP server over a real Postgres, standing in
//! for Supabase's API in agentmem's tests. See gateway/README.md for what it implements
//! and where each behaviour was checked against PostgREST.

// Errors are the cold path of a test server; boxing every ApiError buys nothing here.
#![allow(clippy::result_large_err)]

mod app;
mod auth;
mod cors;
mod error;
mod faults;
mod fuzzy;
mod grammar;
mod jwt;
mod media;
mod plan;
mod pool;
mod prefer;
mod query;
mod quote;
mod read;
mod schema;
mod shape;
mod sql;
mod statements;
mod tolerant;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use app::{App, Config, Request};
use faults::{FaultRule, Faults};
use shape::Response;

struct Server {
    app: App,
    /// The local Supabase Auth under /auth/v1 (with --auth-db-url).
    auth: Option<auth::Auth>,
    faults: Mutex<Faults>,
    requests: Mutex<Vec<(String, String)>>,
    admin: bool,
    db_url: String,
}

#[derive(Debug)]
struct Dropped;
impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by fault injection")
    }
}
impl std::error::Error for Dropped {}

fn arg(args: &[String], name: &str, env: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var(env).ok().filter(|v| !v.is_empty()))
}

fn usage() -> ! {
    eprintln!(
        "usage:\n  agentmem-gateway serve --db-url URL --jwt-secret SECRET [--listen 127.0.0.1:54321] [--schema public]\n\
         \t[--extra-search-path extensions] [--anon-role anon] [--max-rows 1000] [--anon-key JWT] [--service-key JWT]\n\
         \t[--publishable-key sb_publishable_…] [--secret-key sb_secret_…] [--faults JSON] [--admin]\n\
         \t[--db-tx-end commit|commit-allow-override|rollback|rollback-allow-override]\n\
         \t[--auth-db-url URL (serves /auth/v1)] [--auth-jwt-exp 3600] [--auth-refresh-reuse-interval 10]\n\
         \t[--auth-issuer URL] [--auth-bcrypt-cost 10]\n\
         \x20 agentmem-gateway mint --jwt-secret SECRET [--role authenticated] [--sub UUID] [--expires-in SECONDS] [--claims JSON]"
    );
    std::process::exit(2)
}

fn mint(args: &[String]) {
    let secret = arg(args, "--jwt-secret", "PGRST_JWT_SECRET").unwrap_or_else(|| usage());
    let mut claims: serde_json::Map<String, Value> = arg(args, "--claims", "")
        .map(|c| serde_json::from_str(&c).expect("--claims must be a JSON object"))
        .unwrap_or_default();
    let role = arg(args, "--role", "").unwrap_or_else(|| "authenticated".into());
    claims.insert("role".into(), json!(role));
    if let Some(sub) = arg(args, "--sub", "") {
        claims.insert("sub".into(), json!(sub));
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let expires_in: i64 =
        arg(args, "--expires-in", "").map_or(3600, |s| s.parse().expect("--expires-in must be seconds"));
    claims.entry("exp").or_insert(json!(now + expires_in));
    claims.entry("iat").or_insert(json!(now));
    if role == "authenticated" {
        claims.entry("aud").or_insert(json!("authenticated"));
    }
    println!("{}", jwt::sign(&Value::Object(claims), secret.as_bytes()));
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("mint") => return mint(&args),
        Some("serve") => {}
        _ => usage(),
    }
    let db_url = arg(&args, "--db-url", "PGRST_DB_URI").unwrap_or_else(|| usage());
    let secret = arg(&args, "--jwt-secret", "PGRST_JWT_SECRET").unwrap_or_else(|| usage());
    let listen: SocketAddr = arg(&args, "--listen", "AGENTMEM_GATEWAY_LISTEN")
        .unwrap_or_else(|| "127.0.0.1:54321".into())
        .parse()
        .expect("--listen");
    // Supabase's well-known local keys: long-lived HS256 JWTs for anon and service_role.
    let key =
        |role: &str| jwt::sign(&json!({"iss": "supabase-demo", "role": role, "exp": 1983812996}), secret.as_bytes());
    let anon_key = arg(&args, "--anon-key", "").unwrap_or_else(|| key("anon"));
    let service_key = arg(&args, "--service-key", "").unwrap_or_else(|| key("service_role"));
    let mut api_keys = vec![(anon_key.clone(), "anon".to_owned()), (service_key.clone(), "service_role".to_owned())];
    let publishable = arg(&args, "--publishable-key", "");
    let secret_key = arg(&args, "--secret-key", "");
    if let Some(k) = &publishable {
        api_keys.push((k.clone(), "anon".into()));
    }
    if let Some(k) = &secret_key {
        api_keys.push((k.clone(), "service_role".into()));
    }
    // PostgREST's `db-tx-end` (default `commit`: `Prefer: tx=…` is ignored).
    let tx_end = arg(&args, "--db-tx-end", "PGRST_DB_TX_END").unwrap_or_else(|| "commit".into());
    if !["commit", "commit-allow-override", "rollback", "rollback-allow-override"].contains(&tx_end.as_str()) {
        usage();
    }
    let config = Config {
        schema: arg(&args, "--schema", "").unwrap_or_else(|| "public".into()),
        extra_search_path: arg(&args, "--extra-search-path", "")
            .unwrap_or_else(|| "extensions".into())
            .split(',')
            .map(str::to_owned)
            .collect(),
        jwt_secret: secret.into_bytes(),
        jwt_aud: arg(&args, "--jwt-aud", ""),
        anon_role: arg(&args, "--anon-role", "").unwrap_or_else(|| "anon".into()),
        max_rows: Some(arg(&args, "--max-rows", "").map_or(1000, |m| m.parse().expect("--max-rows")))
            .filter(|m| *m > 0),
        api_keys,
        tx_allow_override: tx_end.ends_with("-allow-override"),
        tx_rollback_all: tx_end.starts_with("rollback"),
    };
    let mut faults = Faults::default();
    if let Some(f) = arg(&args, "--faults", "AGENTMEM_GATEWAY_FAULTS") {
        faults.set(serde_json::from_str::<Vec<FaultRule>>(&f).expect("--faults must be a JSON array of rules"));
    }
    let listener = TcpListener::bind(listen).await.expect("bind");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let number = |flag: &str, default: i64| -> i64 {
        arg(&args, flag, "").map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{flag} must be an integer")))
    };
    let auth = arg(&args, "--auth-db-url", "AGENTMEM_AUTH_DB_URL").map(|auth_db_url| {
        auth::Auth::new(auth::AuthConfig {
            db_url: auth_db_url,
            jwt_secret: config.jwt_secret.clone(),
            jwt_exp: number("--auth-jwt-exp", 3600),
            issuer: arg(&args, "--auth-issuer", "").unwrap_or_else(|| format!("{url}/auth/v1")),
            reuse_interval: number("--auth-refresh-reuse-interval", 10),
            api_keys: config.api_keys.clone(),
            bcrypt_cost: number("--auth-bcrypt-cost", 10) as u32,
        })
    });
    let server = Arc::new(Server {
        app: App { config, schema: RwLock::new(Arc::default()), pool: pool::Pool::new(db_url.clone(), 10) },
        auth,
        faults: Mutex::new(faults),
        requests: Mutex::new(Vec::new()),
        admin: args.iter().any(|a| a == "--admin"),
        db_url,
    });
    if let Err(e) = server.reload_schema().await {
        eprintln!("agentmem-gateway: cannot load the schema cache: {e}");
        std::process::exit(1);
    }
    tokio::spawn(listen_for_reload(server.clone()));
    println!(
        "{}",
        json!({"url": url, "anon_key": anon_key, "service_key": service_key,
               "publishable_key": publishable, "secret_key": secret_key})
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        // A response goes out as soon as it is written, as PostgREST's server sends it: with
        // Nagle's algorithm a write after an unacknowledged one waits for the client's
        // delayed ACK (up to 40 ms on Linux).
        let _ = stream.set_nodelay(true);
        let server = server.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let server = server.clone();
                async move { server.serve(req).await }
            });
            let _ = http1::Builder::new().serve_connection(TokioIo::new(tolerant::Tolerant::new(stream)), svc).await;
        });
    }
}

/// `NOTIFY pgrst, 'reload schema'` (PostgREST's channel and payload) refreshes the cache.
async fn listen_for_reload(server: Arc<Server>) {
    loop {
        if let Ok((client, mut connection)) = tokio_postgres::connect(&server.db_url, tokio_postgres::NoTls).await {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let pump = tokio::spawn(async move {
                let mut stream = std::pin::pin!(futures_stream(&mut connection));
                while let Some(msg) = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
                    if tx.send(msg).is_err() {
                        break;
                    }
                }
            });
            if client.batch_execute("LISTEN pgrst").await.is_ok() {
                while let Some(msg) = rx.recv().await {
                    if let tokio_postgres::AsyncMessage::Notification(n) = msg
                        && matches!(n.payload(), "" | "reload schema")
                    {
                        let _ = server.reload_schema().await;
                    }
                }
            }
            pump.abort();
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// Adapts `Connection::poll_message` to something pollable in a loop.
fn futures_stream<S, T>(conn: &mut tokio_postgres::Connection<S, T>) -> ConnStream<'_, S, T>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    ConnStream(conn)
}

struct ConnStream<'a, S, T>(&'a mut tokio_postgres::Connection<S, T>);

impl<S, T> ConnStream<'_, S, T>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<tokio_postgres::AsyncMessage>> {
        match self.get_mut().0.poll_message(cx) {
            std::task::Poll::Ready(Some(Ok(m))) => std::task::Poll::Ready(Some(m)),
            std::task::Poll::Ready(_) => std::task::Poll::Ready(None),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl Server {
    async fn reload_schema(&self) -> Result<(), String> {
        let schema_name = self.app.config.schema.clone();
        let text = self
            .app
            .pool
            .query_text(&schema::introspection_sql(&schema_name))
            .await
            .map_err(|e| match e {
                pool::DbFailure::Db(db) => db.message().to_owned(),
                pool::DbFailure::Connection(c) => c,
            })?
            .ok_or("introspection returned nothing")?;
        let cache = schema::SchemaCache::from_json(&schema_name, &text).map_err(|e| e.to_string())?;
        *self.app.schema.write().expect("schema lock") = Arc::new(cache);
        // Postgres re-plans a prepared statement whose objects changed, but a reload may
        // follow DDL that changes what it returns: prepare against the new schema.
        self.app.pool.forget_statements();
        Ok(())
    }

    async fn serve(self: Arc<Self>, req: hyper::Request<Incoming>) -> Result<hyper::Response<Full<Bytes>>, Dropped> {
        let method = req.method().as_str().to_owned();
        let path = req.uri().path().to_owned();
        let query = req.uri().query().unwrap_or("").to_owned();
        let headers: Vec<(String, String)> = req
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        let origin = headers.iter().find(|(k, _)| k == "origin").map(|(_, v)| v.clone());

        if let Some(admin_path) = path.strip_prefix("/__gateway/") {
            // No CORS on the admin routes, preflights included: a page a developer visits must
            // not be able to inject faults or read the request log.
            let request = Request { method: &method, path: &path, query: &query, headers: &headers, body: &body };
            return Ok(build(self.admin(&request, admin_path)));
        }
        if method == "OPTIONS" && origin.is_some() {
            return Ok(build(cors::preflight(&headers)));
        }
        let mut response = {
            self.requests.lock().expect("lock").push((method.clone(), path.clone()));
            let decision = self.faults.lock().expect("lock").decide(&method, &path);
            if decision.delay_ms > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(decision.delay_ms)).await;
            }
            if decision.drop_before {
                return Err(Dropped);
            }
            if let Some(status) = decision.status {
                let code = decision.code.as_deref().unwrap_or("PGRST000");
                let e = error::ApiError::pgrst(status, code, "Fault injected by agentmem-gateway");
                Response::error(&e)
            } else {
                let request = Request { method: &method, path: &path, query: &query, headers: &headers, body: &body };
                let r = match (path.strip_prefix("/auth/v1"), &self.auth) {
                    (Some(route), Some(auth)) if route.is_empty() || route.starts_with('/') => {
                        auth.handle(&request, route).await
                    }
                    // Supabase's API gateway when no service answers the route.
                    (Some(route), None) if route.is_empty() || route.starts_with('/') => Response {
                        status: 404,
                        headers: vec![("Content-Type".into(), "application/json; charset=utf-8".into())],
                        body: br#"{"message":"no Route matched with those values"}"#.to_vec(),
                    },
                    _ => self.app.handle(&request).await,
                };
                if decision.drop_after {
                    return Err(Dropped);
                }
                r
            }
        };
        if origin.is_some() && path.starts_with("/auth/v1") {
            cors::decorate_auth(&mut response);
        } else if origin.is_some() {
            cors::decorate(&mut response);
        }
        Ok(build(response))
    }

    fn admin(&self, req: &Request, path: &str) -> Response {
        let (method, body) = (req.method, req.body);
        let json_response = |status: u16, v: Value| Response {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: v.to_string().into_bytes(),
        };
        if !self.admin {
            return json_response(404, json!({"message": "admin endpoints are disabled; start with --admin"}));
        }
        if !self.app.is_service(req) {
            return json_response(
                401,
                json!({"message": "the admin endpoints need the service key: `apikey: <secret key>` or `Authorization: Bearer <service_role JWT>`"}),
            );
        }
        match (method, path) {
            ("PUT", "faults") => match serde_json::from_slice::<Vec<FaultRule>>(body) {
                Ok(rules) => {
                    let n = rules.len();
                    self.faults.lock().expect("lock").set(rules);
                    json_response(200, json!({"rules": n}))
                }
                Err(e) => json_response(400, json!({"message": e.to_string()})),
            },
            ("DELETE", "faults") => {
                self.faults.lock().expect("lock").set(Vec::new());
                json_response(200, json!({"rules": 0}))
            }
            ("GET", "requests") => {
                let list = self.requests.lock().expect("lock").clone();
                json_response(
                    200,
                    json!({"count": list.len(), "requests": list.iter().map(|(m, p)| json!({"method": m, "path": p})).collect::<Vec<_>>()}),
                )
            }
            ("DELETE", "requests") => {
                self.requests.lock().expect("lock").clear();
                json_response(200, json!({"count": 0}))
            }
            _ => json_response(404, json!({"message": "unknown admin endpoint"})),
        }
    }
}

fn build(r: Response) -> hyper::Response<Full<Bytes>> {
    let mut builder = hyper::Response::builder().status(r.status);
    for (k, v) in &r.headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    builder.body(Full::new(Bytes::from(r.body))).unwrap_or_else(|_| {
        hyper::Response::builder()
            .status(500)
            .body(Full::new(Bytes::from_static(b"bad response header")))
            .expect("static")
    })
}
