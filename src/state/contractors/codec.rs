//! The contractor codec: which lead and account fields exist, their
//! types, and the coercions build_contractor_profile() made (numeric fields to integers,
//! nulls stripped), done before anything is sent so bad input names its field.
//!
//! Mirrors `agentmem.contractor_lead_fields()` and `convert_contractor_lead` in
//! supabase/migrations/20261122000600_contractors.sql; the database checks again.

use serde_json::{Map, Value};

use crate::input;
use crate::state::StateError;

/// How a field is checked and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A non-blank string of at most n characters (names that identify).
    Name(usize),
    /// A string of at most n characters.
    Text(usize),
    /// A whole number ≥ 0; numbers and numeric strings are rounded to one.
    Count,
    /// A list of strings, replaced as given.
    Strings,
    /// `{platform: url}`, merged by key.
    Links,
    /// `{name: integer}` (coerced like `Count`, sign allowed), merged by key.
    Scores,
    /// A list of strings kept as a set (first-seen order), merged.
    Sources,
    /// Any JSON object, merged by key.
    Details,
}

/// A field's column name and how it is checked.
pub type Field = (&'static str, Kind);

/// The profile: COIA's PERSISTENT_STATE_FIELDS that are lead columns, which a state save
/// copies into the lead and a conversion copies into the account.
pub const PROFILE_FIELDS: [Field; 12] = [
    ("company_name", Kind::Name(500)),
    ("contact_name", Kind::Text(500)),
    ("contact_email", Kind::Text(320)),
    ("contact_phone", Kind::Text(100)),
    ("business_address", Kind::Text(1000)),
    ("license_number", Kind::Text(255)),
    ("years_in_business", Kind::Count),
    ("employee_count", Kind::Count),
    ("specialties", Kind::Strings),
    ("certifications", Kind::Strings),
    ("service_areas", Kind::Strings),
    ("project_types", Kind::Strings),
];

/// The lead columns a write may give (the database's `agentmem.contractor_lead_fields()`):
/// the profile, then the enrichment only a profile build writes.
pub const LEAD_FIELDS: [Field; 16] = join(
    &PROFILE_FIELDS,
    &[
        ("social_links", Kind::Links),
        ("scores", Kind::Scores),
        ("data_sources", Kind::Sources),
        ("details", Kind::Details),
    ],
);

/// What a conversion's account may set: the profile, availability_status and tier (COIA's
/// defaults otherwise).
pub const ACCOUNT_FIELDS: [Field; 14] =
    join(&PROFILE_FIELDS, &[("availability_status", Kind::Name(50)), ("tier", Kind::Count)]);

/// `a` then `b`, as one array (N must be their total length: checked when compiled).
const fn join<const N: usize>(a: &[Field], b: &[Field]) -> [Field; N] {
    assert!(a.len() + b.len() == N);
    let mut out = [("", Kind::Count); N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// Columns the store manages; a profile or account naming one is refused, not ignored.
pub const MANAGED: [&str; 8] = [
    "id",
    "tenant_id",
    "contractor_lead_id",
    "discovered_at",
    "converted_to_contractor",
    "converted_at",
    "created_at",
    "updated_at",
];

/// Verification is not the converting caller's to claim; accounts start unverified.
pub const VERIFIED_FLAGS: [&str; 3] = ["verified", "license_verified", "insurance_verified"];

/// `details` limit, as JSON text: research dumps belong elsewhere.
pub const MAX_DETAILS_BYTES: usize = 262_144;

const MAX_INT: i64 = i32::MAX as i64;

/// A number, or a string holding one, rounded to the nearest whole number (halves away
/// from zero) within `lo..=hi`. The original converted with int(); rounding keeps 4.7
/// from becoming 4.
pub fn integer(v: &Value, path: &str, lo: i64, hi: i64) -> Result<i64, StateError> {
    let x = match v {
        Value::Number(_) => crate::number::of(v),
        Value::String(s) => crate::number::parse(s.trim()),
        _ => None,
    }
    .filter(|x| x.is_finite())
    .ok_or_else(|| {
        StateError::invalid(path, format!("{path} must be a number or a numeric string (got {})", shown(v)))
    })?;
    let r = x.round();
    if r < lo as f64 || r > hi as f64 {
        return Err(StateError::invalid(path, format!("{path} must be from {lo} to {hi} (got {})", shown(v))));
    }
    Ok(r as i64)
}

fn shown(v: &Value) -> String {
    let s = crate::json::text(v);
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
}

fn text(v: &Value, path: &str, max: usize) -> Result<String, StateError> {
    let s = input::string(v, path)?;
    let n = s.chars().count();
    if n > max {
        return Err(StateError::invalid(path, format!("{path} is {n} characters; the limit is {max}")));
    }
    Ok(s)
}

/// Removes null members of objects at every depth (what Postgres' jsonb_strip_nulls does);
/// array elements stay.
pub fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(input::map_of(
            m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), strip_nulls(v))),
        )),
        Value::Array(a) => Value::Array(a.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}

