//! The crate's one deterministic generator for generated tests: a seeded xorshift64*
//! stream and helpers that build the values the codecs take (text with astral and combining
//! characters, whole and fractional numbers, nested JSON). Same seed, same cases, so a
//! failure names a seed that reproduces it.

use serde_json::{Map, Value, json};

pub struct Gen(u64);

const ALPHABET: &[&str] = &["a", "Z", "0", " ", "é", "ß", "漢", "😀", "\u{301}", "\"", "\\", "\n", "{", "-", "_", "."];

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 0..n
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    pub fn text(&mut self, max_len: usize) -> String {
        self.text_of(ALPHABET, max_len)
    }

    /// Up to `max_len` pieces of `pieces`.
    pub fn text_of(&mut self, pieces: &[&str], max_len: usize) -> String {
        (0..self.below(max_len + 1)).map(|_| self.pick(pieces)).collect()
    }

    /// Non-empty (after trimming) text.
    pub fn word(&mut self, max_len: usize) -> String {
        format!("w{}", self.text(max_len.saturating_sub(1)))
    }

    pub fn ms(&mut self) -> i64 {
        (self.next() % 4_102_444_800_000) as i64 // up to 2100-01-01
    }

    pub fn texts(&mut self, max: usize) -> Vec<String> {
        (0..self.below(max + 1)).map(|_| self.text(12)).collect()
    }

    pub fn number(&mut self) -> Value {
        match self.below(4) {
            0 => json!(self.next() as i64 % 1_000_000),
            1 => json!((self.next() % 1_000_000) as f64 / 64.0),
            2 => json!(-((self.next() % 1000) as i64)),
            _ => json!(0),
        }
    }

    /// Any JSON value, nested up to `depth`.
    pub fn value(&mut self, depth: usize) -> Value {
        let kinds = if depth == 0 { 4 } else { 6 };
        match self.below(kinds) {
            0 => Value::Null,
            1 => Value::Bool(self.chance(50)),
            2 => self.number(),
            3 => Value::String(self.text(10)),
            4 => Value::Array((0..self.below(4)).map(|_| self.value(depth - 1)).collect()),
            _ => Value::Object(self.object(depth - 1)),
        }
    }

    pub fn object(&mut self, depth: usize) -> Map<String, Value> {
        (0..self.below(4)).map(|_| (self.text(6), self.value(depth))).collect()
    }
}

#[test]
fn same_seed_same_values() {
    let a: Vec<Value> = (0..20)
        .map({
            let mut g = Gen::new(7);
            move |_| g.value(3)
        })
        .collect();
    let b: Vec<Value> = (0..20)
        .map({
            let mut g = Gen::new(7);
            move |_| g.value(3)
        })
        .collect();
    assert_eq!(a, b);
    assert_ne!(
        a,
        (0..20)
            .map({
                let mut g = Gen::new(8);
                move |_| g.value(3)
            })
            .collect::<Vec<_>>()
    );
}
