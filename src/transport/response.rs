//! Decoding PostgREST responses: bodies, `Content-Range` counts, and every error shape
//! (PostgREST's `{code, message, details, hint}`, Supabase gateway errors without `code`,
//! and non-JSON bodies from proxies) mapped onto agentmem's error codes.

use serde_json::Value;

use super::request::{Expect, HttpRequest};
use crate::error::{ErrorCode, ErrorReport};

/// What `fetch` gave back.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    /// Only the headers agentmem reads: `content-range`, `content-type`.
    pub content_range: Option<String>,
    pub body: String,
}

/// A successful response.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub status: u16,
    /// The JSON body (`None` for an empty one, e.g. 201/204 with `return=minimal`).
    pub body: Option<String>,
    /// The total from `Content-Range: a-b/total` when a count was requested.
    pub count: Option<u64>,
}

impl Decoded {
    pub fn json(&self) -> Result<Value, ErrorReport> {
        match &self.body {
            None => Ok(Value::Null),
            Some(b) => crate::json::parse(b)
                .map_err(|e| ErrorReport::new(ErrorCode::Server, format!("the server sent invalid JSON: {e}"))),
        }
    }
}

/// `0-24/3573458` → 3573458; `*/0` → 0; `*/*` or junk → None.
pub fn parse_count(content_range: &str) -> Option<u64> {
    content_range.rsplit_once('/')?.1.trim().parse().ok()
}

pub fn decode(req: &HttpRequest, resp: &HttpResponse) -> Result<Decoded, ErrorReport> {
    if !(200..300).contains(&resp.status) {
        return Err(error_from(resp));
    }
    let count = resp.content_range.as_deref().and_then(parse_count);
    let trimmed = resp.body.trim();
    let body = (!trimmed.is_empty()).then(|| resp.body.clone());
    let decoded = Decoded { status: resp.status, body, count };
    if req.expect == Expect::MaybeSingle {
        return maybe_single(decoded);
    }
    Ok(decoded)
}

/// Zero rows → `null`, one → that row, more → a `conflict` error.
fn maybe_single(d: Decoded) -> Result<Decoded, ErrorReport> {
    let rows = match d.json()? {
        Value::Array(rows) => rows,
        other => return Ok(Decoded { body: Some(crate::json::text(&other)), ..d }),
    };
    match rows.len() {
        0 => Ok(Decoded { body: Some("null".into()), ..d }),
        1 => Ok(Decoded { body: Some(crate::json::text(&rows[0])), ..d }),
        n => Err(ErrorReport {
            details: Some(format!("The result contains {n} rows")),
            ..ErrorReport::new(ErrorCode::Conflict, "expected at most one row, got several")
        }),
    }
}

fn field(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(crate::json::text(other)),
    }
}

/// Maps an error response to an `ErrorReport`. The code depends on the HTTP status first
/// (it already encodes PostgREST's SQLSTATE table), refined by the PostgREST/Postgres code.
pub fn error_from(resp: &HttpResponse) -> ErrorReport {
    let parsed: Option<Value> = crate::json::parse(&resp.body).ok().filter(Value::is_object);
    let (pgrst_code, message, details, hint) = match &parsed {
        Some(v) => {
            (field(v, "code"), field(v, "message").or_else(|| field(v, "msg")), field(v, "details"), field(v, "hint"))
        }
        None => (None, None, None, None),
    };
    let code = classify(resp.status, pgrst_code.as_deref(), details.as_deref());
    let message = message.unwrap_or_else(|| {
        let snippet: String = resp.body.chars().take(200).collect();
        if snippet.trim().is_empty() {
            format!("HTTP {} with an empty body", resp.status)
        } else {
            format!("HTTP {}: {snippet}", resp.status)
        }
    });
    ErrorReport { status: Some(resp.status), pgrst_code, details, hint, ..ErrorReport::new(code, message) }
}

