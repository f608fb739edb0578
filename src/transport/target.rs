//! Where requests go and with which credentials: the project URL, the API key and the
//! user's token, checked before anything is sent (a key that bypasses row-level security,
//! a header `fetch` would refuse), and the tenant (key space) they stand for.

use super::TransportError;

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
    /// The access token comes from a function, asked before each call: these credentials
    /// are the client's as made, without it, and its identity is known call by call only.
    pub token_from_function: bool,
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
                // A header value pasted whole ("Bearer eyJ…"): say what to drop.
                not_a_user(if t.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("bearer ")) {
                    "accessToken is the token alone: drop its \"Bearer \" prefix (agentmem sends the Authorization header itself)"
                } else {
                    "accessToken must be the signed-in user's JWT, a non-empty token without whitespace"
                })
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
            token_from_function: false,
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
                    format!(
                        "header name {} is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
                        crate::error::Quoted(name)
                    ),
                ));
            }
            if name.eq_ignore_ascii_case(ACTING_FOR_HEADER) {
                // Sent this way it would bypass actingFor's checks, and its refusal of table calls.
                return Err(TransportError::invalid(field, "x-agentmem-tenant is set by actingFor only"));
            }
            check_header_value(&field, value)?;
        }
        self.schema = schema;
        self.headers = headers;
        Ok(())
    }

    pub(super) fn base_headers(&self, method: &str) -> Vec<(String, String)> {
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
/// `/auth/v1`, ... Any other path (an edge function's own URL, often, or `…/api`) would
/// become part of a table name on the server ("Could not find the table
/// 'public.functions/v1/rest/v1/notes'", then reported as agentmem's SQL missing), so it is
/// refused here with the URL to use: the project's origin, or a REST URL ending in
/// `/rest/v1` (which a self-hosted stack may serve under a proxy prefix).
fn check_service_path(url: &str) -> Result<(), TransportError> {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let path = url[after_scheme..].find('/').map_or("", |i| &url[after_scheme + i..]);
    let services = ["/rest/v1/", "/functions/v1", "/auth/v1", "/storage/v1", "/realtime/v1", "/graphql/v1"];
    let Some(at) = services.iter().filter_map(|s| path.find(s)).min() else {
        if path.is_empty() || path.ends_with("/rest/v1") {
            return Ok(());
        }
        let origin = &url[..url.len() - path.len()];
        return Err(TransportError::invalid(
            "url",
            format!(
                "url must be the project URL ({origin}) or a REST URL ending in /rest/v1, not {url}: \
                 agentmem talks to PostgREST, which Supabase serves at /rest/v1 of the project URL"
            ),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target::new("https://abc.supabase.co/", "anon-key", None).unwrap()
    }

    // {"role":"service_role"} and {"sub":"0F0E0D0C-…-000000000001","role":"authenticated"}
    const SERVICE: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE5ODM4MTI5OTYsImlzcyI6InN1cGFiYXNlLWRlbW8iLCJyb2xlIjoic2VydmljZV9yb2xlIn0.sig";
    const USER: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwRjBFMEQwQy0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDEiLCJyb2xlIjoiYXV0aGVudGljYXRlZCJ9.sig";

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
    fn url_is_a_project_origin_or_a_rest_url() {
        for ok in ["https://x.co", "https://x.co/", "https://x.co/rest/v1", "http://127.0.0.1:54321/proxy/rest/v1/"] {
            assert!(Target::new(ok, "anon-key", None).is_ok(), "{ok}");
        }
        for (bad, shows) in [
            (
                "https://x.co/api",
                "url must be the project URL (https://x.co) or a REST URL ending in /rest/v1, not https://x.co/api",
            ),
            (
                "https://x.co/functions/v1",
                "url must be the project URL (https://x.co) or its REST URL (https://x.co/rest/v1)",
            ),
            ("https://x.co/rest/v1/notes", "url must be the project URL (https://x.co) or its REST URL"),
            ("https://x.co/rest", "a REST URL ending in /rest/v1"),
        ] {
            let e = Target::new(bad, "anon-key", None).unwrap_err().report();
            assert_eq!(e.field.as_deref(), Some("url"), "{bad}");
            assert!(e.message.contains(shows), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn an_access_token_that_is_no_user_is_unauthorized_with_the_fix() {
        for (token, shows) in [
            (format!("Bearer {USER}"), "drop its \"Bearer \" prefix"),
            (format!("bearer {USER}"), "drop its \"Bearer \" prefix"),
            (format!("{USER} "), "a non-empty token without whitespace"),
            ("not-a-jwt".to_owned(), "is not a JWT"),
            ("sb_publishable_x".to_owned(), "not an API key"),
        ] {
            let e = Target::new("https://x.co", "anon-key", Some(&token)).unwrap_err().report();
            assert_eq!(
                (e.code, e.field.as_deref()),
                (crate::error::ErrorCode::Unauthorized, Some("accessToken")),
                "{token}"
            );
            assert!(e.message.contains(shows), "{token}: {}", e.message);
            assert!(!e.message.contains(USER), "the token is never echoed: {}", e.message);
        }
    }

    #[test]
    fn only_the_service_role_acts_for_a_user() {
        let id = "0f0e0d0c-0000-4000-8000-00000000000a";
        let mut user = Target::new("https://x.co", "anon-key", Some(USER)).unwrap();
        assert_eq!(user.act_for(id).unwrap_err().report().field.as_deref(), Some("actingFor"));
        let mut anon = target();
        assert_eq!(anon.act_for(id).unwrap_err().report().field.as_deref(), Some("actingFor"));
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
        assert_eq!(
            field(None, &[("X-Agentmem-Tenant", "0f0e0d0c-0000-4000-8000-00000000000a")]),
            Some("headers.X-Agentmem-Tenant".into())
        );
        assert_eq!(field(Some("api"), &[("X-Trace", "caf\u{e9} 1")]), None);
    }
}