/// One field's stored value.
pub fn encode(kind: Kind, v: &Value, path: &str) -> Result<Value, StateError> {
    Ok(match kind {
        Kind::Name(max) => Value::String(input::text(v, path, max)?),
        Kind::Text(max) => Value::String(text(v, path, max)?),
        Kind::Count => Value::from(integer(v, path, 0, MAX_INT)?),
        Kind::Strings => Value::from(input::strings(v, path)?),
        Kind::Sources => {
            let mut set: Vec<String> = Vec::new();
            for s in input::strings(v, path)? {
                if !set.contains(&s) {
                    set.push(s);
                }
            }
            Value::from(set)
        }
        Kind::Links => {
            let mut out = Map::new();
            for (k, link) in input::object(v, path)?.iter().filter(|(_, v)| !v.is_null()) {
                out.insert(k.clone(), Value::String(text(link, &input::key(path, k), 2048)?));
            }
            Value::Object(out)
        }
        Kind::Scores => {
            let mut out = Map::new();
            for (k, score) in input::object(v, path)?.iter().filter(|(_, v)| !v.is_null()) {
                out.insert(k.clone(), Value::from(integer(score, &input::key(path, k), -MAX_INT, MAX_INT)?));
            }
            Value::Object(out)
        }
        Kind::Details => {
            input::object(v, path)?;
            strip_nulls(v)
        }
    })
}

fn kind_of(fields: &[Field], k: &str) -> Option<Kind> {
    fields.iter().find(|(f, _)| *f == k).map(|(_, kind)| *kind)
}

fn managed(path: &str, k: &str, what: &str) -> Option<StateError> {
    let p = input::key(path, k);
    if MANAGED.contains(&k) {
        return Some(StateError::invalid(&p, format!("{p} is managed by the store; a {what} cannot set it")));
    }
    if VERIFIED_FLAGS.contains(&k) {
        return Some(StateError::invalid(
            &p,
            format!("{p} cannot be set here: accounts start unverified, and verifying is not the {what}'s to claim"),
        ));
    }
    None
}

/// `buildContractorProfile`'s profile: the lead fields typed and coerced, nulls stripped,
/// every other key kept in `details` (COIA does not list the profile's fields; a
/// top-level key wins over the same key inside `details`).
pub fn profile(v: &Value) -> Result<Map<String, Value>, StateError> {
    let m = input::object(v, "profile")?;
    let mut out = Map::new();
    let mut details = Map::new();
    if let Some(d) = input::get(m, "details")
        && let Value::Object(d) = encode(Kind::Details, d, "profile.details")?
    {
        details = d;
    }
    for (k, val) in m.iter().filter(|(k, v)| !v.is_null() && k.as_str() != "details") {
        if let Some(e) = managed("profile", k, "profile") {
            return Err(e);
        }
        match kind_of(&LEAD_FIELDS, k) {
            Some(kind) => {
                out.insert(k.clone(), encode(kind, val, &input::key("profile", k))?);
            }
            None => {
                details.insert(k.clone(), strip_nulls(val));
            }
        }
    }
    if !details.is_empty() {
        let details = Value::Object(details);
        let bytes = crate::json::text(&details).len();
        if bytes > MAX_DETAILS_BYTES {
            return Err(StateError::invalid(
                "profile.details",
                format!(
                    "the profile's other fields (details) are {bytes} bytes of JSON; the limit is {MAX_DETAILS_BYTES}"
                ),
            ));
        }
        out.insert("details".into(), details);
    }
    Ok(out)
}

