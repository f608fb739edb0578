//! Fault injection for tests: answer 5xx, delay, or drop the connection (before the
//! request touches the database, or after its transaction committed) for chosen requests.
//! Deterministic: rules match by method/path and fire by count (`nth`, `every`) or by a
//! seeded pseudo-random `rate`, and every rule has a bound (`times`).

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultAction {
    /// Respond with `status` (and the PostgREST/Postgres `code`, PGRST000 by default)
    /// without running anything.
    Status,
    /// Sleep `delay_ms`, then handle the request normally.
    Delay,
    /// Close the connection without a response; nothing ran.
    DropBefore,
    /// Run and commit the request, then close the connection without a response: the
    /// client cannot tell whether its write happened (the case retries must survive).
    DropAfter,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FaultRule {
    pub action: FaultAction,
    /// HTTP method to match (any when absent).
    pub method: Option<String>,
    /// Substring of the path to match (any when absent).
    pub path: Option<String>,
    #[serde(default = "default_status")]
    pub status: u16,
    /// The `code` of the error body of a `status` fault, e.g. "57P01" as PostgREST
    /// reports a Postgres shutdown.
    pub code: Option<String>,
    #[serde(default)]
    pub delay_ms: u64,
    /// Fire on these 1-based occurrences of a matching request.
    pub nth: Option<Vec<u64>>,
    /// Fire on every k-th matching request.
    pub every: Option<u64>,
    /// Fire with this probability, drawn from a generator seeded by `seed`.
    pub rate: Option<f64>,
    #[serde(default)]
    pub seed: u64,
    /// Stop after firing this many times (unbounded when absent and `nth` is absent).
    pub times: Option<u64>,
    #[serde(skip)]
    seen: u64,
    #[serde(skip)]
    fired: u64,
    #[serde(skip)]
    rng: u64,
}

fn default_status() -> u16 {
    503
}

impl FaultRule {
    fn matches(&self, method: &str, path: &str) -> bool {
        self.method.as_deref().is_none_or(|m| m.eq_ignore_ascii_case(method))
            && self.path.as_deref().is_none_or(|p| path.contains(p))
    }

    fn next_random(&mut self) -> f64 {
        if self.rng == 0 {
            self.rng = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        }
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Counts a matching request and says whether the rule fires for it.
    fn fire(&mut self) -> bool {
        self.seen += 1;
        if self.times.is_some_and(|t| self.fired >= t) {
            return false;
        }
        let hit = if let Some(nth) = &self.nth {
            nth.contains(&self.seen)
        } else if let Some(k) = self.every {
            k > 0 && self.seen.is_multiple_of(k)
        } else if let Some(rate) = self.rate {
            self.next_random() < rate
        } else {
            true
        };
        if hit {
            self.fired += 1;
        }
        hit
    }
}

#[derive(Debug, Default)]
pub struct Faults {
    rules: Vec<FaultRule>,
}

/// What to do with one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    pub delay_ms: u64,
    pub status: Option<u16>,
    pub code: Option<String>,
    pub drop_before: bool,
    pub drop_after: bool,
}

impl Faults {
    pub fn set(&mut self, rules: Vec<FaultRule>) {
        self.rules = rules;
    }

    pub fn decide(&mut self, method: &str, path: &str) -> Decision {
        let mut d = Decision::default();
        for rule in self.rules.iter_mut().filter(|r| r.matches(method, path)) {
            if rule.fire() {
                match rule.action {
                    FaultAction::Delay => d.delay_ms += rule.delay_ms,
                    FaultAction::Status if d.status.is_none() => {
                        d.status = Some(rule.status);
                        d.code = rule.code.clone();
                    }
                    FaultAction::Status => {}
                    FaultAction::DropBefore => d.drop_before = true,
                    FaultAction::DropAfter => d.drop_after = true,
                }
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(json: &str) -> Faults {
        let mut f = Faults::default();
        f.set(serde_json::from_str(json).unwrap());
        f
    }

    #[test]
    fn nth_and_method_path_matching() {
        let mut f = rules(r#"[{"action":"drop_after","method":"POST","path":"/rpc/put","nth":[2]}]"#);
        assert_eq!(f.decide("POST", "/rest/v1/rpc/put"), Decision::default());
        assert_eq!(f.decide("GET", "/rest/v1/rpc/put"), Decision::default());
        assert!(f.decide("POST", "/rest/v1/rpc/put").drop_after);
        assert_eq!(f.decide("POST", "/rest/v1/rpc/put"), Decision::default());
    }

    #[test]
    fn every_with_bound() {
        let mut f = rules(r#"[{"action":"status","status":502,"every":2,"times":2}]"#);
        let fired: Vec<_> = (0..8).map(|_| f.decide("GET", "/x").status).collect();
        assert_eq!(fired, [None, Some(502), None, Some(502), None, None, None, None]);
    }

    #[test]
    fn status_faults_carry_a_code() {
        let mut f = rules(r#"[{"action":"status","status":500,"code":"57P01","times":1},{"action":"status"}]"#);
        let d = f.decide("GET", "/x");
        assert_eq!((d.status, d.code.as_deref()), (Some(500), Some("57P01")));
        let d = f.decide("GET", "/x");
        assert_eq!((d.status, d.code), (Some(503), None));
    }

    #[test]
    fn seeded_rate_is_deterministic_and_roughly_right() {
        let run = || {
            let mut f = rules(r#"[{"action":"drop_before","rate":0.3,"seed":7}]"#);
            (0..1000).map(|_| f.decide("GET", "/x").drop_before).collect::<Vec<_>>()
        };
        let a = run();
        assert_eq!(a, run());
        let hits = a.iter().filter(|h| **h).count();
        assert!((220..380).contains(&hits), "{hits}");
    }
}
