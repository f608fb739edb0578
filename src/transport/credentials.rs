//! RLS helpers: what a key or token stands for, decoded (never verified: only the server
//! can verify), and the rule that privileged keys never run in a browser.

use serde_json::{Map, Value};

use super::TransportError;

/// The parts of a JWT's claims that decide what Postgres will let the caller do.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenInfo {
    /// `anon`, `authenticated`, `service_role`, ... (what PostgREST will `SET ROLE` to).
    pub role: Option<String>,
    /// The user id (`auth.uid()`).
    pub sub: Option<String>,
    /// Expiry, seconds since the epoch.
    pub exp: Option<i64>,
    /// `jwt` for JWTs; `publishable` / `secret` for Supabase's opaque `sb_` keys.
    pub kind: &'static str,
}

/// Claims of a JWT, without checking its signature.
pub fn decode_claims(field: &str, token: &str) -> Result<Map<String, Value>, TransportError> {
    let bad = || TransportError::invalid(field, format!("{field} is not a JWT (expected header.payload.signature)"));
    let mut parts = token.split('.');
    let (Some(_), Some(payload), Some(_), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    let bytes = crate::base64::decode_url(payload).ok_or_else(bad)?;
    // Text first: the JSON reader takes a str.
    match std::str::from_utf8(&bytes).ok().and_then(|text| crate::json::parse(text).ok()) {
        Some(Value::Object(claims)) => Ok(claims),
        _ => Err(bad()),
    }
}

/// What a key or token stands for.
pub fn inspect(field: &str, token: &str) -> Result<TokenInfo, TransportError> {
    if token.starts_with("sb_secret_") {
        return Ok(TokenInfo { role: Some("service_role".into()), sub: None, exp: None, kind: "secret" });
    }
    if token.starts_with("sb_publishable_") {
        return Ok(TokenInfo { role: Some("anon".into()), sub: None, exp: None, kind: "publishable" });
    }
    let claims = decode_claims(field, token)?;
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_owned);
    Ok(TokenInfo {
        role: text("role"),
        sub: text("sub"),
        exp: claims.get("exp").and_then(crate::number::of).map(|e| e as i64),
        kind: "jwt",
    })
}

/// Keys that bypass row-level security.
fn privileged(field: &str, token: &str) -> bool {
    inspect(field, token).is_ok_and(|i| i.role.as_deref() == Some("service_role"))
}

/// Refuses a service-role key or token where a browser could leak it, unless the caller
/// opted in with the loudly named override.
pub fn check_browser_use(
    api_key: &str,
    access_token: Option<&str>,
    in_browser: bool,
    allowed: bool,
) -> Result<(), TransportError> {
    if !in_browser || allowed {
        return Ok(());
    }
    for (field, token) in [("apiKey", Some(api_key)), ("accessToken", access_token)] {
        if let Some(t) = token
            && privileged(field, t)
        {
            return Err(TransportError::invalid(
                field,
                format!(
                    "{field} is a service_role / secret key, which bypasses row-level security; it must never ship to a browser. \
                     Use the anon or publishable key with the user's access token, or pass dangerouslyAllowSecretKeyInBrowser: true \
                     if this really is a trusted environment"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // {"alg":"HS256","typ":"JWT"} . {"role":"service_role","iss":"supabase-demo","exp":1983812996}
    const SERVICE: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE5ODM4MTI5OTYsImlzcyI6InN1cGFiYXNlLWRlbW8iLCJyb2xlIjoic2VydmljZV9yb2xlIn0.sig";
    const ANON: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE5ODM4MTI5OTYsImlzcyI6InN1cGFiYXNlLWRlbW8iLCJyb2xlIjoiYW5vbiJ9.sig";

    #[test]
    fn inspects_jwts_and_opaque_keys() {
        assert_eq!(
            inspect("k", SERVICE).unwrap(),
            TokenInfo { role: Some("service_role".into()), sub: None, exp: Some(1983812996), kind: "jwt" }
        );
        assert_eq!(inspect("k", ANON).unwrap().role.as_deref(), Some("anon"));
        assert_eq!(inspect("k", "sb_secret_abc").unwrap().role.as_deref(), Some("service_role"));
        assert_eq!(inspect("k", "sb_publishable_abc").unwrap().kind, "publishable");
        for bad in ["nope", "a.b", "a.!!!.c", "a.b.c.d", "e30.bnVsbA.x"] {
            assert!(inspect("k", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn privileged_keys_are_refused_in_browsers_only() {
        assert!(check_browser_use(SERVICE, None, false, false).is_ok());
        assert!(check_browser_use(ANON, None, true, false).is_ok());
        assert!(check_browser_use("sb_publishable_x", Some(ANON), true, false).is_ok());
        let e = check_browser_use(SERVICE, None, true, false).unwrap_err();
        assert_eq!(e.report().field.as_deref(), Some("apiKey"));
        assert!(!e.report().message.contains(SERVICE));
        assert!(check_browser_use("sb_secret_x", None, true, false).is_err());
        assert_eq!(
            check_browser_use(ANON, Some(SERVICE), true, false).unwrap_err().report().field.as_deref(),
            Some("accessToken")
        );
        assert!(check_browser_use(SERVICE, None, true, true).is_ok());
    }
}