/// `convertLead`'s account: only ACCOUNT_FIELDS (nulls stripped: the lead's value is kept).
pub fn account(v: &Value) -> Result<Map<String, Value>, StateError> {
    if v.is_null() {
        return Ok(Map::new());
    }
    let m = input::object(v, "account")?;
    let mut out = Map::new();
    for (k, val) in m.iter().filter(|(_, v)| !v.is_null()) {
        if let Some(e) = managed("account", k, "conversion") {
            return Err(e);
        }
        let Some(kind) = kind_of(&ACCOUNT_FIELDS, k) else {
            let names: Vec<&str> = ACCOUNT_FIELDS.iter().map(|(f, _)| *f).collect();
            let p = input::key("account", k);
            return Err(StateError::invalid(
                &p,
                format!("{p} is not a field of a contractor account; its fields are {}", names.join(", ")),
            ));
        };
        out.insert(k.clone(), encode(kind, val, &input::key("account", k))?);
    }
    Ok(out)
}

/// The lead a state save writes (when the state has a company_name).
#[derive(Debug, Clone, PartialEq)]
pub struct StateLead {
    /// The lead columns, typed.
    pub fields: Map<String, Value>,
    /// The state fields copied, in LEAD_FIELDS order.
    pub copied: Vec<String>,
    /// State fields present with a value that does not fit the lead's column (e.g.
    /// years_in_business "10+"): kept in the unified memory only.
    pub skipped: Vec<String>,
}

