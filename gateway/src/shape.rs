//! PostgREST's response shape for one statement: status, headers and body from the outer
//! select's one row (Response.hs), and the checks that run before COMMIT (MainTx.hs), as
//! SQL in the same transaction.

use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::media::Media;
use crate::plan::{self, Window};
use crate::prefer::{Prefer, Resolution, Return};
use crate::quote::literal;

/// An HTTP response as the gateway sends it (main.rs turns it into hyper's).
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn error(e: &ApiError) -> Response {
        let mut headers = vec![("Content-Type".to_owned(), "application/json; charset=utf-8".to_owned())];
        if !e.gateway_shape {
            headers.push(("Proxy-Status".to_owned(), format!("PostgREST; error={}", e.code)));
        }
        headers.extend(e.headers.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        headers.extend(e.dynamic_headers.iter().cloned());
        Response { status: e.status, headers, body: e.body().into_bytes() }
    }
}

/// What kind of statement ran, for shaping the response.
pub enum Kind {
    Read {
        window: Window,
        head: bool,
    },
    /// `table` names the Location header's path.
    Insert {
        merge: bool,
        table: String,
    },
    /// PUT's single-row upsert.
    Put,
    Update,
    Delete,
    Call {
        window: Window,
        void: bool,
    },
}

/// The outer select's one row.
pub struct Row {
    pub total: Option<i64>,
    pub page_total: i64,
    pub body: Option<String>,
    pub guc_headers: Option<String>,
    pub guc_status: Option<String>,
    pub inserted: Option<i64>,
    /// `[[key, "eq.value"], …]` for the Location header (inserts with return=headers-only).
    pub location: Option<String>,
}

/// The checks PostgREST makes after the statement and before COMMIT (MainTx.hs
/// `failNotSingular`, `failExceedsMaxAffectedPref`), as a statement that runs in the same
/// transaction and raises, so a failed check rolls back without another round trip. It
/// reads the row count the outer select left in `pgrst.page_total` and raises PostgREST's
/// own error through `RAISE SQLSTATE 'PGRST'`, whose JSON becomes the response.
pub fn veto_sql(kind: &Kind, singular: bool, prefer: &Prefer) -> Option<String> {
    let raise = |code: &str, message: &str, details: &str, status: u16| {
        format!(
            "RAISE SQLSTATE 'PGRST' USING MESSAGE = json_build_object('code', {}, 'message', {}, 'details', {details}, 'hint', NULL)::text, \
             DETAIL = '{{\"status\": {status}, \"headers\": {{}}}}';",
            literal(code),
            literal(message)
        )
    };
    let mut checks = Vec::new();
    if matches!(kind, Kind::Put) {
        // MainTx.hs `failPut`: the row's key must match the URL's, and then exactly one row
        // is written; anything else rolls back (singularity is not checked separately).
        checks.push(format!(
            "IF n <> 1 THEN {} END IF;",
            raise("PGRST115", "Payload values do not match URL in primary key column(s)", "NULL", 400)
        ));
    } else if singular && !matches!(kind, Kind::Call { void: true, .. }) {
        checks.push(format!(
            "IF n <> 1 THEN {} END IF;",
            raise(
                "PGRST116",
                "Cannot coerce the result to a single JSON object",
                "'The result contains ' || n || ' rows'",
                406
            )
        ));
    }
    let affects = matches!(kind, Kind::Update | Kind::Delete | Kind::Call { .. });
    if let (true, true, Some(max)) = (affects, prefer.strict, prefer.max_affected) {
        checks.push(format!(
            "IF n > {max} THEN {} END IF;",
            raise(
                "PGRST124",
                "Query result exceeds max-affected preference constraint",
                "'The query affects ' || n || ' rows'",
                400
            )
        ));
    }
    if checks.is_empty() {
        return None;
    }
    Some(format!(
        "DO $pgrst$ DECLARE n bigint := current_setting('pgrst.page_total')::bigint; BEGIN {} END $pgrst$",
        checks.join(" ")
    ))
}

