//! CORS as PostgREST sends it (src/PostgREST/Cors.hs, through wai-cors): any origin; every
//! OPTIONS request carrying `Origin` is a preflight answered here; actual responses expose
//! the headers a browser client needs. Requests without `Origin` get no CORS headers.

use crate::shape::Response;

const METHODS: &str = "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD";
const EXPOSED: &str = "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit";

pub fn preflight(headers: &[(String, String)]) -> Response {
    let mut out = vec![
        ("Access-Control-Allow-Origin".to_owned(), "*".to_owned()),
        ("Access-Control-Allow-Methods".to_owned(), METHODS.to_owned()),
    ];
    // wai-cors: ["Authorization"] ++ requested, then the simple headers, case-insensitively deduplicated.
    if let Some((_, requested)) = headers.iter().find(|(k, _)| k == "access-control-request-headers") {
        let mut list: Vec<&str> = vec!["Authorization"];
        for h in requested.split(',').map(str::trim).filter(|h| !h.is_empty()).chain([
            "Accept",
            "Accept-Language",
            "Content-Language",
        ]) {
            if !list.iter().any(|x| x.eq_ignore_ascii_case(h)) {
                list.push(h);
            }
        }
        out.push(("Access-Control-Allow-Headers".to_owned(), list.join(", ")));
    }
    out.push(("Access-Control-Max-Age".to_owned(), "86400".to_owned()));
    Response { status: 200, headers: out, body: Vec::new() }
}

pub fn decorate(r: &mut Response) {
    r.headers.push(("Access-Control-Allow-Origin".into(), "*".into()));
    r.headers.push(("Access-Control-Expose-Headers".into(), EXPOSED.into()));
}

/// Supabase Auth's CORS (GoTrue api.go): auth-js reads the answer's API version, so a
/// browser must be allowed to see it.
pub fn decorate_auth(r: &mut Response) {
    r.headers.push(("Access-Control-Allow-Origin".into(), "*".into()));
    r.headers.push(("Access-Control-Expose-Headers".into(), "X-Total-Count, Link, X-Supabase-Api-Version".into()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preflight_echoes_requested_headers_like_wai_cors() {
        let r = preflight(&[("access-control-request-headers".into(), "Foo,Bar".into())]);
        let get = |k: &str| r.headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
        assert_eq!(
            get("Access-Control-Allow-Headers"),
            Some("Authorization, Foo, Bar, Accept, Accept-Language, Content-Language")
        );
        assert_eq!(get("Access-Control-Allow-Methods"), Some("GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD"));
        assert_eq!(get("Access-Control-Max-Age"), Some("86400"));
        let r = preflight(&[("access-control-request-headers".into(), "authorization, content-type".into())]);
        assert_eq!(
            r.headers.iter().find(|(h, _)| h == "Access-Control-Allow-Headers").map(|(_, v)| v.as_str()),
            Some("Authorization, content-type, Accept, Accept-Language, Content-Language")
        );
        assert!(preflight(&[]).headers.iter().all(|(h, _)| h != "Access-Control-Allow-Headers"));
    }
}
