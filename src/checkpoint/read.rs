//! Rows of `rpc/langgraph_get_tuple` and `rpc/langgraph_list` back into LangGraph's
//! `CheckpointTuple` shape (values still serialized: the saver's serde loads them).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{CheckpointError, TASKS, TypedBytes, base64};

type Result<T> = std::result::Result<T, CheckpointError>;

/// One element of what `langgraph_tuple_json` builds. Unknown keys are ignored, so the SQL
/// may add fields without breaking deployed packages.
#[derive(Deserialize)]
struct Row {
    thread_id: String,
    checkpoint_ns: String,
    checkpoint_id: String,
    parent_checkpoint_id: Option<String>,
    checkpoint: Map<String, Value>,
    metadata: Value,
    #[serde(default)]
    blobs: Vec<BlobRow>,
    #[serde(default)]
    writes: Vec<WriteRow>,
    #[serde(default)]
    pending_sends: Vec<SendRow>,
}

#[derive(Deserialize)]
struct BlobRow {
    channel: String,
    #[serde(rename = "type")]
    type_: String,
    blob: Option<String>,
}

#[derive(Deserialize)]
struct WriteRow {
    task_id: String,
    channel: String,
    #[serde(rename = "type")]
    type_: Option<String>,
    blob: String,
    idx: i64,
    #[serde(default)]
    task_path: String,
}

#[derive(Deserialize)]
struct SendRow {
    #[serde(rename = "type")]
    type_: Option<String>,
    blob: String,
}

/// `{ configurable: { thread_id, checkpoint_ns, checkpoint_id } }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TupleConfig {
    pub configurable: Configurable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Configurable {
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
}

