//! Lossless round trips on generated inputs: a thread of checkpoints is written through
//! `put_args` / `put_writes_args` into a model of the SQL's tables (blobs insert-once per
//! channel version, writes insert-once or upserted when all special), read back as the
//! rows `langgraph_tuple_json` builds, and decoded. Every value, the checkpoint, the
//! metadata (minus U+0000) and the pending writes must come back exactly.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::*;
use crate::testgen::Gen;

/// Text with what JSON and Postgres treat specially: quotes, backslashes, astral
/// characters, U+0000 (which jsonb cannot hold) and U+FFFF.
const PIECES: [&str; 12] = ["a", "Z", "0", "~", " ", "\"", "\\", "é", "😀", "\u{0}", "\u{FFFF}", "𝄞x"];

fn string(g: &mut Gen, max: usize) -> String {
    g.text_of(&PIECES, max)
}

fn bytes(g: &mut Gen) -> Vec<u8> {
    let len = [0, 1, 2, 3, 64, 1000][g.below(6)];
    (0..len).map(|_| g.next() as u8).collect()
}

/// Any JSON value, numbers of every size included.
fn json(g: &mut Gen, depth: usize) -> Value {
    match g.below(if depth == 0 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(g.chance(50)),
        2 => match g.below(3) {
            0 => json!(g.next() as i64),
            1 => json!(g.below(1000)),
            _ => json!((g.next() % 1_000_000) as f64 / 7.0),
        },
        3 => json!(string(g, 6)),
        4 => Value::Array((0..g.below(4)).map(|_| json(g, depth - 1)).collect()),
        _ => Value::Object((0..g.below(4)).map(|_| (string(g, 4), json(g, depth - 1))).collect()),
    }
}

fn typed(g: &mut Gen) -> TypedBytes {
    // JSON text (sent as text) as well as arbitrary bytes of either type (base64).
    if g.chance(30) {
        let text = serde_json::to_vec(&json(g, 3)).unwrap();
        return TypedBytes { type_: "json".into(), bytes: text };
    }
    TypedBytes { type_: if g.chance(50) { "json" } else { "bytes" }.into(), bytes: bytes(g) }
}

/// `(channel, value)` pairs of one `putWrites` call.
type Writes = Vec<(String, TypedBytes)>;

/// The SQL tables of one thread and namespace.
#[derive(Default)]
struct Db {
    blobs: BTreeMap<(String, String), BlobArg>,
    checkpoints: BTreeMap<String, PutArgs>,
    /// (checkpoint_id, task_id, idx) → (task_path, write)
    writes: BTreeMap<(String, String, i64), (String, WriteArg)>,
}

impl Db {
    fn put(&mut self, args: PutArgs) {
        for b in &args.p_blobs {
            self.blobs.entry((b.channel.clone(), b.version.clone())).or_insert_with(|| b.clone());
        }
        self.checkpoints.insert(args.p_checkpoint_id.clone(), args);
    }

    fn put_writes(&mut self, args: PutWritesArgs) {
        let all_special = args.p_writes.iter().all(|w| special_write_idx(&w.channel).is_some());
        for w in args.p_writes {
            let key = (args.p_checkpoint_id.clone(), args.p_task_id.clone(), w.idx);
            if all_special || !self.writes.contains_key(&key) {
                self.writes.insert(key, (args.p_task_path.clone(), w));
            }
        }
    }

    /// What `langgraph_tuple_json` returns for a checkpoint.
    fn row(&self, id: &str) -> Value {
        let c = &self.checkpoints[id];
        let versions = c.p_checkpoint.get("channel_versions").and_then(Value::as_object).cloned().unwrap_or_default();
        let blobs: Vec<Value> = versions
            .iter()
            .filter_map(|(ch, v)| {
                let text = v.as_str().map_or_else(|| version_text_of(v), str::to_owned);
                self.blobs.get(&(ch.clone(), text)).map(|b| match &b.text {
                    Some(t) => json!({"channel": b.channel, "version": b.version, "type": b.type_, "text": t}),
                    None => json!({"channel": b.channel, "version": b.version, "type": b.type_, "blob": b.blob}),
                })
            })
            .collect();
        // ORDER BY task_path, task_id, idx (collation "C": byte order).
        let mut rows: Vec<_> = self.writes.iter().filter(|((cid, _, _), _)| cid == id).collect();
        rows.sort_by(|((_, ta, ia), (pa, _)), ((_, tb, ib), (pb, _))| (pa, ta, ia).cmp(&(pb, tb, ib)));
        let writes: Vec<Value> = rows
            .into_iter()
            // agentmem.langgraph_write: [task_id, channel, type, text, blob, task_path].
            .map(|((_, task, _), (path, w))| {
                json!([task, w.channel, w.type_, w.text, w.text.is_none().then_some(&w.blob), path])
            })
            .collect();
        json!({
            "thread_id": c.p_thread_id, "checkpoint_ns": c.p_checkpoint_ns, "checkpoint_id": c.p_checkpoint_id,
            "parent_checkpoint_id": c.p_parent_checkpoint_id, "type": c.p_type,
            "checkpoint": c.p_checkpoint, "metadata": c.p_metadata,
            "blobs": blobs, "writes": writes, "pending_sends": [],
        })
    }
}

