//! Content negotiation (Plan/Negotiate.hs, MediaType.hs): the first acceptable type of the
//! `Accept` list, ordered by q-value. Built in: JSON (also for `*/*`), CSV, the singular
//! object and the null-stripping array/object variants. Anything else, including the
//! explain plan (`db-plan-enabled` is off by default), is 406 PGRST107.

use crate::error::ApiError;

/// One `Accept` entry: q-value, lower-cased type, other parameters.
type AcceptEntry = (f64, String, Vec<(String, String)>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    Json,
    /// `application/vnd.pgrst.array+json;nulls=stripped`
    ArrayStripped,
    /// `application/vnd.pgrst.object+json[;nulls=stripped]`
    Singular {
        strip: bool,
    },
    Csv,
}

impl Media {
    pub fn singular(self) -> bool {
        matches!(self, Media::Singular { .. })
    }

    pub fn strip_nulls(self) -> bool {
        matches!(self, Media::ArrayStripped | Media::Singular { strip: true })
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Media::Json => "application/json; charset=utf-8",
            Media::ArrayStripped => "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8",
            Media::Singular { strip: false } => "application/vnd.pgrst.object+json; charset=utf-8",
            Media::Singular { strip: true } => "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8",
            Media::Csv => "text/csv; charset=utf-8",
        }
    }

    pub fn negotiate(accept: Option<&str>) -> Result<Media, ApiError> {
        let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else { return Ok(Media::Json) };
        let mut entries: Vec<AcceptEntry> = accept
            .split(',')
            .filter(|e| !e.trim().is_empty())
            .map(|entry| {
                let mut parts = entry.split(';').map(str::trim);
                let mime = parts.next().unwrap_or_default().to_ascii_lowercase();
                let mut q = 1.0;
                let mut params = Vec::new();
                for p in parts {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().trim_matches('"').to_owned());
                    if k == "q" {
                        q = v.parse().unwrap_or(1.0);
                    } else {
                        params.push((k, v));
                    }
                }
                (q, mime, params)
            })
            .collect();
        entries.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, mime, params) in &entries {
            let stripped = params.iter().any(|(k, v)| k == "nulls" && v == "stripped");
            let found = match mime.as_str() {
                "application/json" | "*/*" => Some(Media::Json),
                "text/csv" => Some(Media::Csv),
                "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => {
                    Some(Media::Singular { strip: stripped })
                }
                "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" => {
                    Some(if stripped { Media::ArrayStripped } else { Media::Json })
                }
                _ => None,
            };
            if let Some(m) = found {
                return Ok(m);
            }
        }
        let listed: Vec<String> = entries
            .iter()
            .map(|(_, mime, params)| {
                let mut s = mime.clone();
                for (k, v) in params {
                    s.push_str(&format!(";{k}={v}"));
                }
                s
            })
            .collect();
        Err(ApiError::pgrst(406, "PGRST107", format!("None of these media types are available: {}", listed.join(", "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_follows_postgrest() {
        assert_eq!(Media::negotiate(None).unwrap(), Media::Json);
        assert_eq!(Media::negotiate(Some("text/csv, */*")).unwrap(), Media::Csv);
        assert_eq!(Media::negotiate(Some("text/unknowntype, text/csv")).unwrap(), Media::Csv);
        assert_eq!(Media::negotiate(Some("application/json;q=0.5, text/csv")).unwrap(), Media::Csv);
        assert_eq!(
            Media::negotiate(Some("application/vnd.pgrst.array+json;nulls=stripped")).unwrap(),
            Media::ArrayStripped
        );
        assert_eq!(
            Media::negotiate(Some("application/vnd.pgrst.object+json;nulls=stripped")).unwrap(),
            Media::Singular { strip: true }
        );
        let e = Media::negotiate(Some("application/vnd.pgrst.plan+json")).unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (406, "PGRST107"));
        assert_eq!(e.message, "None of these media types are available: application/vnd.pgrst.plan+json");
    }
}
