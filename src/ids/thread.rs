//! Thread ids for LangGraph checkpoints: the COIA entry flows and the CIM /
//! supervisor ids whose deal id drives row-level security.

use uuid::Uuid;

use super::IdError;
use super::uuid5::hyphenated;

/// Longest id segment accepted. Thread ids end up in primary keys and URLs; anything
/// longer than this is a bug upstream, not an id.
pub const MAX_SEGMENT_LEN: usize = 512;

/// Largest timestamp a JS number can carry exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_TIMESTAMP_MS: u64 = (1 << 53) - 1;

/// What LangGraph reads from `config.configurable`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadConfig {
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: Option<String>,
}

string_enum!(
    /// COIA's entry flows, each with its own checkpoint namespace.
    CoiaFlow {
        Chat = "chat",
        Research = "research",
        Intelligence = "intelligence",
        Landing = "landing",
        Bidcard = "bidcard",
    }
);

impl CoiaFlow {
    pub fn parse(name: &str) -> Result<CoiaFlow, IdError> {
        <CoiaFlow as crate::input::Choice>::named(name).ok_or_else(|| IdError::UnknownFlow(name.to_owned()))
    }

    pub const fn namespace(self) -> &'static str {
        match self {
            CoiaFlow::Chat => "coia_chat",
            CoiaFlow::Research => "coia_research",
            CoiaFlow::Intelligence => "coia_intelligence",
            CoiaFlow::Landing => "coia_landing",
            CoiaFlow::Bidcard => "coia_bidcard",
        }
    }

    /// Landing and bid-card visitors may arrive without a lead id; COIA then mints
    /// `landing-{uuid4().hex[:12]}` / `bidcard-{uuid4().hex[:12]}`.
    const fn generated_prefix(self) -> Option<&'static str> {
        match self {
            CoiaFlow::Landing => Some("landing"),
            CoiaFlow::Bidcard => Some("bidcard"),
            _ => None,
        }
    }

    /// `checkpoint_id = f"{prefix}_{thread_id}"`; landing sets none.
    const fn checkpoint_prefix(self) -> Option<&'static str> {
        match self {
            CoiaFlow::Chat => Some("chat"),
            CoiaFlow::Research => Some("research"),
            CoiaFlow::Intelligence => Some("intelligence"),
            CoiaFlow::Landing => None,
            CoiaFlow::Bidcard => Some("bidcard"),
        }
    }
}

/// Checks a caller-supplied id segment: present, bounded, printable.
pub fn check_segment(field: &'static str, value: &str) -> Result<(), IdError> {
    if value.is_empty() {
        return Err(IdError::Empty { field });
    }
    if value.len() > MAX_SEGMENT_LEN {
        return Err(IdError::TooLong { field, max: MAX_SEGMENT_LEN });
    }
    if value.chars().any(char::is_control) {
        return Err(IdError::ControlCharacter { field });
    }
    Ok(())
}

/// `{prefix}-` followed by 12 lowercase hex digits from a fresh random UUID.
fn generated_id(prefix: &str) -> String {
    let mut buf = [0u8; 32];
    let hex = Uuid::new_v4().simple().encode_lower(&mut buf);
    // `get`, not `&hex[..12]`: the slice's char-boundary panic formats its message with
    // `char`'s Debug, which would link Unicode tables into the agentmem/ids module.
    format!("{prefix}-{}", hex.get(..12).unwrap_or_default())
}

/// The LangGraph config COIA uses for an entry flow. `id` is the contractor_lead_id or
/// session id; landing and bidcard mint one when it is absent, the others require it.
pub fn coia_thread(flow: CoiaFlow, id: Option<&str>) -> Result<ThreadConfig, IdError> {
    let thread_id = match (id, flow.generated_prefix()) {
        (Some(id), _) => {
            check_segment("id", id)?;
            id.to_owned()
        }
        (None, Some(prefix)) => generated_id(prefix),
        (None, None) => return Err(IdError::Empty { field: "id" }),
    };
    Ok(ThreadConfig {
        checkpoint_id: flow.checkpoint_prefix().map(|p| format!("{p}_{thread_id}")),
        checkpoint_ns: flow.namespace().to_owned(),
        thread_id,
    })
}

/// Deal ids must be UUIDs, written lowercase: the SQL extractor only matches `[0-9a-f-]`,
/// so an uppercase deal id would silently lock the owner out of their own thread.
fn normalize_deal_id(deal_id: &str) -> Result<String, IdError> {
    Uuid::try_parse(deal_id).map(hyphenated).map_err(|_| IdError::InvalidDealId(deal_id.to_owned()))
}