fn classify(status: u16, pgrst: Option<&str>, details: Option<&str>) -> ErrorCode {
    match (status, pgrst) {
        // Singular response: none (not found) or several (the caller assumed uniqueness).
        (406, Some("PGRST116")) => {
            if details.is_some_and(|d| d.contains(" 0 rows")) {
                ErrorCode::NotFound
            } else {
                ErrorCode::Conflict
            }
        }
        (401, _) => ErrorCode::Unauthorized,
        (403, _) => ErrorCode::Forbidden,
        (404, _) => ErrorCode::NotFound,
        (408 | 504, _) => ErrorCode::Timeout,
        (409, _) => ErrorCode::Conflict,
        (s, _) if s >= 500 => ErrorCode::Server,
        _ => ErrorCode::InvalidInput,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::options::ReadOptions;
    use crate::transport::request::select;
    use crate::transport::target::Target;

    fn req(expect: Expect) -> HttpRequest {
        let mut r = select(&Target::new("https://x", "k", None).unwrap(), "t", &ReadOptions::default()).unwrap();
        r.expect = expect;
        r
    }

    fn resp(status: u16, body: &str) -> HttpResponse {
        HttpResponse { status, content_range: None, body: body.into() }
    }

    #[test]
    fn counts_from_content_range() {
        assert_eq!(parse_count("0-24/3573458"), Some(3573458));
        assert_eq!(parse_count("*/0"), Some(0));
        assert_eq!(parse_count("*/*"), None);
        assert_eq!(parse_count("0-1/*"), None);
        let d = decode(
            &req(Expect::Body),
            &HttpResponse { status: 206, content_range: Some("0-1/7".into()), body: "[1,2]".into() },
        )
        .unwrap();
        assert_eq!((d.count, d.body.as_deref()), (Some(7), Some("[1,2]")));
        let d = decode(&req(Expect::Body), &resp(201, "")).unwrap();
        assert_eq!((d.json().unwrap(), d.body), (Value::Null, None));
    }

    #[test]
    fn maybe_single_semantics() {
        assert_eq!(decode(&req(Expect::MaybeSingle), &resp(200, "[]")).unwrap().body.as_deref(), Some("null"));
        assert_eq!(
            decode(&req(Expect::MaybeSingle), &resp(200, r#"[{"a":1}]"#)).unwrap().body.as_deref(),
            Some(r#"{"a":1}"#)
        );
        let e = decode(&req(Expect::MaybeSingle), &resp(200, "[1,2]")).unwrap_err();
        assert_eq!(e.code, ErrorCode::Conflict);
    }

    #[test]
    fn error_mapping() {
        let pg = |status, code: &str, details: Option<&str>| {
            let body = serde_json::json!({"code": code, "message": "m", "details": details, "hint": "h"}).to_string();
            error_from(&resp(status, &body))
        };
        let cases = [
            (pg(400, "PGRST100", None), ErrorCode::InvalidInput),
            (pg(400, "22P02", None), ErrorCode::InvalidInput),
            (pg(400, "23514", None), ErrorCode::InvalidInput),
            (pg(401, "PGRST301", None), ErrorCode::Unauthorized),
            (pg(401, "42501", None), ErrorCode::Unauthorized),
            (pg(403, "42501", None), ErrorCode::Forbidden),
            (pg(404, "PGRST205", None), ErrorCode::NotFound),
            (pg(404, "PGRST202", None), ErrorCode::NotFound),
            (pg(406, "PGRST116", Some("The result contains 0 rows")), ErrorCode::NotFound),
            (pg(406, "PGRST116", Some("The result contains 2 rows")), ErrorCode::Conflict),
            (pg(409, "23505", None), ErrorCode::Conflict),
            (pg(409, "23503", None), ErrorCode::Conflict),
            (pg(500, "XX000", None), ErrorCode::Server),
            (pg(503, "PGRST001", None), ErrorCode::Server),
            (pg(504, "PGRST003", None), ErrorCode::Timeout),
        ];
        for (report, code) in cases {
            assert_eq!(report.code, code, "{report:?}");
        }
        let e = pg(403, "42501", Some("d"));
        assert_eq!(
            (e.status, e.pgrst_code.as_deref(), e.details.as_deref(), e.hint.as_deref()),
            (Some(403), Some("42501"), Some("d"), Some("h"))
        );
        // Supabase's gateway answers without `code`.
        let e = error_from(&resp(401, r#"{"code":"PGRST303","message":"JWT expired","details":null,"hint":null}"#));
        assert_eq!((e.code, e.pgrst_code.as_deref()), (ErrorCode::Unauthorized, Some("PGRST303")));
        let e = error_from(&resp(401, r#"{"message":"Invalid API key","hint":"Double check"}"#));
        assert_eq!((e.code, e.pgrst_code, e.message.as_str()), (ErrorCode::Unauthorized, None, "Invalid API key"));
        // A proxy's HTML page.
        let e = error_from(&resp(502, "<html>Bad Gateway</html>"));
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::Server, "HTTP 502: <html>Bad Gateway</html>"));
        let e = error_from(&resp(503, ""));
        assert_eq!(e.message, "HTTP 503 with an empty body");
    }
}
