//! PostgREST's error responses: `{code, message, details, hint}` and its SQLSTATE → HTTP
//! status table (PostgREST src/PostgREST/Error.hs, docs/references/errors.rst).

use serde_json::json;

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub code: String,
    pub message: String,
    /// A string, except PGRST201's list of candidate relationships.
    pub details: Option<serde_json::Value>,
    pub hint: Option<String>,
    /// Supabase's API gateway (Kong) answers without `code`/`details`.
    pub gateway_shape: bool,
    /// Extra response headers (e.g. `WWW-Authenticate` on 401).
    pub headers: Vec<(&'static str, String)>,
    /// Headers named at run time (a `RAISE SQLSTATE 'PGRST'` DETAIL's `headers`).
    pub dynamic_headers: Vec<(String, String)>,
}

impl ApiError {
    pub fn pgrst(status: u16, code: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code: code.to_owned(),
            message: message.into(),
            details: None,
            hint: None,
            gateway_shape: false,
            headers: Vec::new(),
            dynamic_headers: Vec::new(),
        }
    }

    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(serde_json::Value::String(details.into()));
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// Supabase's API gateway errors: `{"message": ..., "hint": ...}`, no `code`.
    pub fn api_gateway(status: u16, message: &str, hint: &str) -> Self {
        ApiError { gateway_shape: true, ..ApiError::pgrst(status, "", message).with_hint(hint) }
    }

    /// A Postgres error raised while running the request's statements. `authenticated`
    /// decides 42501: 403 for a JWT-bearing request, 401 for anon.
    pub fn from_db(db: &tokio_postgres::error::DbError, authenticated: bool) -> Self {
        let code = db.code().code();
        if code == "PGRST" {
            return raised_pgrst(db.message(), db.detail());
        }
        let status = match code {
            // `raise sqlstate 'PT404'` style: PostgREST uses the digits as the status.
            c if c.starts_with("PT") => c[2..].parse().unwrap_or(500),
            // A JWT naming a role that does not exist (PostgREST >= 13.0.1).
            "22023" if db.message().starts_with("role") && db.message().ends_with("does not exist") => 401,
            _ => sqlstate_status(code, authenticated),
        };
        let mut e = ApiError {
            status,
            code: code.to_owned(),
            message: db.message().to_owned(),
            details: db.detail().map(|d| serde_json::Value::String(d.to_owned())),
            hint: db.hint().map(str::to_owned),
            gateway_shape: false,
            headers: Vec::new(),
            dynamic_headers: Vec::new(),
        };
        if status == 401 {
            e.headers.push(("WWW-Authenticate", "Bearer".to_owned()));
        }
        e
    }

    pub fn body(&self) -> String {
        if self.gateway_shape {
            json!({ "message": self.message, "hint": self.hint }).to_string()
        } else {
            json!({ "code": self.code, "details": self.details, "hint": self.hint, "message": self.message })
                .to_string()
        }
    }
}

/// `RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code":…,"message":…,"details":…,"hint":…}',
/// DETAIL = '{"status":…,"status_text":…,"headers":{…}}'`: the function controls the whole
/// error response (Error.hs `parseRaisePGRST`); JSON that does not parse is PGRST121.
fn raised_pgrst(message: &str, detail: Option<&str>) -> ApiError {
    let parse_error = |details: String, hint: &str| {
        ApiError::pgrst(500, "PGRST121", "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error")
            .with_details(details)
            .with_hint(hint)
    };
    let msg_hint =
        "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
    let det_hint =
        "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
    let text = |v: &serde_json::Value, k: &str| v.get(k).and_then(serde_json::Value::as_str).map(str::to_owned);
    let msg: Option<serde_json::Value> = serde_json::from_str(message)
        .ok()
        .filter(|v: &serde_json::Value| v.is_object() && text(v, "code").is_some() && text(v, "message").is_some());
    let Some(msg) = msg else {
        return parse_error(format!("Invalid JSON value for MESSAGE: '{message}'"), msg_hint);
    };
    let Some(detail) = detail else {
        return parse_error("DETAIL is missing in the RAISE statement".into(), det_hint);
    };
    let det: Option<serde_json::Value> = serde_json::from_str(detail).ok().filter(|v: &serde_json::Value| {
        v.get("status").is_some_and(serde_json::Value::is_u64)
            && v.get("headers").is_some_and(serde_json::Value::is_object)
    });
    let Some(det) = det else {
        return parse_error(format!("Invalid JSON value for DETAIL: '{detail}'"), det_hint);
    };
    let mut e = ApiError::pgrst(
        det["status"].as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(500),
        &text(&msg, "code").unwrap_or_default(),
        text(&msg, "message").unwrap_or_default(),
    );
    e.details = msg.get("details").filter(|v| !v.is_null()).cloned();
    e.hint = text(&msg, "hint");
    for (k, v) in det["headers"].as_object().into_iter().flatten() {
        e.dynamic_headers.push((k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)));
    }
    e
}

/// PostgREST's `pgErrorStatus`.
pub fn sqlstate_status(code: &str, authenticated: bool) -> u16 {
    let class = &code[..2.min(code.len())];
    match code {
        "23503" | "23505" => return 409,
        "25006" => return 405,
        "42883" | "42P01" => return 404,
        "42P17" => return 500,
        "42501" => return if authenticated { 403 } else { 401 },
        "P0001" => return 400,
        _ => {}
    }
    match class {
        "08" => 503,
        "09" => 500,
        "0L" | "0P" => 403,
        "25" => 500,
        "28" => 403,
        "2D" | "38" | "39" | "3B" | "40" => 500,
        "53" => 503,
        "54" | "55" | "57" | "58" | "F0" | "HV" | "P0" | "XX" => 500,
        _ => 400,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_table() {
        let cases = [
            ("23505", 409),
            ("23503", 409),
            ("22P02", 400),
            ("P0001", 400),
            ("P0002", 500),
            ("42P01", 404),
            ("42883", 404),
            ("08006", 503),
            ("53300", 503),
            ("40001", 500),
            ("25006", 405),
            ("28P01", 403),
            ("XX000", 500),
            ("23514", 400),
        ];
        for (code, status) in cases {
            assert_eq!(sqlstate_status(code, true), status, "{code}");
        }
        assert_eq!(sqlstate_status("42501", false), 401);
        assert_eq!(sqlstate_status("42501", true), 403);
    }

    #[test]
    fn bodies() {
        let e = ApiError::pgrst(406, "PGRST116", "JSON object requested, multiple (or no) rows returned")
            .with_details("The result contains 0 rows");
        let v: serde_json::Value = serde_json::from_str(&e.body()).unwrap();
        assert_eq!(v["code"], "PGRST116");
        assert_eq!(v["details"], "The result contains 0 rows");
        assert!(v["hint"].is_null());
        let g = ApiError::api_gateway(
            401,
            "No API key found in request",
            "No `apikey` request header or url param was found.",
        );
        let v: serde_json::Value = serde_json::from_str(&g.body()).unwrap();
        assert!(v.get("code").is_none());
        assert_eq!(v["message"], "No API key found in request");
    }
}
