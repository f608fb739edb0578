//! Rows of `rpc/langgraph_get_tuple` and `rpc/langgraph_list` back into LangGraph's
//! `CheckpointTuple` shape (values still serialized: the saver's serde loads them).

use serde_json::{Map, Value};

use super::{CheckpointError, Payload, TASKS, TypedValue};
use crate::error::Invalid;
use crate::input;

type Result<T> = std::result::Result<T, CheckpointError>;

/// Fields of one element of what `langgraph_tuple_json` builds, read by hand from a parsed
/// `Value` with the crate's input readers (derived `Deserialize` impls would compile a
/// deserializer of its own for each of the four row shapes); a value of the wrong kind is a
/// malformed row, named by its path (`row.blobs` → `blob.type`). Unknown keys are ignored,
/// so the SQL may add fields without breaking deployed packages.
struct Fields<'a>(&'a Map<String, Value>, &'static str);

impl<'a> Fields<'a> {
    fn of(v: &'a Value, what: &'static str) -> Result<Self> {
        input::object(v, what).map(|o| Fields(o, what)).map_err(malformed)
    }
    fn opt_str(&self, key: &str) -> Result<Option<&'a str>> {
        let Some(v) = input::get(self.0, key) else { return Ok(None) };
        v.as_str().map(Some).ok_or_else(|| malformed(input::expected(&input::key(self.1, key), "a string", v)))
    }
    fn str(&self, key: &str) -> Result<&'a str> {
        self.opt_str(key)?.ok_or_else(|| malformed(input::missing(&input::key(self.1, key))))
    }
    fn array(&self, key: &str) -> Result<&'a [Value]> {
        let Some(v) = input::get(self.0, key) else { return Ok(&[]) };
        input::array(v, &input::key(self.1, key)).map(Vec::as_slice).map_err(malformed)
    }
    /// `type` + `text` (a value stored as text) or base64 `blob`, as blobs, writes and
    /// pending sends carry them.
    fn typed(&self) -> Result<TypedValue> {
        let type_ = self.str("type")?.to_owned();
        if let Some(text) = self.opt_str("text")? {
            return Ok(TypedValue { type_, data: Payload::Text(text.to_owned()) });
        }
        let bytes = crate::base64::decode(self.str("blob")?)
            .map_err(|e| CheckpointError::MalformedRow(format!("{}.blob is not standard base64: {e}", self.1)))?;
        Ok(TypedValue { type_, data: Payload::Bytes(bytes) })
    }
}

/// What the server sent is not a row of our SQL: the reader's sentence says where.
fn malformed(e: Invalid) -> CheckpointError {
    CheckpointError::MalformedRow(e.message)
}

/// `{ configurable: { thread_id, checkpoint_ns, checkpoint_id } }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TupleConfig {
    pub configurable: Configurable,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Configurable {
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
}

impl TupleConfig {
    pub(super) fn new(thread_id: &str, checkpoint_ns: &str, checkpoint_id: String) -> Self {
        TupleConfig {
            configurable: Configurable {
                thread_id: thread_id.into(),
                checkpoint_ns: checkpoint_ns.into(),
                checkpoint_id,
            },
        }
    }
}

/// One stored channel value of a row: `value` is `None` for a channel stored as "empty".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelValue {
    pub channel: String,
    pub version: String,
    pub value: Option<TypedValue>,
}

/// A channel version of a row whose value an earlier row of the same answer carried
/// (`langgraph_list` sends each (thread, namespace, channel, version) once per answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRef {
    pub channel: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingWrite {
    pub task_id: String,
    pub channel: String,
    pub value: TypedValue,
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
    /// The checkpoint's channel values this row carries, "empty" ones included.
    pub values: Vec<ChannelValue>,
    /// Its channel values carried by an earlier row of the same answer.
    pub refs: Vec<BlobRef>,
    /// In `(task_path, task_id, idx)` order, strings by code point.
    pub pending_writes: Vec<PendingWrite>,
    /// For a checkpoint older than format v4: the parent's `__pregel_tasks` writes, which
    /// the saver loads into `channel_values.__pregel_tasks` (the version is already in
    /// `checkpoint.channel_versions`). `None` when nothing was migrated.
    pub pending_sends: Option<Vec<TypedValue>>,
}