impl TupleConfig {
    fn new(thread_id: &str, checkpoint_ns: &str, checkpoint_id: String) -> Self {
        TupleConfig {
            configurable: Configurable {
                thread_id: thread_id.into(),
                checkpoint_ns: checkpoint_ns.into(),
                checkpoint_id,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelValue {
    pub channel: String,
    pub value: TypedBytes,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingWrite {
    pub task_id: String,
    pub channel: String,
    pub value: TypedBytes,
}

/// A `CheckpointTuple` whose values are still serialized.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuple {
    pub config: TupleConfig,
    pub parent_config: Option<TupleConfig>,
    /// The checkpoint without `channel_values` (rebuilt by the saver from `values`).
    pub checkpoint: Map<String, Value>,
    /// The metadata as JSON text, for the serializer's `loadsTyped("json", …)`, which
    /// revives the LangChain objects it may contain.
    pub metadata: String,
    /// The checkpoint's channel values (channels stored as `"empty"` are left out).
    pub values: Vec<ChannelValue>,
    /// In `(task_path, task_id, idx)` order, strings by code point.
    pub pending_writes: Vec<PendingWrite>,
    /// For a checkpoint older than format v4: the parent's `__pregel_tasks` writes, which
    /// the saver loads into `channel_values.__pregel_tasks` (the version is already in
    /// `checkpoint.channel_versions`). `None` when nothing was migrated.
    pub pending_sends: Option<Vec<TypedBytes>>,
}

fn blob(text: &str, what: &str) -> Result<Vec<u8>> {
    base64::decode(text).map_err(|e| CheckpointError::MalformedRow(format!("{what} is not standard base64: {e}")))
}

fn typed(type_: Option<String>, text: &str, what: &str) -> Result<TypedBytes> {
    let type_ = type_.ok_or_else(|| CheckpointError::MalformedRow(format!("{what} has no serialization type")))?;
    Ok(TypedBytes { type_, bytes: blob(text, what)? })
}

/// The greatest of the checkpoint's channel versions, compared as LangGraph's
/// `maxChannelVersion` does (numbers numerically, otherwise as strings), or `1` (the
/// first version `getNextVersion` hands out) when there are none.
fn max_version(versions: &Map<String, Value>) -> Value {
    let greater = |a: &Value, b: &Value| match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => y > x,
        _ => text(b) > text(a),
    };
    fn text(v: &Value) -> String {
        v.as_str().map_or_else(|| v.to_string(), str::to_owned)
    }
    versions
        .values()
        .fold(None, |max: Option<&Value>, v| match max {
            Some(m) if !greater(m, v) => Some(m),
            _ => Some(v),
        })
        .cloned()
        .unwrap_or(Value::from(1))
}

fn decode_row(row: Row) -> Result<Tuple> {
    let mut checkpoint = row.checkpoint;
    checkpoint.remove("channel_values");

    let values = row
        .blobs
        .into_iter()
        .filter(|b| b.type_ != "empty")
        .map(|b| {
            let what = format!("the blob of channel {:?}", b.channel);
            let text = b.blob.ok_or_else(|| CheckpointError::MalformedRow(format!("{what} is null")))?;
            Ok(ChannelValue { value: TypedBytes { type_: b.type_, bytes: blob(&text, &what)? }, channel: b.channel })
        })
        .collect::<Result<Vec<_>>>()?;

    // The SQL orders writes already; sorting again keeps the LangGraph contract even where
    // a column's collation is not "C" (Rust compares strings by bytes: code point order).
    let mut writes = row.writes;
    writes.sort_by(|a, b| (&a.task_path, &a.task_id, a.idx).cmp(&(&b.task_path, &b.task_id, b.idx)));
    let pending_writes = writes
        .into_iter()
        .map(|w| {
            let value = typed(w.type_, &w.blob, &format!("the write {} of task {:?}", w.idx, w.task_id))?;
            Ok(PendingWrite { task_id: w.task_id, channel: w.channel, value })
        })
        .collect::<Result<Vec<_>>>()?;

    // LangGraph < v4 kept pending sends on the parent checkpoint's writes; v4 expects them
    // as the __pregel_tasks channel. The SQL returns them only for such checkpoints.
    let old_format = checkpoint.get("v").and_then(Value::as_f64).is_some_and(|v| v < 4.0);
    let pending_sends = if old_format && row.parent_checkpoint_id.is_some() && !row.pending_sends.is_empty() {
        let sends = row
            .pending_sends
            .into_iter()
            .enumerate()
            .map(|(i, s)| typed(s.type_, &s.blob, &format!("pending send {i}")))
            .collect::<Result<Vec<_>>>()?;
        let versions = checkpoint.entry("channel_versions").or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(versions) = versions else {
            return Err(CheckpointError::MalformedRow("checkpoint.channel_versions is not an object".into()));
        };
        let version = max_version(versions);
        versions.insert(TASKS.into(), version);
        Some(sends)
    } else {
        None
    };

    Ok(Tuple {
        parent_config: row.parent_checkpoint_id.map(|p| TupleConfig::new(&row.thread_id, &row.checkpoint_ns, p)),
        config: TupleConfig::new(&row.thread_id, &row.checkpoint_ns, row.checkpoint_id),
        checkpoint,
        metadata: row.metadata.to_string(),
        values,
        pending_writes,
        pending_sends,
    })
}

/// The `data` of a get_tuple (`null` or one row) or list (an array of rows) response.
pub fn decode_rows(data: Value) -> Result<Vec<Tuple>> {
    let rows = match data {
        Value::Null => vec![],
        Value::Array(rows) => rows,
        row @ Value::Object(_) => vec![row],
        other => return Err(CheckpointError::MalformedRow(format!("expected rows, got {other}"))),
    };
    rows.into_iter()
        .map(|row| decode_row(serde_json::from_value(row).map_err(|e| CheckpointError::MalformedRow(e.to_string()))?))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(extra: Value) -> Value {
        let mut r = json!({
            "thread_id": "t", "checkpoint_ns": "ns", "checkpoint_id": "c2", "parent_checkpoint_id": "c1",
            "type": null, "checkpoint": {"v": 4, "id": "c2", "channel_versions": {"a": 1, "b": 2}},
            "metadata": {"step": 1}, "blobs": [], "writes": [], "pending_sends": [],
        });
        r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        r
    }

    #[test]
    fn a_row_becomes_a_tuple() {
        let t = decode_rows(row(json!({
            "blobs": [{"channel": "a", "version": "1", "type": "json", "blob": "MQ=="},
                      {"channel": "b", "version": "2", "type": "empty", "blob": null}],
            "writes": [{"task_id": "t2", "channel": "x", "type": "json", "blob": "Mg==", "idx": 0, "task_path": "~a"},
                       {"task_id": "t1", "channel": "y", "type": "bytes", "blob": "", "idx": 1, "task_path": "~a"},
                       {"task_id": "t9", "channel": "z", "type": "json", "blob": "Mw==", "idx": 5, "task_path": ""},
                       {"task_id": "t1", "channel": "__error__", "type": "json", "blob": "NA==", "idx": -1, "task_path": "~a"}],
        })))
        .unwrap()
        .remove(0);
        assert_eq!(t.config, TupleConfig::new("t", "ns", "c2".into()));
        assert_eq!(t.parent_config, Some(TupleConfig::new("t", "ns", "c1".into())));
        assert_eq!(t.metadata, r#"{"step":1}"#);
        assert_eq!(
            t.values,
            [ChannelValue { channel: "a".into(), value: TypedBytes { type_: "json".into(), bytes: b"1".to_vec() } }]
        );
        let order: Vec<_> = t.pending_writes.iter().map(|w| (w.task_id.as_str(), w.channel.as_str())).collect();
        assert_eq!(order, [("t9", "z"), ("t1", "__error__"), ("t1", "y"), ("t2", "x")], "by task_path, task_id, idx");
        assert_eq!(t.pending_sends, None);
    }

    #[test]
    fn writes_sort_by_code_point_not_utf16() {
        // U+FF61 < U+1F600 by code point, but not by UTF-16 code unit (0xFF61 > 0xD83D).
        let w =
            |id: &str| json!({"task_id": id, "channel": "c", "type": "json", "blob": "", "idx": 0, "task_path": ""});
        let t = decode_rows(row(json!({"writes": [w("\u{1F600}"), w("\u{FF61}")]}))).unwrap().remove(0);
        assert_eq!(t.pending_writes[0].task_id, "\u{FF61}");
    }

    #[test]
    fn old_checkpoints_get_their_parents_pending_sends() {
        let sends = json!([{"type": "json", "blob": "ImEi"}, {"type": "json", "blob": "ImIi"}]);
        let migrated = |ckpt: Value, parent: Value| {
            decode_rows(row(json!({"checkpoint": ckpt, "parent_checkpoint_id": parent, "pending_sends": sends})))
                .unwrap()
                .remove(0)
        };
        let t = migrated(json!({"v": 1, "id": "c2", "channel_versions": {"a": 3, "b": 10}}), json!("c1"));
        assert_eq!(t.pending_sends.as_ref().map(Vec::len), Some(2));
        assert_eq!(t.checkpoint["channel_versions"], json!({"a": 3, "b": 10, "__pregel_tasks": 10}), "numeric max");
        let t = migrated(json!({"v": 3, "id": "c2", "channel_versions": {}}), json!("c1"));
        assert_eq!(t.checkpoint["channel_versions"], json!({"__pregel_tasks": 1}), "first version when none");
        let t = migrated(json!({"v": 2, "id": "c2"}), json!("c1"));
        assert_eq!(t.checkpoint["channel_versions"], json!({"__pregel_tasks": 1}));
        let t = migrated(json!({"v": 1, "id": "c2", "channel_versions": {"a": "2.x", "b": "10.x"}}), json!("c1"));
        assert_eq!(t.checkpoint["channel_versions"]["__pregel_tasks"], json!("2.x"), "strings compare as strings");

        assert_eq!(migrated(json!({"v": 4, "id": "c2"}), json!("c1")).pending_sends, None, "v4 is never migrated");
        assert_eq!(migrated(json!({"v": 1, "id": "c2"}), json!(null)).pending_sends, None, "no parent, no migration");
        let none =
            decode_rows(row(json!({"checkpoint": {"v": 1, "id": "c2", "channel_versions": {}}}))).unwrap().remove(0);
        assert_eq!(
            (none.pending_sends, none.checkpoint["channel_versions"].clone()),
            (None, json!({})),
            "nothing to migrate"
        );
    }

    #[test]
    fn shapes_and_malformed_rows() {
        assert!(decode_rows(Value::Null).unwrap().is_empty(), "get_tuple found nothing");
        assert_eq!(decode_rows(json!([row(json!({})), row(json!({}))])).unwrap().len(), 2);
        let server = |v: Value| matches!(decode_rows(v), Err(CheckpointError::MalformedRow(_)));
        assert!(server(json!(3)));
        assert!(server(json!([{"thread_id": "t"}])));
        assert!(server(row(json!({"blobs": [{"channel": "a", "version": "1", "type": "json", "blob": null}]}))));
        assert!(server(row(json!({"blobs": [{"channel": "a", "version": "1", "type": "json", "blob": "*"}]}))));
        assert!(server(row(json!({"writes": [{"task_id": "t", "channel": "c", "type": null, "blob": "", "idx": 0}]}))));
        let report = crate::ErrorReport::from(CheckpointError::MalformedRow("x".into()));
        assert_eq!(report.code, crate::ErrorCode::Server);
    }
}