/// The lead of a state, or None when its company_name is absent, null or blank. A state
/// is free-form memory, so a field that does not fit its lead column is skipped (and
/// reported), not refused: the save must not fail for it.
pub fn state_lead(state: &Map<String, Value>) -> Option<StateLead> {
    let company = input::get(state, "company_name")?;
    let company = encode(Kind::Name(500), company, "state.company_name").ok()?;
    let mut lead = StateLead { fields: Map::new(), copied: Vec::new(), skipped: Vec::new() };
    lead.fields.insert("company_name".into(), company);
    lead.copied.push("company_name".into());
    for (k, kind) in PROFILE_FIELDS.iter().skip(1) {
        let Some(v) = input::get(state, k) else { continue };
        match encode(*kind, v, k) {
            Ok(v) => {
                lead.fields.insert((*k).to_owned(), v);
                lead.copied.push((*k).to_owned());
            }
            Err(_) => lead.skipped.push((*k).to_owned()),
        }
    }
    Some(lead)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testgen::Gen;

    fn field(r: Result<Map<String, Value>, StateError>) -> String {
        r.unwrap_err().field().unwrap_or_default().to_owned()
    }

    #[test]
    fn numbers_and_numeric_strings_become_integers_and_anything_else_names_the_field() {
        assert_eq!(integer(&json!(7), "f", 0, 10), Ok(7));
        assert_eq!(integer(&json!(7.0), "f", 0, 10), Ok(7));
        assert_eq!(integer(&json!(4.7), "f", 0, 10), Ok(5), "rounded, not truncated");
        assert_eq!(integer(&json!(2.5), "f", 0, 10), Ok(3), "halves away from zero");
        assert_eq!(integer(&json!(" 12 "), "f", 0, 20), Ok(12));
        assert_eq!(integer(&json!("12.4"), "f", 0, 20), Ok(12));
        assert_eq!(integer(&json!("-3"), "f", -5, 5), Ok(-3));
        for bad in
            [json!("10+"), json!("about 10"), json!(""), json!("NaN"), json!("inf"), json!(true), json!([1]), json!({})]
        {
            let e = integer(&bad, "profile.years_in_business", 0, 100).unwrap_err();
            assert_eq!(e.field(), Some("profile.years_in_business"), "{bad}");
            assert!(e.to_string().contains("must be a number"), "{e}");
        }
        assert_eq!(integer(&json!(-1), "f", 0, 10).unwrap_err().field(), Some("f"));
        assert_eq!(integer(&json!(1e12), "f", 0, MAX_INT).unwrap_err().field(), Some("f"));
    }

    #[test]
    fn a_profile_is_typed_coerced_and_stripped_and_unknown_keys_go_to_details() {
        let p = profile(&json!({
            "company_name": "Acme Roofing", "years_in_business": "15", "employee_count": 11.6,
            "contact_email": null, "specialties": ["roofing", "gutters"],
            "social_links": {"facebook": "https://fb.com/acme", "x": null},
            "scores": {"lead_score": "87", "rating": 4.6, "gone": null},
            "data_sources": ["google", "tavily", "google"],
            "website": "https://acme.test", "google_rating": 4.6, "city": null,
            "details": {"founded": 2009, "hq": {"city": "Miami", "zip": null}, "website": "old"},
        }))
        .unwrap();
        assert_eq!(
            Value::Object(p),
            json!({
                "company_name": "Acme Roofing", "years_in_business": 15, "employee_count": 12,
                "specialties": ["roofing", "gutters"], "social_links": {"facebook": "https://fb.com/acme"},
                "scores": {"lead_score": 87, "rating": 5}, "data_sources": ["google", "tavily"],
                "details": {"founded": 2009, "hq": {"city": "Miami"}, "website": "https://acme.test", "google_rating": 4.6},
            })
        );
        assert_eq!(profile(&json!({})).unwrap(), Map::new(), "an empty profile is a valid (no-op) enrichment");
    }

    #[test]
    fn bad_profiles_and_accounts_name_the_field() {
        assert_eq!(field(profile(&json!([]))), "profile");
        assert_eq!(field(profile(&json!({"years_in_business": "10+"}))), "profile.years_in_business");
        assert_eq!(field(profile(&json!({"employee_count": -2}))), "profile.employee_count");
        assert_eq!(field(profile(&json!({"scores": {"q": "high"}}))), "profile.scores.q");
        assert_eq!(field(profile(&json!({"scores": [1]}))), "profile.scores");
        assert_eq!(field(profile(&json!({"social_links": {"fb": 3}}))), "profile.social_links.fb");
        assert_eq!(field(profile(&json!({"specialties": "roofing"}))), "profile.specialties");
        assert_eq!(field(profile(&json!({"specialties": ["a", 2]}))), "profile.specialties[1]");
        assert_eq!(field(profile(&json!({"data_sources": [null]}))), "profile.data_sources[0]");
        assert_eq!(field(profile(&json!({"company_name": "  "}))), "profile.company_name");
        assert_eq!(field(profile(&json!({"company_name": "x".repeat(501)}))), "profile.company_name");
        assert_eq!(field(profile(&json!({"contact_phone": 5551234}))), "profile.contact_phone");
        assert_eq!(field(profile(&json!({"details": "x"}))), "profile.details");
        assert_eq!(field(profile(&json!({"discovered_at": "2026-01-01"}))), "profile.discovered_at");
        assert_eq!(field(profile(&json!({"converted_to_contractor": true}))), "profile.converted_to_contractor");
        assert_eq!(field(profile(&json!({"verified": true}))), "profile.verified");
        assert_eq!(field(profile(&json!({"notes": "x".repeat(MAX_DETAILS_BYTES)}))), "profile.details");

        assert_eq!(account(&Value::Null).unwrap(), Map::new());
        assert_eq!(field(account(&json!("acct"))), "account");
        assert_eq!(field(account(&json!({"tier": "gold"}))), "account.tier");
        assert_eq!(field(account(&json!({"availability_status": ""}))), "account.availability_status");
        assert_eq!(field(account(&json!({"insurance_verified": true}))), "account.insurance_verified");
        assert_eq!(field(account(&json!({"scores": {}}))), "account.scores");
        assert_eq!(field(account(&json!({"id": "x"}))), "account.id");
        let a = account(&json!({"tier": "2", "specialties": ["roofing"], "email": null})).unwrap();
        assert_eq!(
            Value::Object(a),
            json!({"tier": 2, "specialties": ["roofing"]}),
            "null keys are dropped, even unknown ones"
        );
    }

    #[test]
    fn a_state_makes_a_lead_only_with_a_company_name_and_skips_what_does_not_fit() {
        let state = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(state_lead(&state(json!({"contact_name": "Jo"}))), None);
        assert_eq!(state_lead(&state(json!({"company_name": null}))), None);
        assert_eq!(state_lead(&state(json!({"company_name": "  "}))), None);
        let lead = state_lead(&state(json!({
            "company_name": "Acme", "years_in_business": "10+", "employee_count": "12", "contact_name": {"first": "Jo"},
            "specialties": ["roofing"], "contact_email": null, "website_summary": "not a lead column",
            "social_links": {"fb": "x"},
        })))
        .unwrap();
        assert_eq!(
            Value::Object(lead.fields),
            json!({"company_name": "Acme", "employee_count": 12, "specialties": ["roofing"]})
        );
        assert_eq!(lead.copied, ["company_name", "employee_count", "specialties"]);
        assert_eq!(lead.skipped, ["contact_name", "years_in_business"], "LEAD_FIELDS order");
    }

    #[test]
    fn generated_profiles_encode_to_what_the_database_accepts_and_encoding_is_stable() {
        for seed in 0..300 {
            let mut g = Gen::new(seed);
            let mut p = Map::new();
            for (k, kind) in LEAD_FIELDS {
                if !g.chance(60) {
                    continue;
                }
                let v = match kind {
                    Kind::Name(_) => json!(format!("{}x", g.text(20))),
                    Kind::Text(_) => json!(g.text(30)),
                    Kind::Count => {
                        if g.chance(50) {
                            json!(g.below(200))
                        } else {
                            json!(format!("{}.{}", g.below(200), g.below(10)))
                        }
                    }
                    Kind::Strings | Kind::Sources => json!((0..g.below(4)).map(|_| g.word(6)).collect::<Vec<_>>()),
                    Kind::Links => json!({ g.word(5): g.text(10), "gone": null }),
                    Kind::Scores => json!({ g.word(5): g.below(100), "r": 4.5 }),
                    Kind::Details => json!({ "nested": { "a": null, "b": g.value(2) } }),
                };
                p.insert(k.to_owned(), v);
            }
            if g.chance(50) {
                p.insert(format!("extra_{}", g.word(4)), g.value(2));
            }
            let enc = profile(&Value::Object(p.clone())).unwrap();
            for (k, v) in &enc {
                match kind_of(&LEAD_FIELDS, k).unwrap() {
                    Kind::Count => assert!(v.as_i64().is_some_and(|n| n >= 0), "seed {seed}: {k} = {v}"),
                    Kind::Scores => assert!(v.as_object().unwrap().values().all(|s| s.is_i64()), "seed {seed}"),
                    Kind::Links | Kind::Details => assert!(v.is_object(), "seed {seed}"),
                    Kind::Strings | Kind::Sources => assert!(v.is_array(), "seed {seed}"),
                    Kind::Name(_) | Kind::Text(_) => assert!(v.is_string(), "seed {seed}"),
                }
            }
            assert!(!has_null_member(&Value::Object(enc.clone())), "seed {seed}: nulls stripped");
            let again = profile(&Value::Object(enc.clone())).unwrap();
            assert_eq!(again, enc, "seed {seed}: encoding an encoded profile changes nothing");
        }
    }

    /// A null member of an object at any depth (array elements may be null).
    fn has_null_member(v: &Value) -> bool {
        match v {
            Value::Object(m) => m.values().any(|v| v.is_null() || has_null_member(v)),
            Value::Array(a) => a.iter().any(has_null_member),
            _ => false,
        }
    }
}