/// The greatest of the checkpoint's channel versions, compared as LangGraph's
/// `maxChannelVersion` does (numbers numerically, otherwise as strings), or `1` (the
/// first version `getNextVersion` hands out) when there are none.
fn max_version(versions: &Map<String, Value>) -> Value {
    let greater = |a: &Value, b: &Value| match (crate::number::of(a), crate::number::of(b)) {
        (Some(x), Some(y)) => y > x,
        _ => text(b) > text(a),
    };
    fn text(v: &Value) -> String {
        v.as_str().map_or_else(|| crate::json::text(v), str::to_owned)
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

/// A pending write as the SQL sends it (`agentmem.langgraph_write`): `[task_id, channel,
/// type, text, blob, task_path]`, the value as text or as base64, the other null (the
/// task path is for readers of the rows; LangGraph gets the writes in its order).
fn pending_write(w: &Value) -> Result<PendingWrite> {
    let shape = || malformed(input::expected("write", "[task_id, channel, type, text, blob, task_path]", w));
    let Some([task_id, channel, type_, text, blob, _]) = w.as_array().map(Vec::as_slice) else { return Err(shape()) };
    let (Some(task_id), Some(channel), Some(type_)) = (task_id.as_str(), channel.as_str(), type_.as_str()) else {
        return Err(shape());
    };
    let data = match (text.as_str(), blob.as_str()) {
        (Some(text), None) => Payload::Text(text.to_owned()),
        (None, Some(blob)) => Payload::Bytes(
            crate::base64::decode(blob)
                .map_err(|e| CheckpointError::MalformedRow(format!("write.blob is not standard base64: {e}")))?,
        ),
        _ => return Err(shape()),
    };
    Ok(PendingWrite {
        task_id: task_id.to_owned(),
        channel: channel.to_owned(),
        value: TypedValue { type_: type_.to_owned(), data },
    })
}

fn decode_row(row: &Value) -> Result<Tuple> {
    let r = Fields::of(row, "row")?;
    let (thread_id, checkpoint_ns) = (r.str("thread_id")?, r.str("checkpoint_ns")?);
    let parent = r.opt_str("parent_checkpoint_id")?;
    // Stored without channel_values: langgraph_put drops them.
    let mut checkpoint = Fields::of(r.0.get("checkpoint").unwrap_or(&Value::Null), "row.checkpoint")?.0.clone();
    let metadata = r.0.get("metadata").unwrap_or(&Value::Null);
    input::object(metadata, "row.metadata").map_err(malformed)?;

    let mut values = Vec::new();
    for b in r.array("blobs")? {
        let b = Fields::of(b, "blob")?;
        let value = if b.str("type")? == "empty" { None } else { Some(b.typed()?) };
        values.push(ChannelValue {
            channel: b.str("channel")?.to_owned(),
            version: b.str("version")?.to_owned(),
            value,
        });
    }
    let refs = r
        .array("refs")?
        .iter()
        .map(|x| {
            let x = Fields::of(x, "ref")?;
            Ok(BlobRef { channel: x.str("channel")?.to_owned(), version: x.str("version")?.to_owned() })
        })
        .collect::<Result<Vec<_>>>()?;

    // Already in LangGraph's (task_path, task_id, idx) order: the SQL sorts them, and its
    // key columns use the "C" collation, which is code point order for UTF-8. (Not sorted
    // again here: that would compile a sort routine into the module for no change.)
    let pending_writes = r.array("writes")?.iter().map(pending_write).collect::<Result<Vec<_>>>()?;

    // LangGraph < v4 kept pending sends on the parent checkpoint's writes; v4 expects them
    // as the __pregel_tasks channel. The SQL returns them only for such checkpoints.
    let sends = r.array("pending_sends")?;
    let old_format = checkpoint.get("v").and_then(crate::number::of).is_some_and(|v| v < 4.0);
    let pending_sends = if old_format && parent.is_some() && !sends.is_empty() {
        let sends = sends.iter().map(|s| Fields::of(s, "pending send")?.typed()).collect::<Result<Vec<_>>>()?;
        let versions = checkpoint.entry("channel_versions").or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(versions) = versions else {
            return Err(malformed(input::expected("row.checkpoint.channel_versions", "an object", versions)));
        };
        let version = max_version(versions);
        versions.insert(TASKS.into(), version);
        Some(sends)
    } else {
        None
    };

    Ok(Tuple {
        parent_config: parent.map(|p| TupleConfig::new(thread_id, checkpoint_ns, p.into())),
        config: TupleConfig::new(thread_id, checkpoint_ns, r.str("checkpoint_id")?.into()),
        checkpoint,
        metadata: crate::json::text(metadata),
        values,
        refs,
        pending_writes,
        pending_sends,
    })
}

/// The `data` of a get_tuple (`null` or one row) or list (an array of rows) response, as
/// JSON text.
pub fn decode_rows(json: &str) -> Result<Vec<Tuple>> {
    match crate::json::parse(json).map_err(|e| CheckpointError::MalformedRow(e.to_string()))? {
        Value::Null => Ok(vec![]),
        Value::Array(rows) => rows.iter().map(decode_row).collect(),
        row @ Value::Object(_) => Ok(vec![decode_row(&row)?]),
        other => Err(malformed(input::expected("data", "a row or an array of rows", &other))),
    }
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

    fn decode(v: Value) -> Result<Vec<Tuple>> {
        decode_rows(&v.to_string())
    }

    #[test]
    fn a_row_becomes_a_tuple() {
        let t = decode(row(json!({
            "blobs": [{"channel": "a", "version": "1", "type": "json", "blob": "MQ=="},
                      {"channel": "b", "version": "2", "type": "empty", "blob": null},
                      {"channel": "c", "version": "3", "type": "json", "text": "\"é\""}],
            "refs": [{"channel": "d", "version": "4"}],
            "writes": [["t2", "x", "json", null, "Mg==", "~a"],
                       ["t1", "y", "bytes", null, "", "~a"],
                       ["t9", "z", "json", null, "Mw==", ""],
                       ["t1", "__error__", "json", null, "NA==", "~a"]],
        })))
        .unwrap()
        .remove(0);
        assert_eq!(t.config, TupleConfig::new("t", "ns", "c2".into()));
        assert_eq!(t.parent_config, Some(TupleConfig::new("t", "ns", "c1".into())));
        assert_eq!(t.metadata, r#"{"step":1}"#);
        let value = |type_: &str, data| Some(TypedValue { type_: type_.into(), data });
        assert_eq!(
            t.values,
            [
                ChannelValue {
                    channel: "a".into(),
                    version: "1".into(),
                    value: value("json", Payload::Bytes(b"1".to_vec()))
                },
                ChannelValue { channel: "b".into(), version: "2".into(), value: None },
                ChannelValue {
                    channel: "c".into(),
                    version: "3".into(),
                    value: value("json", Payload::Text("\"é\"".into()))
                },
            ]
        );
        assert_eq!(t.refs, [BlobRef { channel: "d".into(), version: "4".into() }]);
        let order: Vec<_> = t.pending_writes.iter().map(|w| (w.task_id.as_str(), w.channel.as_str())).collect();
        assert_eq!(
            order,
            [("t2", "x"), ("t1", "y"), ("t9", "z"), ("t1", "__error__")],
            "in the order the SQL sorted them"
        );
        assert_eq!(t.pending_sends, None);
    }

    #[test]
    fn old_checkpoints_get_their_parents_pending_sends() {
        let sends = json!([{"type": "json", "blob": "ImEi"}, {"type": "json", "blob": "ImIi"}]);
        let migrated = |ckpt: Value, parent: Value| {
            decode(row(json!({"checkpoint": ckpt, "parent_checkpoint_id": parent, "pending_sends": sends})))
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
        let none = decode(row(json!({"checkpoint": {"v": 1, "id": "c2", "channel_versions": {}}}))).unwrap().remove(0);
        assert_eq!(
            (none.pending_sends, none.checkpoint["channel_versions"].clone()),
            (None, json!({})),
            "nothing to migrate"
        );
    }

    #[test]
    fn shapes_and_malformed_rows() {
        assert!(decode(Value::Null).unwrap().is_empty(), "get_tuple found nothing");
        assert!(decode_rows(" null ").unwrap().is_empty());
        assert_eq!(decode(json!([row(json!({})), row(json!({}))])).unwrap().len(), 2);
        assert_eq!(decode_rows(&format!(" {}", row(json!({})))).unwrap().len(), 1);
        let server = |v: Value| matches!(decode(v), Err(CheckpointError::MalformedRow(_)));
        assert!(server(json!(3)));
        assert!(server(json!("x")));
        assert!(matches!(decode_rows(""), Err(CheckpointError::MalformedRow(_))));
        assert!(server(json!([{"thread_id": "t"}])));
        assert!(server(row(json!({"blobs": [{"channel": "a", "version": "1", "type": "json", "blob": null}]}))));
        assert!(server(row(json!({"blobs": [{"channel": "a", "version": "1", "type": "json", "blob": "*"}]}))));
        assert!(server(row(json!({"writes": [["t", "c", null, null, "", ""]]}))));
        assert!(server(row(json!({"writes": [["t", "c", "json", "1", "MQ==", ""]]}))));
        assert!(server(row(json!({"writes": [["t", "c", "json", null, ""]]}))));
        assert!(server(row(json!({"writes": [{"task_id": "t", "channel": "c", "type": "json", "blob": ""}]}))));
        assert!(server(row(json!({"metadata": null}))));
        assert!(server(row(json!({"checkpoint": []}))));
        assert!(server(row(json!({"thread_id": 1}))));
        assert!(server(row(json!({"blobs": {}}))));
        assert!(server(row(json!({"blobs": [{"channel": "a", "version": "1", "type": "json", "text": 5}]}))));
        assert!(server(row(json!({"refs": [{"channel": "a"}]}))));
        let report = crate::ErrorReport::from(CheckpointError::MalformedRow("x".into()));
        assert_eq!(report.code, crate::ErrorCode::Server);
    }
}
