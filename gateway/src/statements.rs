//! Each connection's prepared statements. Statement texts vary with the literals a URL
//! inlines, so only a text seen before is prepared (a one-off costs no more than before),
//! and at most `CAPACITY` stay prepared, the least recently used going first (dropping a
//! tokio-postgres `Statement` closes it on the server).

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use tokio_postgres::Statement;

const CAPACITY: usize = 256;
/// Texts remembered as seen once; forgotten all at once when full, which at worst delays
/// preparing a text by one more sighting.
const SEEN_CAPACITY: usize = 4096;

/// How one statement of a request is sent.
pub enum Plan<S = Statement> {
    /// Bind and execute the connection's prepared statement.
    Cached(S),
    /// Prepare it (for the next request) and execute it unnamed, in the same pipeline.
    Prepare,
    /// Execute it unnamed only: the text was not seen before.
    Unnamed,
}

/// Generic over what is kept so the eviction rules can be tested without a connection.
pub struct Statements<S = Statement> {
    prepared: HashMap<String, (S, u64)>,
    seen: HashSet<u64>,
    clock: u64,
}

impl<S> Default for Statements<S> {
    fn default() -> Self {
        Statements { prepared: HashMap::new(), seen: HashSet::new(), clock: 0 }
    }
}

impl<S: Clone> Statements<S> {
    pub fn plan(&mut self, text: &str) -> Plan<S> {
        self.clock += 1;
        if let Some((statement, used)) = self.prepared.get_mut(text) {
            *used = self.clock;
            return Plan::Cached(statement.clone());
        }
        if self.seen.len() >= SEEN_CAPACITY {
            self.seen.clear();
        }
        if self.seen.insert(fingerprint(text)) { Plan::Unnamed } else { Plan::Prepare }
    }

    pub fn keep(&mut self, text: &str, statement: S) {
        self.clock += 1;
        if self.prepared.len() >= CAPACITY && !self.prepared.contains_key(text) {
            let oldest = self.prepared.iter().min_by_key(|(_, (_, used))| *used).map(|(t, _)| t.clone());
            if let Some(t) = oldest {
                self.prepared.remove(&t);
            }
        }
        self.prepared.insert(text.to_owned(), (statement, self.clock));
    }

    /// After a schema reload: plans made against the old schema are re-prepared rather
    /// than trusted.
    pub fn clear(&mut self) {
        self.prepared.clear();
    }
}

fn fingerprint(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(p: Plan<u32>) -> String {
        match p {
            Plan::Cached(n) => format!("cached {n}"),
            Plan::Prepare => "prepare".into(),
            Plan::Unnamed => "unnamed".into(),
        }
    }

    #[test]
    fn a_text_is_prepared_on_its_second_sighting_and_then_reused() {
        let mut s = Statements::<u32>::default();
        assert_eq!(kind(s.plan("a")), "unnamed");
        assert_eq!(kind(s.plan("a")), "prepare");
        s.keep("a", 1);
        assert_eq!(kind(s.plan("a")), "cached 1");
        s.clear();
        assert_eq!(kind(s.plan("a")), "prepare", "a reload forgets the plan, not the sighting");
    }

    #[test]
    fn the_least_recently_used_statement_goes_first() {
        let mut s = Statements::<u32>::default();
        for i in 0..CAPACITY as u32 {
            s.keep(&i.to_string(), i);
        }
        assert_eq!(kind(s.plan("0")), "cached 0");
        s.keep("new", 999);
        assert_eq!(s.prepared.len(), CAPACITY);
        assert_eq!(kind(s.plan("0")), "cached 0");
        assert_eq!(kind(s.plan("new")), "cached 999");
        assert!(!s.prepared.contains_key("1"));
    }
}
