#![cfg(not(target_arch = "wasm32"))]
//! UUIDv5 against a live CPython: names generated here, hashed by `uuid.uuid5` there.

use std::io::Write;
use std::process::{Command, Stdio};

use agentmem::ids::{parse_namespace, uuid5};

/// xorshift64*: deterministic, so a failure names a reproducible input.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A scalar value from a plane chosen to hit every UTF-8 length.
    fn char(&mut self) -> char {
        let ranges: [(u32, u32); 6] =
            [(0x20, 0x7e), (0x00, 0x1f), (0x80, 0x7ff), (0x800, 0xd7ff), (0xe000, 0xfffd), (0x1_0000, 0x10_ffff)];
        let (lo, hi) = ranges[self.below(ranges.len() as u64) as usize];
        char::from_u32(lo + self.below((hi - lo + 1) as u64) as u32).expect("ranges exclude surrogates")
    }
    fn string(&mut self, max_chars: u64) -> String {
        let n = self.below(max_chars + 1);
        (0..n).map(|_| self.char()).collect()
    }
}

fn names() -> Vec<String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut names: Vec<String> = vec![
        String::new(),
        "python.org".into(),
        "landing-abc123def456".into(),
        "\u{0}".into(),
        "😀".into(),
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and combining e\u{301}".into(),
        "x".repeat(10 * 1024),
        "€".repeat(10 * 1024 / 3),
        "🚀".repeat(2600),
    ];
    names.extend((0..400).map(|_| rng.string(40)));
    names.extend((0..8).map(|_| rng.string(4000)));
    names
}

#[test]
fn uuid5_equals_cpython_for_generated_names() {
    let names = names();
    let namespaces =
        ["dns", "url", "oid", "x500", "00000000-0000-0000-0000-000000000001", "d9b2d63d-a233-4123-847a-76838bf2413a"];
    let python_ns = |ns: &str| match ns {
        "dns" => "uuid.NAMESPACE_DNS".to_string(),
        "url" => "uuid.NAMESPACE_URL".to_string(),
        "oid" => "uuid.NAMESPACE_OID".to_string(),
        "x500" => "uuid.NAMESPACE_X500".to_string(),
        other => format!("uuid.UUID({other:?})"),
    };
    let script = format!(
        "import json, sys, uuid\nnames = json.load(sys.stdin)\nfor ns in [{}]:\n    for n in names:\n        print(uuid.uuid5(ns, n))\n",
        namespaces.iter().map(|ns| python_ns(ns)).collect::<Vec<_>>().join(", ")
    );
    let mut child = Command::new(std::env::var("PYTHON").unwrap_or_else(|_| "python3".into()))
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is part of the machine image; set PYTHON to point elsewhere");
    child.stdin.take().unwrap().write_all(serde_json::to_string(&names).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python failed");
    let python: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();

    let ours: Vec<String> = namespaces
        .iter()
        .flat_map(|ns| {
            let ns = parse_namespace(ns).unwrap();
            names.iter().map(move |n| uuid5(n, &ns))
        })
        .collect();
    assert_eq!(python.len(), ours.len());
    for (i, (p, o)) in python.iter().zip(&ours).enumerate() {
        assert_eq!(
            p,
            o,
            "name #{} ({:?}...)",
            i % names.len(),
            names[i % names.len()].chars().take(20).collect::<String>()
        );
    }
}
