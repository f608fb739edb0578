//! The `Prefer` request header (docs/references/api/preferences.rst,
//! src/PostgREST/ApiRequest/Preferences.hs).

use crate::error::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Return {
    Minimal,
    Representation,
    HeadersOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    MergeDuplicates,
    IgnoreDuplicates,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Exact,
    Planned,
    Estimated,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefer {
    pub ret: Option<Return>,
    pub resolution: Option<Resolution>,
    pub count: Option<Count>,
    /// `missing=default` (Some(true)) / `missing=null` (Some(false)).
    pub missing: Option<bool>,
    pub tx_rollback: Option<bool>,
    pub strict: bool,
    pub lenient: bool,
    pub max_affected: Option<u64>,
    pub single_object: bool,
    pub timezone: Option<String>,
    /// Tokens that were not understood (an error under `handling=strict`).
    pub invalid: Vec<String>,
}

impl Prefer {
    /// `allow_tx` is `db-tx-end=*-allow-override`: otherwise `tx=` is recognised (never an
    /// invalid preference) but ignored, as in PostgREST's Preferences.hs `fromHeaders`.
    pub fn parse<'a>(headers: impl Iterator<Item = &'a str>, allow_tx: bool) -> Prefer {
        let mut p = Prefer::default();
        for token in headers.flat_map(|h| h.split(',')).map(str::trim).filter(|t| !t.is_empty()) {
            match token {
                "return=minimal" => p.ret = Some(Return::Minimal),
                "return=representation" => p.ret = Some(Return::Representation),
                "return=headers-only" => p.ret = Some(Return::HeadersOnly),
                "resolution=merge-duplicates" => p.resolution = Some(Resolution::MergeDuplicates),
                "resolution=ignore-duplicates" => p.resolution = Some(Resolution::IgnoreDuplicates),
                "count=exact" => p.count = Some(Count::Exact),
                "count=planned" => p.count = Some(Count::Planned),
                "count=estimated" => p.count = Some(Count::Estimated),
                "missing=default" => p.missing = p.missing.or(Some(true)),
                "missing=null" => p.missing = p.missing.or(Some(false)),
                "tx=commit" if allow_tx => p.tx_rollback = p.tx_rollback.or(Some(false)),
                "tx=rollback" if allow_tx => p.tx_rollback = p.tx_rollback.or(Some(true)),
                "tx=commit" | "tx=rollback" => {}
                "handling=strict" => p.strict = true,
                "handling=lenient" => p.lenient = true,
                "params=single-object" => p.single_object = true,
                t => {
                    if let Some(n) = t.strip_prefix("max-affected=").and_then(|n| n.parse().ok()) {
                        p.max_affected = Some(n);
                    } else if let Some(tz) = t.strip_prefix("timezone=") {
                        p.timezone = Some(tz.to_owned());
                    } else {
                        p.invalid.push(t.to_owned());
                    }
                }
            }
        }
        p
    }

    /// `handling=strict` turns unknown preferences into PGRST122.
    pub fn check_strict(&self) -> Result<(), ApiError> {
        if self.strict && !self.invalid.is_empty() {
            return Err(ApiError::pgrst(400, "PGRST122", "Invalid preferences given with handling=strict")
                .with_details(format!("Invalid preferences: {}", self.invalid.join(", "))));
        }
        Ok(())
    }

    pub fn counting(&self) -> bool {
        self.count.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_multiple_headers_and_tokens() {
        let p = Prefer::parse(
            ["return=representation, count=exact", "resolution=merge-duplicates,tx=rollback"].into_iter(),
            true,
        );
        assert_eq!(p.ret, Some(Return::Representation));
        assert_eq!(p.count, Some(Count::Exact));
        assert_eq!(p.resolution, Some(Resolution::MergeDuplicates));
        assert_eq!(p.tx_rollback, Some(true));
        assert!(p.check_strict().is_ok());
        let ignored = Prefer::parse(["tx=rollback, handling=strict"].into_iter(), false);
        assert_eq!(ignored.tx_rollback, None, "db-tx-end=commit ignores tx=");
        assert!(ignored.check_strict().is_ok(), "tx= is a known preference even when ignored");
    }

    #[test]
    fn strict_rejects_unknown() {
        let p = Prefer::parse(["handling=strict, return=everything"].into_iter(), false);
        assert_eq!(p.check_strict().unwrap_err().code, "PGRST122");
        let lenient = Prefer::parse(["return=everything"].into_iter(), false);
        assert!(lenient.check_strict().is_ok());
    }
}