/// Postgres' text for a jsonb number, via the same rule `put_args` uses for versions.
fn version_text_of(v: &Value) -> String {
    let checkpoint = json!({"id": "c", "channel_versions": {"x": v}});
    let args = put_args(&json!({"thread_id": "t"}), &checkpoint, &json!({"x": v}), vec![], meta(&json!({})))
        .expect("a numeric version");
    args.p_blobs[0].version.clone()
}

/// A value as it comes back: text when it was sent as text, bytes otherwise.
fn stored(v: &TypedBytes) -> TypedValue {
    let data = match v.as_text() {
        Some(t) => Payload::Text(t.to_owned()),
        None => Payload::Bytes(v.bytes.clone()),
    };
    TypedValue { type_: v.type_.clone(), data }
}

fn meta(v: &Value) -> TypedBytes {
    TypedBytes { type_: "json".into(), bytes: serde_json::to_vec(v).unwrap() }
}

#[test]
fn generated_threads_round_trip_losslessly() {
    for seed in 1..=60u64 {
        let mut rng = Gen::new(seed);
        let thread = string(&mut rng, 8).replace('\0', "") + "t";
        let ns = if rng.chance(50) { String::new() } else { string(&mut rng, 5) };
        let channels: Vec<String> = (0..1 + rng.below(5)).map(|i| format!("{}{i}", string(&mut rng, 4))).collect();

        let mut db = Db::default();
        // The model of LangGraph's state: each channel's current version and value.
        let mut current: BTreeMap<String, (Value, Option<TypedBytes>)> = BTreeMap::new();
        let mut expected = Vec::new();
        let mut parent: Option<String> = None;
        for step in 0..1 + rng.below(5) {
            let id = format!("1ef{seed:04}-{step:04}");
            let mut new_versions = Map::new();
            for ch in &channels {
                if rng.chance(50) {
                    let version =
                        if rng.chance(70) { json!(step + 1) } else { json!(format!("{:032}.{step}", step + 1)) };
                    let value = if rng.chance(85) { Some(typed(&mut rng)) } else { None };
                    current.insert(ch.clone(), (version.clone(), value));
                    new_versions.insert(ch.clone(), version);
                }
            }
            let channel_versions: Map<String, Value> =
                current.iter().map(|(c, (v, _))| (c.clone(), v.clone())).collect();
            let checkpoint = json!({
                "v": 4, "id": id, "ts": "2026-11-22T00:00:00.000Z",
                "channel_versions": channel_versions,
                "versions_seen": {"node": {"a": 1}},
            });
            let metadata = json(&mut rng, 3);
            let metadata =
                if metadata.is_object() { metadata } else { json!({"source": "loop", "step": step, "x": metadata}) };
            let values: Vec<(String, TypedBytes)> =
                new_versions.keys().filter_map(|c| current[c].1.clone().map(|v| (c.clone(), v))).collect();
            let cfg = json!({"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": parent});
            let args = put_args(&cfg, &checkpoint, &Value::Object(new_versions), values, meta(&metadata)).unwrap();
            db.put(args);

            // Writes of a few tasks, some to special channels, some written twice.
            let mut tasks: Vec<(String, String, Writes)> = Vec::new();
            for t in 0..rng.below(4) {
                let task_path = if rng.chance(30) { String::new() } else { format!("~{}", string(&mut rng, 3)) };
                let writes: Writes = (0..rng.below(4))
                    .map(|_| {
                        let ch = if rng.chance(30) {
                            WRITES_IDX_MAP[rng.below(4)].0.to_string()
                        } else {
                            string(&mut rng, 3)
                        };
                        (ch, typed(&mut rng))
                    })
                    .collect();
                let task = format!("task-{}{t}", string(&mut rng, 2));
                let cfg = json!({"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": id});
                for _ in 0..1 + rng.below(2) {
                    match put_writes_args(&cfg, &task, &task_path, writes.clone()).unwrap() {
                        Some(a) => db.put_writes(a),
                        None => assert!(writes.is_empty()),
                    }
                }
                tasks.push((task, task_path, writes));
            }

            let stripped_metadata = strip_nul(metadata);
            let cp = checkpoint.as_object().unwrap().clone();
            let mut values: Vec<ChannelValue> = current
                .iter()
                .map(|(c, (version, v))| ChannelValue {
                    channel: c.clone(),
                    version: version.as_str().map_or_else(|| version_text_of(version), str::to_owned),
                    value: v.as_ref().map(stored),
                })
                .collect();
            values.sort_by(|a, b| a.channel.cmp(&b.channel));
            // LangGraph's rule: (task_path, task_id, idx); a repeated special write keeps the last.
            let mut writes: BTreeMap<(String, String, i64), PendingWrite> = BTreeMap::new();
            for (task, path, ws) in &tasks {
                let all_special = ws.iter().all(|(c, _)| special_write_idx(c).is_some());
                for (i, (c, v)) in ws.iter().enumerate() {
                    let idx = special_write_idx(c).unwrap_or(i as i64);
                    let w = PendingWrite { task_id: task.clone(), channel: c.clone(), value: stored(v) };
                    let key = (path.clone(), task.clone(), idx);
                    if all_special || !writes.contains_key(&key) {
                        writes.insert(key, w);
                    }
                }
            }
            expected.push((
                id.clone(),
                parent.clone(),
                cp,
                stripped_metadata,
                values,
                writes.into_values().collect::<Vec<_>>(),
            ));
            parent = Some(id);
        }

        for (id, parent, checkpoint, metadata, values, writes) in expected {
            let tuple = decode_rows(&db.row(&id).to_string()).unwrap().remove(0);
            let ctx = format!("seed {seed}, checkpoint {id}");
            assert_eq!(tuple.config.configurable.checkpoint_id, id, "{ctx}");
            assert_eq!(
                (&tuple.config.configurable.thread_id, &tuple.config.configurable.checkpoint_ns),
                (&thread, &ns)
            );
            assert_eq!(tuple.parent_config.map(|p| p.configurable.checkpoint_id), parent, "{ctx}");
            assert_eq!(tuple.checkpoint, checkpoint, "{ctx}");
            assert_eq!(serde_json::from_str::<Value>(&tuple.metadata).unwrap(), metadata, "{ctx}");
            let mut got = tuple.values;
            got.sort_by(|a, b| a.channel.cmp(&b.channel));
            assert_eq!(got, values, "{ctx}: channel values");
            assert_eq!(tuple.pending_writes, writes, "{ctx}: pending writes");
            assert_eq!(tuple.pending_sends, None);
        }
    }
}

