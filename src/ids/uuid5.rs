//! Name-based UUIDs (RFC 9562 version 5), byte-identical to Python's `uuid.uuid5`.
//!
//! Python hashes `namespace.bytes + name.encode("utf-8")` with SHA-1 and stamps version 5
//! and the RFC 4122 variant; the `uuid` crate does exactly the same for the same bytes, so
//! equality reduces to feeding it the UTF-8 of the same Unicode text. Strings that are not
//! valid Unicode (lone UTF-16 surrogates from JS) make Python raise; the boundary rejects
//! them too instead of silently hashing U+FFFD.

use uuid::Uuid;

use super::IdError;

/// The namespace COIA's `UnifiedStateManager` uses to turn a contractor_lead_id into the
/// `conversation_id` of `unified_conversation_memory`:
/// `uuid.uuid5(uuid.UUID("00000000-0000-0000-0000-000000000001"), contractor_lead_id)`.
pub const COIA_CONVERSATION_NAMESPACE: Uuid = Uuid::from_u128(1);

/// Resolves a namespace given as a UUID string or one of RFC 9562's well-known names
/// (`dns`, `url`, `oid`, `x500`, as in Python's `uuid.NAMESPACE_*`).
pub fn parse_namespace(namespace: &str) -> Result<Uuid, IdError> {
    match namespace {
        "dns" => Ok(Uuid::NAMESPACE_DNS),
        "url" => Ok(Uuid::NAMESPACE_URL),
        "oid" => Ok(Uuid::NAMESPACE_OID),
        "x500" => Ok(Uuid::NAMESPACE_X500),
        other => Uuid::try_parse(other).map_err(|_| IdError::InvalidNamespace(other.to_owned())),
    }
}

/// `uuid.uuid5(namespace, name)`, as the canonical lowercase hyphenated string.
pub fn uuid5(name: &str, namespace: &Uuid) -> String {
    hyphenated(Uuid::new_v5(namespace, name.as_bytes()))
}

/// The canonical lowercase hyphenated form. Encoded into a buffer rather than through
/// `Display`, which goes through the formatting machinery for 36 known-ASCII bytes.
pub(crate) fn hyphenated(uuid: Uuid) -> String {
    uuid.hyphenated().encode_lower(&mut Uuid::encode_buffer()).to_owned()
}

/// The COIA conversation id for a contractor lead.
pub fn conversation_id(contractor_lead_id: &str, namespace: Option<&Uuid>) -> Result<String, IdError> {
    if contractor_lead_id.is_empty() {
        return Err(IdError::Empty { field: "contractorLeadId" });
    }
    Ok(uuid5(contractor_lead_id, namespace.unwrap_or(&COIA_CONVERSATION_NAMESPACE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_namespaces_match_python_constants() {
        assert_eq!(parse_namespace("dns").unwrap().to_string(), "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
        assert_eq!(parse_namespace("url").unwrap().to_string(), "6ba7b811-9dad-11d1-80b4-00c04fd430c8");
        assert_eq!(parse_namespace("oid").unwrap().to_string(), "6ba7b812-9dad-11d1-80b4-00c04fd430c8");
        assert_eq!(parse_namespace("x500").unwrap().to_string(), "6ba7b814-9dad-11d1-80b4-00c04fd430c8");
    }

    #[test]
    fn namespace_accepts_uuid_spellings_and_rejects_others() {
        let canonical = parse_namespace("6ba7b810-9dad-11d1-80b4-00c04fd430c8").unwrap();
        for spelling in [
            "6BA7B810-9DAD-11D1-80B4-00C04FD430C8",
            "6ba7b8109dad11d180b400c04fd430c8",
            "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
            "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        ] {
            assert_eq!(parse_namespace(spelling).unwrap(), canonical, "{spelling}");
        }
        for bad in [
            "",
            "DNS",
            "dns ",
            "6ba7b810-9dad-11d1-80b4-00c04fd430c",
            "not-a-uuid",
            "6ba7b810-9dad-11d1-80b4-00c04fd430cg",
        ] {
            assert_eq!(parse_namespace(bad), Err(IdError::InvalidNamespace(bad.into())), "{bad:?}");
        }
    }

    // Fixed vectors computed with CPython 3.11 `uuid.uuid5`; the generated comparison
    // against a live Python runs in tests/python_uuid5.rs.
    #[test]
    fn known_python_vectors() {
        assert_eq!(uuid5("python.org", &Uuid::NAMESPACE_DNS), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
        assert_eq!(uuid5("", &Uuid::NAMESPACE_DNS), "4ebd0208-8328-5d69-8c44-ec50939c0967");
        assert_eq!(conversation_id("landing-abc123def456", None).unwrap(), "1636806e-18db-5536-b0d9-dcd21dd1699b");
    }

    #[test]
    fn conversation_id_rejects_empty_lead() {
        assert_eq!(conversation_id("", None), Err(IdError::Empty { field: "contractorLeadId" }));
    }
}