/// `cim-{dealId}-{cimId}`.
pub fn cim_thread_id(deal_id: &str, cim_id: &str) -> Result<String, IdError> {
    let deal = normalize_deal_id(deal_id)?;
    check_segment("cimId", cim_id)?;
    Ok(format!("cim-{deal}-{cim_id}"))
}

/// `supervisor-{dealId}-{timestampMs}`.
pub fn supervisor_thread_id(deal_id: &str, timestamp_ms: u64) -> Result<String, IdError> {
    let deal = normalize_deal_id(deal_id)?;
    if timestamp_ms > MAX_TIMESTAMP_MS {
        return Err(IdError::InvalidTimestamp);
    }
    Ok(format!("supervisor-{deal}-{timestamp_ms}"))
}

/// A thread id taken apart. Only the exact shapes the builders produce are recognised;
/// anything else is `Other` (COIA chat/research threads are bare session ids).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParsedThreadId {
    Cim {
        deal_id: String,
        cim_id: String,
    },
    Supervisor {
        deal_id: String,
        timestamp_ms: u64,
    },
    /// A minted `landing-{hex12}` lead id.
    Landing {
        token: String,
    },
    /// A minted `bidcard-{hex12}` lead id.
    Bidcard {
        token: String,
    },
    Other,
}

/// A field of a parsed thread id, as the JavaScript object carries it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldValue<'a> {
    Text(&'a str),
    Number(f64),
}

impl ParsedThreadId {
    /// Hands `field` the JavaScript object's fields in the order both entries (main and ids)
    /// build it: `kind`, then the rest, with their camelCase names.
    pub fn js_fields(&self, mut field: impl FnMut(&'static str, FieldValue<'_>)) {
        use FieldValue::{Number, Text};
        match self {
            ParsedThreadId::Cim { deal_id, cim_id } => {
                field("kind", Text("cim"));
                field("dealId", Text(deal_id));
                field("cimId", Text(cim_id));
            }
            ParsedThreadId::Supervisor { deal_id, timestamp_ms } => {
                field("kind", Text("supervisor"));
                field("dealId", Text(deal_id));
                // Exact: parse_thread_id only accepts timestamps up to 2^53-1.
                field("timestampMs", Number(*timestamp_ms as f64));
            }
            ParsedThreadId::Landing { token } => {
                field("kind", Text("landing"));
                field("token", Text(token));
            }
            ParsedThreadId::Bidcard { token } => {
                field("kind", Text("bidcard"));
                field("token", Text(token));
            }
            ParsedThreadId::Other => field("kind", Text("other")),
        }
    }
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Splits `{uuid}-{rest}` where the uuid is canonical lowercase.
fn split_deal(rest: &str) -> Option<(&str, &str)> {
    let deal = rest.get(..36)?;
    let tail = rest.get(36..)?.strip_prefix('-')?;
    let canonical = hyphenated(Uuid::try_parse(deal).ok()?);
    (canonical == deal && !tail.is_empty()).then_some((deal, tail))
}

pub fn parse_thread_id(id: &str) -> ParsedThreadId {
    if let Some((deal, cim)) = id.strip_prefix("cim-").and_then(split_deal) {
        return ParsedThreadId::Cim { deal_id: deal.into(), cim_id: cim.into() };
    }
    if let Some((deal, ts)) = id.strip_prefix("supervisor-").and_then(split_deal) {
        let canonical_number = ts.bytes().all(|b| b.is_ascii_digit()) && (ts == "0" || !ts.starts_with('0'));
        if let Some(ms) = ts.parse::<u64>().ok().filter(|ms| canonical_number && *ms <= MAX_TIMESTAMP_MS) {
            return ParsedThreadId::Supervisor { deal_id: deal.into(), timestamp_ms: ms };
        }
    }
    let minted = |prefix: &str| {
        id.strip_prefix(prefix).filter(|token| token.len() == 12 && is_lower_hex(token)).map(str::to_owned)
    };
    if let Some(token) = minted("landing-") {
        return ParsedThreadId::Landing { token };
    }
    if let Some(token) = minted("bidcard-") {
        return ParsedThreadId::Bidcard { token };
    }
    ParsedThreadId::Other
}

/// Exactly what the SQL function `extract_deal_id_from_thread` returns:
/// `(regexp_match(thread_id, '^(?:cim|supervisor)-([0-9a-f-]{36})'))[1]::UUID`, with any
/// cast failure turned into NULL. Consequences worth knowing: uppercase hex never matches
/// (NULL), 36 dashes match the regex but fail the cast (NULL), and hyphens may sit after
/// any group of four hex digits because Postgres' uuid input accepts that.
pub fn extract_deal_id(thread_id: &str) -> Option<String> {
    let rest = thread_id.strip_prefix("cim-").or_else(|| thread_id.strip_prefix("supervisor-"))?;
    let candidate = rest.as_bytes().get(..36)?;
    if !candidate.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b) || *b == b'-') {
        return None;
    }
    postgres_uuid_in(candidate).map(|bytes| hyphenated(Uuid::from_bytes(bytes)))
}