/// Response.hs: `Location: /<table>` plus the key pairs rendered by http-types'
/// `renderSimpleQuery True`, which percent-encodes every byte but `A-Z a-z 0-9 - _ . ~`
/// (space too, as `%20`). The table name is not encoded. None when there are no pairs.
fn location_header(table: &str, pairs_json: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_json::from_str(pairs_json).ok()?;
    if pairs.is_empty() {
        return None;
    }
    let encode = |s: &str| {
        s.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect::<String>()
    };
    let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
    Some(format!("/{table}?{}", query.join("&")))
}

fn content_range(lower: i64, upper: i64, total: Option<i64>) -> String {
    let range = if total != Some(0) && lower <= upper { format!("{lower}-{upper}") } else { "*".into() };
    format!("{range}/{}", total.map_or("*".to_owned(), |t| t.to_string()))
}

pub fn respond(kind: &Kind, row: &Row, prefer: &Prefer, media: Media) -> Result<Response, ApiError> {
    let ct = media.content_type();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut applied = Vec::new();
    let body = row.body.clone().unwrap_or_default().into_bytes();
    let counted_total = |t: Option<i64>| if prefer.counting() { t } else { None };
    let (status, body) = match kind {
        Kind::Read { window, .. } | Kind::Call { window, void: false } => {
            let lower = window.offset as i64;
            let upper = lower + row.page_total - 1;
            let total = counted_total(row.total);
            let status = match total {
                Some(t) if lower > t => 416,
                Some(t) if (1 + upper - lower) < t => 206,
                _ => 200,
            };
            if status == 416 {
                let e = ApiError::pgrst(416, "PGRST103", "Requested range not satisfiable")
                    .with_details(format!(
                        "An offset of {lower} was requested, but there are only {} rows.",
                        total.unwrap_or(0)
                    ))
                    .with_header("Content-Range", format!("*/{}", total.unwrap_or(0)));
                return Ok(Response::error(&e));
            }
            headers.push(("Content-Range".into(), content_range(lower, upper, total)));
            headers.push(("Content-Type".into(), ct.into()));
            let head = matches!(kind, Kind::Read { head: true, .. });
            (status, if head { Vec::new() } else { body })
        }
        Kind::Call { .. } => (204, Vec::new()),
        Kind::Insert { merge, table } => {
            if let Some(loc) = row.location.as_deref().and_then(|l| location_header(table, l)) {
                headers.push(("Location".into(), loc));
            }
            headers.push(("Content-Range".into(), content_range(1, 0, counted_total(Some(row.page_total)))));
            let status = match (merge, row.inserted) {
                (true, Some(i)) if i <= 0 => 200,
                (true, None) if row.page_total == 0 => 200,
                _ => 201,
            };
            if let Some(r) =
                prefer.resolution.filter(|_| *merge || prefer.resolution == Some(Resolution::IgnoreDuplicates))
            {
                applied.push(match r {
                    Resolution::MergeDuplicates => "resolution=merge-duplicates",
                    Resolution::IgnoreDuplicates => "resolution=ignore-duplicates",
                });
            }
            if plan::want_body(prefer) {
                headers.push(("Content-Type".into(), ct.into()));
                (status, body)
            } else {
                (status, Vec::new())
            }
        }
        // Response.hs (MutationSingleUpsert): no Content-Range; 201 when the row was
        // inserted, 200 when it was updated, 204 without a representation.
        Kind::Put => {
            if plan::want_body(prefer) {
                headers.push(("Content-Type".into(), ct.into()));
                (if row.inserted.unwrap_or(0) > 0 { 201 } else { 200 }, body)
            } else {
                (204, Vec::new())
            }
        }
        Kind::Update | Kind::Delete => {
            let range = if matches!(kind, Kind::Update) {
                content_range(0, row.page_total - 1, counted_total(Some(row.page_total)))
            } else {
                content_range(1, 0, counted_total(Some(row.page_total)))
            };
            headers.push(("Content-Range".into(), range));
            if plan::want_body(prefer) {
                headers.push(("Content-Type".into(), ct.into()));
                (200, body)
            } else {
                (204, Vec::new())
            }
        }
    };
    // Preferences.hs `prefAppliedHeader` order, filtered per plan as Response.hs
    // `responsePreferences` does.
    let mutation = matches!(kind, Kind::Insert { .. } | Kind::Put | Kind::Update | Kind::Delete);
    if prefer.missing.is_some() && matches!(kind, Kind::Insert { .. } | Kind::Update) {
        applied.push(if prefer.missing == Some(true) { "missing=default" } else { "missing=null" });
    }
    match prefer.ret {
        Some(Return::Representation) if mutation => applied.push("return=representation"),
        Some(Return::Minimal) if mutation => applied.push("return=minimal"),
        Some(Return::HeadersOnly) if mutation => applied.push("return=headers-only"),
        _ => {}
    }
    match prefer.count {
        Some(crate::prefer::Count::Exact) => applied.push("count=exact"),
        Some(crate::prefer::Count::Planned) => applied.push("count=planned"),
        Some(crate::prefer::Count::Estimated) => applied.push("count=estimated"),
        None => {}
    }
    match prefer.tx_rollback {
        Some(true) => applied.push("tx=rollback"),
        Some(false) => applied.push("tx=commit"),
        None => {}
    }
    let timezone;
    let max_affected;
    if prefer.strict {
        applied.push("handling=strict");
    } else if prefer.lenient {
        applied.push("handling=lenient");
    }
    if let Some(tz) = &prefer.timezone {
        timezone = format!("timezone={tz}");
        applied.push(&timezone);
    }
    if let (true, Some(m), true) =
        (prefer.strict, prefer.max_affected, matches!(kind, Kind::Update | Kind::Delete | Kind::Call { .. }))
    {
        max_affected = format!("max-affected={m}");
        applied.push(&max_affected);
    }
    if !applied.is_empty() {
        headers.push(("Preference-Applied".into(), applied.join(", ")));
    }
    let mut status = status;
    if let Some(s) = row.guc_status.as_deref() {
        status = s
            .trim()
            .parse()
            .map_err(|_| ApiError::pgrst(500, "PGRST112", "response.status guc must be a valid status code"))?;
    }
    if let Some(h) = row.guc_headers.as_deref() {
        let list: Vec<Map<String, Value>> = serde_json::from_str(h).map_err(|_| {
            ApiError::pgrst(
                500,
                "PGRST111",
                "response.headers guc must be a JSON array composed of objects with a single key and a string value",
            )
        })?;
        for obj in list {
            for (k, v) in obj {
                let v = v.as_str().unwrap_or_default().to_owned();
                headers.retain(|(hk, _)| !hk.eq_ignore_ascii_case(&k));
                headers.push((k, v));
            }
        }
    }
    Ok(Response { status, headers, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_is_percent_encoded_like_http_types() {
        assert_eq!(location_header("projects", r#"[["id","eq.11"]]"#).as_deref(), Some("/projects?id=eq.11"));
        assert_eq!(
            location_header("car_models", r#"[["name","eq.Enzo"],["year","eq.2021"]]"#).as_deref(),
            Some("/car_models?name=eq.Enzo&year=eq.2021")
        );
        assert_eq!(
            location_header("t", r#"[["k2","eq.Rock & R+ll/~x"],["k 1","is.null"]]"#).as_deref(),
            Some("/t?k2=eq.Rock%20%26%20R%2Bll%2F~x&k%201=is.null")
        );
        assert_eq!(location_header("t", r#"[["k","eq.圍"]]"#).as_deref(), Some("/t?k=eq.%E5%9C%8D"));
        assert_eq!(location_header("t", "[]"), None);
        assert_eq!(location_header("t", "null"), None);
    }
}
