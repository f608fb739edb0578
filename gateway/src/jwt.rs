//! HS256 JWTs: verification as PostgREST does it (signature, `exp`/`nbf`/`iat` with a small
//! clock skew, optional `aud`), and signing, for the anon/service keys and test tokens.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value};
use sha2::Sha256;

/// PostgREST allows 30 seconds of clock skew on time claims.
pub const CLOCK_SKEW_SECONDS: i64 = 30;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwtError {
    Empty,
    Parts(usize),
    Undecodable,
    Algorithm(String),
    Signature,
    Expired,
    NotYetValid,
    IssuedInFuture,
    Audience,
    ClaimsNotObject,
}

impl JwtError {
    /// PostgREST's texts (src/PostgREST/Error.hs, JwtError): PGRST301 for tokens that cannot
    /// be decoded or verified, PGRST303 for claims that fail validation.
    pub fn message(&self) -> String {
        match self {
            JwtError::Empty => "Empty JWT is sent in Authorization header".into(),
            JwtError::Parts(n) => format!("Expected 3 parts in JWT; got {n}"),
            JwtError::Undecodable => "JWT cryptographic operation failed".into(),
            JwtError::Algorithm(_) => "Wrong or unsupported encoding algorithm".into(),
            JwtError::Signature => "No suitable key or wrong key type".into(),
            JwtError::Expired => "JWT expired".into(),
            JwtError::NotYetValid => "JWT not yet valid".into(),
            JwtError::IssuedInFuture => "JWT issued at future".into(),
            JwtError::Audience => "JWT not in audience".into(),
            JwtError::ClaimsNotObject => "Parsing claims failed".into(),
        }
    }

    /// Error.hs: a key error carries jose's text as `details`.
    pub fn details(&self) -> Option<&'static str> {
        match self {
            JwtError::Signature => Some("None of the keys was able to decode the JWT"),
            _ => None,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            JwtError::Expired
            | JwtError::NotYetValid
            | JwtError::IssuedInFuture
            | JwtError::Audience
            | JwtError::ClaimsNotObject => "PGRST303",
            _ => "PGRST301",
        }
    }
}

fn mac(secret: &[u8]) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts keys of any length")
}

pub fn sign(claims: &Value, secret: &[u8]) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let signing_input = format!("{header}.{payload}");
    let mut m = mac(secret);
    m.update(signing_input.as_bytes());
    let sig = URL_SAFE_NO_PAD.encode(m.finalize().into_bytes());
    format!("{signing_input}.{sig}")
}

/// Verifies and returns the claims. `now` is seconds since the epoch.
pub fn verify(token: &str, secret: &[u8], audience: Option<&str>, now: i64) -> Result<Map<String, Value>, JwtError> {
    if token.is_empty() {
        return Err(JwtError::Empty);
    }
    let parts: Vec<&str> = token.split('.').collect();
    let [h, p, s] = parts[..] else {
        return Err(JwtError::Parts(parts.len()));
    };
    let header: Value =
        URL_SAFE_NO_PAD.decode(h).ok().and_then(|b| serde_json::from_slice(&b).ok()).ok_or(JwtError::Undecodable)?;
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or("none");
    if alg != "HS256" {
        return Err(JwtError::Algorithm(alg.to_owned()));
    }
    let sig = URL_SAFE_NO_PAD.decode(s).map_err(|_| JwtError::Signature)?;
    let mut m = mac(secret);
    m.update(h.as_bytes());
    m.update(b".");
    m.update(p.as_bytes());
    m.verify_slice(&sig).map_err(|_| JwtError::Signature)?;
    let claims: Value =
        URL_SAFE_NO_PAD.decode(p).ok().and_then(|b| serde_json::from_slice(&b).ok()).ok_or(JwtError::Undecodable)?;
    let Value::Object(claims) = claims else {
        return Err(JwtError::ClaimsNotObject);
    };
    let time = |k: &str| claims.get(k).and_then(Value::as_f64).map(|v| v as i64);
    if time("exp").is_some_and(|exp| now > exp + CLOCK_SKEW_SECONDS) {
        return Err(JwtError::Expired);
    }
    if time("nbf").is_some_and(|nbf| now + CLOCK_SKEW_SECONDS < nbf) {
        return Err(JwtError::NotYetValid);
    }
    if time("iat").is_some_and(|iat| now + CLOCK_SKEW_SECONDS < iat) {
        return Err(JwtError::IssuedInFuture);
    }
    if let Some(expected) = audience {
        let ok = match claims.get("aud") {
            None => true,
            Some(Value::String(a)) => a == expected,
            Some(Value::Array(list)) => list.iter().any(|a| a.as_str() == Some(expected)),
            Some(_) => false,
        };
        if !ok {
            return Err(JwtError::Audience);
        }
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SECRET: &[u8] = b"super-secret-jwt-token-with-at-least-32-characters-long";

    #[test]
    fn round_trip_and_tamper() {
        let t = sign(&json!({"sub": "u1", "role": "authenticated", "exp": 2000}), SECRET);
        let c = verify(&t, SECRET, None, 1000).unwrap();
        assert_eq!(c["role"], "authenticated");
        assert_eq!(verify(&t, b"other", None, 1000), Err(JwtError::Signature));
        let mut forged: Vec<&str> = t.split('.').collect();
        let payload = URL_SAFE_NO_PAD.encode(json!({"sub": "u1", "role": "service_role", "exp": 2000}).to_string());
        forged[1] = &payload;
        assert_eq!(verify(&forged.join("."), SECRET, None, 1000), Err(JwtError::Signature));
    }

    #[test]
    fn time_claims_with_skew() {
        let t = sign(&json!({"exp": 1000}), SECRET);
        assert!(verify(&t, SECRET, None, 1000 + CLOCK_SKEW_SECONDS).is_ok());
        assert_eq!(verify(&t, SECRET, None, 1001 + CLOCK_SKEW_SECONDS), Err(JwtError::Expired));
        let t = sign(&json!({"nbf": 5000}), SECRET);
        assert_eq!(verify(&t, SECRET, None, 1000), Err(JwtError::NotYetValid));
    }

    #[test]
    fn malformed_and_algorithms() {
        assert_eq!(verify("abc", SECRET, None, 0), Err(JwtError::Parts(1)));
        assert_eq!(verify("a.b.c.d", SECRET, None, 0), Err(JwtError::Parts(4)));
        assert_eq!(verify("", SECRET, None, 0), Err(JwtError::Empty));
        assert_eq!(verify("a.b.c", SECRET, None, 0), Err(JwtError::Undecodable));
        let none = format!("{}.{}.", URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#), URL_SAFE_NO_PAD.encode("{}"));
        assert_eq!(verify(&none, SECRET, None, 0), Err(JwtError::Algorithm("none".into())));
    }

    #[test]
    fn audience() {
        let t = sign(&json!({"aud": "authenticated"}), SECRET);
        assert!(verify(&t, SECRET, Some("authenticated"), 0).is_ok());
        assert_eq!(verify(&t, SECRET, Some("other"), 0), Err(JwtError::Audience));
    }
}