/// Postgres' `string_to_uuid` (src/backend/utils/adt/uuid.c): optional braces, 32 hex
/// digits in pairs, an optional single hyphen after every second pair except the last.
fn postgres_uuid_in(src: &[u8]) -> Option<[u8; 16]> {
    let mut pos = 0;
    let braces = src.first() == Some(&b'{');
    if braces {
        pos = 1;
    }
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        let pair = src.get(pos..pos + 2)?;
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        *byte = (hi * 16 + lo) as u8;
        pos += 2;
        if src.get(pos) == Some(&b'-') && i % 2 == 1 && i < 15 {
            pos += 1;
        }
    }
    if braces {
        if src.get(pos) != Some(&b'}') {
            return None;
        }
        pos += 1;
    }
    (pos == src.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEAL: &str = "3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b";

    #[test]
    fn coia_flows_match_spec_000() {
        let chat = coia_thread(CoiaFlow::Chat, Some("lead-1")).unwrap();
        assert_eq!(
            chat,
            ThreadConfig {
                thread_id: "lead-1".into(),
                checkpoint_ns: "coia_chat".into(),
                checkpoint_id: Some("chat_lead-1".into())
            }
        );
        let research = coia_thread(CoiaFlow::Research, Some("s1")).unwrap();
        assert_eq!(
            (research.checkpoint_ns.as_str(), research.checkpoint_id.as_deref()),
            ("coia_research", Some("research_s1"))
        );
        let intel = coia_thread(CoiaFlow::Intelligence, Some("s1")).unwrap();
        assert_eq!(
            (intel.checkpoint_ns.as_str(), intel.checkpoint_id.as_deref()),
            ("coia_intelligence", Some("intelligence_s1"))
        );
        let landing = coia_thread(CoiaFlow::Landing, Some("landing-abc")).unwrap();
        assert_eq!((landing.checkpoint_ns.as_str(), landing.checkpoint_id), ("coia_landing", None));
        let bid = coia_thread(CoiaFlow::Bidcard, Some("x")).unwrap();
        assert_eq!((bid.checkpoint_ns.as_str(), bid.checkpoint_id.as_deref()), ("coia_bidcard", Some("bidcard_x")));
    }

    #[test]
    fn landing_and_bidcard_mint_ids_the_others_require_one() {
        for (flow, kind) in [(CoiaFlow::Landing, "landing"), (CoiaFlow::Bidcard, "bidcard")] {
            let a = coia_thread(flow, None).unwrap();
            let b = coia_thread(flow, None).unwrap();
            assert_ne!(a.thread_id, b.thread_id, "minted ids must be random");
            let parsed = parse_thread_id(&a.thread_id);
            match (kind, parsed) {
                ("landing", ParsedThreadId::Landing { token }) | ("bidcard", ParsedThreadId::Bidcard { token }) => {
                    assert_eq!(a.thread_id, format!("{kind}-{token}"))
                }
                (_, other) => panic!("{kind}: {other:?}"),
            }
            if flow == CoiaFlow::Bidcard {
                assert_eq!(a.checkpoint_id, Some(format!("bidcard_{}", a.thread_id)));
            }
        }
        for flow in [CoiaFlow::Chat, CoiaFlow::Research, CoiaFlow::Intelligence] {
            assert_eq!(coia_thread(flow, None), Err(IdError::Empty { field: "id" }));
        }
    }

    #[test]
    fn flow_names_round_trip_and_unknown_is_rejected() {
        for &flow in CoiaFlow::ALL {
            assert_eq!(CoiaFlow::parse(flow.as_str()), Ok(flow));
        }
        assert_eq!(CoiaFlow::parse("Chat"), Err(IdError::UnknownFlow("Chat".into())));
    }

    #[test]
    fn segments_are_validated() {
        assert_eq!(coia_thread(CoiaFlow::Chat, Some("")), Err(IdError::Empty { field: "id" }));
        assert_eq!(coia_thread(CoiaFlow::Chat, Some("a\u{0}b")), Err(IdError::ControlCharacter { field: "id" }));
        assert_eq!(coia_thread(CoiaFlow::Chat, Some("a\nb")), Err(IdError::ControlCharacter { field: "id" }));
        let long = "x".repeat(MAX_SEGMENT_LEN + 1);
        assert_eq!(
            coia_thread(CoiaFlow::Chat, Some(&long)),
            Err(IdError::TooLong { field: "id", max: MAX_SEGMENT_LEN })
        );
        assert!(coia_thread(CoiaFlow::Chat, Some(&long[1..])).is_ok());
        assert!(coia_thread(CoiaFlow::Chat, Some("ünïcødé 🚀")).is_ok());
    }

    #[test]
    fn cim_and_supervisor_ids_round_trip_through_parse_and_extract() {
        let cim = cim_thread_id(DEAL, "draft-7").unwrap();
        assert_eq!(cim, format!("cim-{DEAL}-draft-7"));
        assert_eq!(parse_thread_id(&cim), ParsedThreadId::Cim { deal_id: DEAL.into(), cim_id: "draft-7".into() });
        assert_eq!(extract_deal_id(&cim).as_deref(), Some(DEAL));

        let sup = supervisor_thread_id(DEAL, 1_704_067_200_000).unwrap();
        assert_eq!(sup, format!("supervisor-{DEAL}-1704067200000"));
        assert_eq!(
            parse_thread_id(&sup),
            ParsedThreadId::Supervisor { deal_id: DEAL.into(), timestamp_ms: 1_704_067_200_000 }
        );
        assert_eq!(extract_deal_id(&sup).as_deref(), Some(DEAL));
    }

    #[test]
    fn deal_ids_are_normalised_to_what_sql_can_read() {
        let upper = DEAL.to_uppercase();
        assert_eq!(cim_thread_id(&upper, "c").unwrap(), format!("cim-{DEAL}-c"));
        assert_eq!(cim_thread_id(&DEAL.replace('-', ""), "c").unwrap(), format!("cim-{DEAL}-c"));
        assert_eq!(cim_thread_id("abc123", "c"), Err(IdError::InvalidDealId("abc123".into())));
        assert_eq!(cim_thread_id(DEAL, ""), Err(IdError::Empty { field: "cimId" }));
        assert_eq!(supervisor_thread_id(DEAL, MAX_TIMESTAMP_MS + 1), Err(IdError::InvalidTimestamp));
        assert!(supervisor_thread_id(DEAL, MAX_TIMESTAMP_MS).is_ok());
    }

    #[test]
    fn parse_is_strict_about_shapes() {
        for other in [
            "",
            "cim-abc123-def456",
            &format!("cim-{}-x", DEAL.to_uppercase()),
            &format!("cim-{DEAL}-"),
            &format!("cim-{DEAL}"),
            &format!("supervisor-{DEAL}-12a"),
            &format!("supervisor-{DEAL}-0123"),
            &format!("supervisor-{DEAL}-99999999999999999999"),
            "landing-abc123def45",
            "landing-ABC123DEF456",
            "bidcard-abc123def4567",
            "session-42",
        ] {
            assert_eq!(parse_thread_id(other), ParsedThreadId::Other, "{other:?}");
        }
    }

    #[test]
    fn extract_matches_postgres_semantics() {
        let cases: &[(&str, Option<&str>)] = &[
            (&format!("cim-{DEAL}-x"), Some(DEAL)),
            (&format!("cim-{DEAL}"), Some(DEAL)),
            (&format!("supervisor-{DEAL}-1"), Some(DEAL)),
            // Uppercase hex is outside [0-9a-f-]: no match.
            (&format!("cim-{}-x", DEAL.to_uppercase()), None),
            ("CIM-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b-x", None),
            (" cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b-x", None),
            // 36 dashes match the regex; the uuid cast fails.
            (&format!("cim-{}", "-".repeat(36)), None),
            // Hyphens after any 4-digit group are legal uuid input.
            ("cim-3f2b-8a9e-1c4d-4e5f-9a0b1c2d3e4f5a6b", Some(DEAL)),
            ("cim-3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b----", None),
            // 32 hex digits then more of the class: the capture is 36 chars wide and too long.
            ("cim-3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b-abc", None),
            // Fewer than 36 matching characters: no match.
            ("cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6", None),
            ("cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6g", None),
            // Leading/doubled hyphens are rejected by the cast.
            ("cim--3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6", None),
            ("cim-3f2b--8a9e1c4d-4e5f-9a0b-1c2d3e4f5a6b", None),
            ("supervisorx-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", None),
            ("deal-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b", None),
            ("", None),
        ];
        for (input, expected) in cases {
            assert_eq!(extract_deal_id(input).as_deref(), *expected, "{input:?}");
        }
    }

    #[test]
    fn postgres_uuid_input_rules() {
        assert!(postgres_uuid_in(b"{3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b}").is_some());
        assert!(postgres_uuid_in(b"{3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b").is_none());
        assert!(postgres_uuid_in(b"3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b").is_some());
        assert!(postgres_uuid_in(b"3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b-").is_none());
        assert!(postgres_uuid_in(b"3f2-b8a9e1c4d4e5f9a0b1c2d3e4f5a6b").is_none());
    }
}