#[test]
fn metadata_without_nul_is_stored_unchanged() {
    let mut rng = Gen::new(42);
    for _ in 0..200 {
        let v = json!({"k": json(&mut rng, 4)});
        let clean = strip_nul(v.clone());
        assert_eq!(strip_nul(clean.clone()), clean, "idempotent");
        let text = serde_json::to_string(&clean).unwrap();
        assert!(!text.contains("\\u0000"), "{text}");
        if !serde_json::to_string(&v).unwrap().contains("\\u0000") {
            assert_eq!(clean, v, "nothing else changes");
        }
    }
}

#[test]
fn metadata_numbers_survive_exactly() {
    // JS writes the shortest text that round-trips a double; so does serde_json.
    let mut rng = Gen::new(7);
    for _ in 0..20_000 {
        let f = f64::from_bits(rng.next());
        if !f.is_finite() {
            continue;
        }
        let args =
            put_args(&json!({"thread_id": "t"}), &json!({"id": "c"}), &json!({}), vec![], meta(&json!({"f": f})))
                .unwrap();
        assert_eq!(args.p_metadata["f"].as_f64(), Some(f), "{f:e}");
        let back: Value = serde_json::from_str(&args.p_metadata.to_string()).unwrap();
        assert_eq!(back["f"].as_f64(), Some(f), "{f:e} after serializing again");
    }
}
