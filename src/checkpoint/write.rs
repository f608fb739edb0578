//! Arguments of the checkpoint RPCs, built from what LangGraph hands the saver.
//!
//! `configurable` is the `{ thread_id, checkpoint_ns, checkpoint_id }` of a LangGraph
//! `RunnableConfig` (the saver copies only those keys: the rest of a config holds
//! callbacks and internal objects that are not data), or `null` when the config had no
//! `configurable` at all. The argument names are the SQL functions' parameter names.

use serde_json::{Map, Value};

use super::{CheckpointError, TypedBytes, special_write_idx};
use crate::input;
use crate::json::{object, opt_text};

type Result<T> = std::result::Result<T, CheckpointError>;

/// The three ids of a config. Empty strings count as absent, as in LangGraph's own savers
/// (`if (config.configurable?.checkpoint_id)`).
#[derive(Debug, Default)]
struct Ids {
    thread_id: Option<String>,
    checkpoint_ns: Option<String>,
    checkpoint_id: Option<String>,
}

/// An id of `obj` at `path` (at most [`input::MAX_ID_CHARS`]), `None` when absent or null.
fn optional_string(obj: &Map<String, Value>, path: &str, key: &str) -> Result<Option<String>> {
    let Some(v) = input::get(obj, key) else { return Ok(None) };
    let path = input::key(path, key);
    let s = input::string(v, &path)?;
    input::at_most(&s, &path, input::MAX_ID_CHARS)?;
    Ok(Some(s))
}

/// `None` when the config had no `configurable`.
fn ids(configurable: &Value) -> Result<Option<Ids>> {
    if configurable.is_null() {
        return Ok(None);
    }
    const PATH: &str = "config.configurable";
    let obj = input::object(configurable, PATH)?;
    let non_empty = |s: Option<String>| s.filter(|s| !s.is_empty());
    Ok(Some(Ids {
        thread_id: non_empty(optional_string(obj, PATH, "thread_id")?),
        checkpoint_ns: optional_string(obj, PATH, "checkpoint_ns")?,
        checkpoint_id: non_empty(optional_string(obj, PATH, "checkpoint_id")?),
    }))
}

/// The ids of a write (`put`, `putWrites`): a thread is required.
fn write_ids(configurable: &Value, op: &str) -> Result<(String, String, Option<String>)> {
    let ids = ids(configurable)?.ok_or_else(|| {
        CheckpointError::invalid("config.configurable", format!("{op} needs config.configurable with a thread_id"))
    })?;
    let thread_id = ids.thread_id.ok_or_else(|| {
        CheckpointError::invalid(
            "config.configurable.thread_id",
            format!("{op} needs config.configurable.thread_id (a non-empty string) to know which thread to persist"),
        )
    })?;
    Ok((thread_id, ids.checkpoint_ns.unwrap_or_default(), ids.checkpoint_id))
}

/// Removes U+0000 from every string and object key: jsonb cannot store it (Postgres
/// rejects the whole document), and LangGraph's savers drop it from metadata. Two keys
/// that differ only by U+0000 collapse into one; the later one wins.
pub fn strip_nul(value: Value) -> Value {
    fn clean(s: String) -> String {
        if s.contains('\0') { s.replace('\0', "") } else { s }
    }
    match value {
        Value::String(s) => Value::String(clean(s)),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_nul).collect()),
        Value::Object(map) => {
            Value::Object(crate::input::map_of(map.into_iter().map(|(k, v)| (clean(k), strip_nul(v)))))
        }
        other => other,
    }
}

/// A channel version as the text the SQL compares it with: `jsonb_each_text` over the
/// checkpoint's `channel_versions`, i.e. Postgres' `numeric` output for numbers, which
/// keeps the digits the checkpoint's JSON carries (1e21 → "1000000000000000000000").
fn version_text(v: &Value, field: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(crate::number::numeric_text(n.as_str())),
        other => Err(input::expected(field, "a number or a string", other).into()),
    }
}

// ------------------------------------------------------------------------------- put

/// The longest message text a thread's preview keeps (the saver cuts to less).
pub const MAX_PREVIEW_CHARS: usize = 2000;

/// A put's preview: `null` (none), or `{human, ai}` with each a string of at most
/// [`MAX_PREVIEW_CHARS`] characters or `null`.
pub fn preview_arg(preview: &Value) -> Result<Option<Value>> {
    if preview.is_null() {
        return Ok(None);
    }
    let o = input::object(preview, "preview")?;
    input::only(o, "preview", "field", &["human", "ai"])?;
    for (k, v) in o {
        if !v.is_null() {
            let path = input::key("preview", k);
            input::at_most(&input::string(v, &path)?, &path, MAX_PREVIEW_CHARS)?;
        }
    }
    Ok(Some(preview.clone()))
}

/// `listThreads(options)`: `{prefix, filter, limit, offset}`, each optional, as the
/// arguments of `rpc/langgraph_list_threads`.
pub fn list_threads_args(options: &Value) -> Result<Value> {
    let empty = Map::new();
    let o = if options.is_null() { &empty } else { input::object(options, "options")? };
    input::only(o, "options", "option", &["prefix", "filter", "limit", "offset"])?;
    let prefix = input::get(o, "prefix").map(|v| input::string(v, "options.prefix")).transpose()?;
    if let Some(p) = &prefix {
        input::at_most(p, "options.prefix", input::MAX_ID_CHARS)?;
    }
    let filter = input::get(o, "filter")
        .map(|v| input::object(v, "options.filter").map(|m| strip_nul(Value::Object(m.clone()))))
        .transpose()?;
    let limit = input::get(o, "limit").map(|v| input::whole(v, "options.limit", 1, 1000)).transpose()?.unwrap_or(50);
    let offset = input::get(o, "offset")
        .map(|v| input::whole(v, "options.offset", 0, i64::from(i32::MAX)))
        .transpose()?
        .unwrap_or(0);
    Ok(Value::Object(object(vec![
        ("p_prefix", Some(prefix.map_or(Value::Null, Value::String))),
        ("p_filter", Some(filter.unwrap_or(Value::Null))),
        ("p_limit", Some(limit.into())),
        ("p_offset", Some(offset.into())),
    ])))
}

#[derive(Debug, Clone, PartialEq)]
pub struct BlobArg {
    pub channel: String,
    pub version: String,
    /// Written as `type`.
    pub type_: String,
    /// Standard base64; `None` for type `"empty"` and for a value sent as `text`.
    pub blob: Option<String>,
    /// The value itself when it is text (see `TypedBytes::as_text`).
    pub text: Option<String>,
}

impl BlobArg {
    fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("channel", Some(self.channel.as_str().into())),
            ("version", Some(self.version.as_str().into())),
            ("type", Some(self.type_.as_str().into())),
            ("blob", Some(opt_text(&self.blob))),
            ("text", self.text.as_deref().map(Value::from)),
        ]))
    }
}

/// Arguments of `rpc/langgraph_put`.
#[derive(Debug, Clone, PartialEq)]
pub struct PutArgs {
    pub p_thread_id: String,
    pub p_checkpoint_ns: String,
    pub p_checkpoint_id: String,
    pub p_parent_checkpoint_id: Option<String>,
    /// The format of the checkpoint column; `None`: plain JSON, as LangGraph's Postgres saver.
    pub p_type: Option<String>,
    pub p_checkpoint: Map<String, Value>,
    pub p_metadata: Value,
    pub p_blobs: Vec<BlobArg>,
    /// `{human, ai}`: the text of the state's last human and AI messages, kept with the
    /// thread for listings ([`preview_arg`]); `None` when the saver sent none.
    pub p_preview: Option<Value>,
}

impl PutArgs {
    /// The RPC's arguments as JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("p_thread_id", Some(self.p_thread_id.as_str().into())),
            ("p_checkpoint_ns", Some(self.p_checkpoint_ns.as_str().into())),
            ("p_checkpoint_id", Some(self.p_checkpoint_id.as_str().into())),
            ("p_parent_checkpoint_id", Some(opt_text(&self.p_parent_checkpoint_id))),
            ("p_type", Some(opt_text(&self.p_type))),
            ("p_checkpoint", Some(Value::Object(self.p_checkpoint.clone()))),
            ("p_metadata", Some(self.p_metadata.clone())),
            ("p_blobs", Some(Value::Array(self.p_blobs.iter().map(BlobArg::to_json).collect()))),
            ("p_preview", self.p_preview.clone()),
        ]))
    }
}

/// `put(config, checkpoint, metadata, newVersions)`.
///
/// `checkpoint` comes without `channel_values` (the values travel as blobs); `values` are
/// the serialized values of the channels in `new_versions` that have one (a channel of
/// `new_versions` without an entry is stored as `"empty"`); `metadata` is the serializer's
/// output for the metadata, which must be JSON.
pub fn put_args(
    configurable: &Value,
    checkpoint: &Value,
    new_versions: &Value,
    mut values: Vec<(String, TypedBytes)>,
    metadata: TypedBytes,
) -> Result<PutArgs> {
    let (thread_id, checkpoint_ns, parent_id) = write_ids(configurable, "put")?;

    let checkpoint = input::object(checkpoint, "checkpoint")?;
    // Values are not JSON (messages, bytes, ...): they travel as blobs, serialized by the
    // saver, which passes the checkpoint without them.
    if checkpoint.contains_key("channel_values") {
        return Err(CheckpointError::invalid(
            "checkpoint.channel_values",
            "pass the checkpoint without channel_values: values travel as serialized blobs",
        ));
    }
    // Any id LangGraph makes (uuid6) or a caller chose, as given; only not empty.
    let id = input::string(input::required(checkpoint, "checkpoint", "id")?, "checkpoint.id")?;
    if id.is_empty() {
        return Err(CheckpointError::invalid("checkpoint.id", "checkpoint.id must not be empty"));
    }
    input::at_most(&id, "checkpoint.id", input::MAX_ID_CHARS)?;
    let versions = match input::get(checkpoint, "channel_versions") {
        Some(versions) => Some(input::object(versions, "checkpoint.channel_versions")?),
        None => None,
    };

    let new_versions = match new_versions {
        Value::Null => &Map::new(),
        v => input::object(v, "newVersions")?,
    };
    let blobs = new_versions
        .iter()
        .map(|(channel, version)| {
            let path = input::key("newVersions", channel);
            input::at_most(channel, &path, input::MAX_ID_CHARS)?;
            let version = version_text(version, &path)?;
            input::at_most(&version, &path, input::MAX_ID_CHARS)?;
            // A value is stored at the version its checkpoint gives the channel, and only
            // with it (the database refuses any other: a stray version would make a later
            // put of that version a conflict).
            let named = versions.and_then(|v| v.get(channel)).map(|v| version_text(v, &path)).transpose()?;
            if named.as_deref() != Some(version.as_str()) {
                return Err(CheckpointError::invalid(
                    &path,
                    format!(
                        "{path} is {version}, but checkpoint.channel_versions gives the channel {}",
                        named.as_deref().unwrap_or("no version")
                    ),
                ));
            }
            // A linear search: a graph has a handful of channels, and a map would only add code.
            let value = values.iter().position(|(c, _)| c == channel).map(|i| values.swap_remove(i).1);
            Ok(match value {
                Some(v) => {
                    let (blob, text) = v.encode();
                    BlobArg { channel: channel.clone(), version, type_: v.type_, blob, text }
                }
                None => BlobArg { channel: channel.clone(), version, type_: "empty".into(), blob: None, text: None },
            })
        })
        .collect::<Result<Vec<_>>>()?;

    Ok(PutArgs {
        p_thread_id: thread_id,
        p_checkpoint_ns: checkpoint_ns,
        p_checkpoint_id: id,
        p_parent_checkpoint_id: parent_id,
        p_type: None,
        p_checkpoint: checkpoint.clone(),
        p_metadata: metadata_json(metadata)?,
        p_blobs: blobs,
        p_preview: None,
    })
}

fn metadata_json(metadata: TypedBytes) -> Result<Value> {
    if metadata.type_ != "json" {
        return Err(CheckpointError::invalid(
            "metadata",
            format!(
                "the serializer turned the metadata into {}; it must produce \"json\" to be stored as jsonb",
                crate::error::Quoted(&metadata.type_)
            ),
        ));
    }
    let text = std::str::from_utf8(&metadata.bytes).map_err(|_| {
        CheckpointError::invalid("metadata", "the serialized metadata is not JSON: it is not UTF-8 text")
    })?;
    let value: Value = crate::json::parse(text)
        .map_err(|e| CheckpointError::invalid("metadata", format!("the serialized metadata is not JSON: {e}")))?;
    input::object(&value, "metadata")?;
    Ok(strip_nul(value))
}

// ------------------------------------------------------------------------- putWrites

#[derive(Debug, Clone, PartialEq)]
pub struct WriteArg {
    pub idx: i64,
    pub channel: String,
    /// Written as `type`.
    pub type_: String,
    /// Standard base64, unless the value travels as `text`.
    pub blob: Option<String>,
    pub text: Option<String>,
}

impl WriteArg {
    fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("idx", Some(self.idx.into())),
            ("channel", Some(self.channel.as_str().into())),
            ("type", Some(self.type_.as_str().into())),
            ("blob", self.blob.as_deref().map(Value::from)),
            ("text", self.text.as_deref().map(Value::from)),
        ]))
    }
}

/// Arguments of `rpc/langgraph_put_writes`.
#[derive(Debug, Clone, PartialEq)]
pub struct PutWritesArgs {
    pub p_thread_id: String,
    pub p_checkpoint_ns: String,
    pub p_checkpoint_id: String,
    pub p_task_id: String,
    pub p_task_path: String,
    pub p_writes: Vec<WriteArg>,
}

impl PutWritesArgs {
    /// The RPC's arguments as JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("p_thread_id", Some(self.p_thread_id.as_str().into())),
            ("p_checkpoint_ns", Some(self.p_checkpoint_ns.as_str().into())),
            ("p_checkpoint_id", Some(self.p_checkpoint_id.as_str().into())),
            ("p_task_id", Some(self.p_task_id.as_str().into())),
            ("p_task_path", Some(self.p_task_path.as_str().into())),
            ("p_writes", Some(Value::Array(self.p_writes.iter().map(WriteArg::to_json).collect()))),
        ]))
    }
}

/// `putWrites(config, writes, taskId, taskPath)`, with each write's value serialized.
/// `None` when there is nothing to write (no request is needed); the config is checked
/// all the same, so a bad call fails whether or not it carries writes.
pub fn put_writes_args(
    configurable: &Value,
    task_id: &str,
    task_path: &str,
    writes: Vec<(String, TypedBytes)>,
) -> Result<Option<PutWritesArgs>> {
    let (thread_id, checkpoint_ns, checkpoint_id) = write_ids(configurable, "putWrites")?;
    let checkpoint_id = checkpoint_id.ok_or_else(|| {
        CheckpointError::invalid(
            "config.configurable.checkpoint_id",
            "putWrites needs config.configurable.checkpoint_id: writes belong to a stored checkpoint",
        )
    })?;
    if task_id.is_empty() {
        return Err(CheckpointError::invalid("taskId", "taskId must not be empty"));
    }
    input::at_most(task_id, "taskId", input::MAX_ID_CHARS)?;
    input::at_most(task_path, "taskPath", 2000)?;
    if writes.is_empty() {
        return Ok(None);
    }
    for (i, (channel, _)) in writes.iter().enumerate() {
        input::at_most(channel, &format!("writes[{i}][0]"), input::MAX_ID_CHARS)?;
    }
    let writes = writes
        .into_iter()
        .enumerate()
        .map(|(i, (channel, v))| {
            let (blob, text) = v.encode();
            WriteArg { idx: special_write_idx(&channel).unwrap_or(i as i64), channel, type_: v.type_, blob, text }
        })
        .collect();
    Ok(Some(PutWritesArgs {
        p_thread_id: thread_id,
        p_checkpoint_ns: checkpoint_ns,
        p_checkpoint_id: checkpoint_id,
        p_task_id: task_id.into(),
        p_task_path: task_path.into(),
        p_writes: writes,
    }))
}

// ----------------------------------------------------------------------- reads

/// Arguments of `rpc/langgraph_get_tuple`.
#[derive(Debug, Clone, PartialEq)]
pub struct GetTupleArgs {
    pub p_thread_id: String,
    pub p_checkpoint_ns: String,
    /// `None`: the latest checkpoint of the thread and namespace.
    pub p_checkpoint_id: Option<String>,
}

impl GetTupleArgs {
    /// The RPC's arguments as JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("p_thread_id", Some(self.p_thread_id.as_str().into())),
            ("p_checkpoint_ns", Some(self.p_checkpoint_ns.as_str().into())),
            ("p_checkpoint_id", Some(opt_text(&self.p_checkpoint_id))),
        ]))
    }
}

/// `getTuple(config)`. `None` when the config names no thread: there is nothing to find,
/// so no request is made (LangGraph's savers answer `undefined` there too).
pub fn get_tuple_args(configurable: &Value) -> Result<Option<GetTupleArgs>> {
    let Some(ids) = ids(configurable)? else { return Ok(None) };
    Ok(ids.thread_id.map(|thread_id| GetTupleArgs {
        p_thread_id: thread_id,
        p_checkpoint_ns: ids.checkpoint_ns.unwrap_or_default(),
        p_checkpoint_id: ids.checkpoint_id,
    }))
}

/// Arguments of `rpc/langgraph_list`; `None` does not filter.
#[derive(Debug, Clone, PartialEq)]
pub struct ListArgs {
    pub p_thread_id: Option<String>,
    /// `None` lists every namespace (LangGraph: `checkpoint_ns` absent from the config).
    pub p_checkpoint_ns: Option<String>,
    pub p_checkpoint_id: Option<String>,
    /// Metadata containment (`@>`).
    pub p_filter: Option<Value>,
    pub p_before: Option<String>,
    pub p_limit: Option<u32>,
}

impl ListArgs {
    /// The RPC's arguments as JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(object(vec![
            ("p_thread_id", Some(opt_text(&self.p_thread_id))),
            ("p_checkpoint_ns", Some(opt_text(&self.p_checkpoint_ns))),
            ("p_checkpoint_id", Some(opt_text(&self.p_checkpoint_id))),
            ("p_filter", Some(self.p_filter.clone().unwrap_or(Value::Null))),
            ("p_before", Some(opt_text(&self.p_before))),
            ("p_limit", Some(self.p_limit.map_or(Value::Null, Value::from))),
        ]))
    }
}

/// `list(config, { filter, before, limit })`, where `options.before` is already the
/// checkpoint id of the `before` config.
pub fn list_args(configurable: &Value, options: &Value) -> Result<ListArgs> {
    let ids = ids(configurable)?.unwrap_or_default();
    let options = match options {
        Value::Null => &Map::new(),
        v => input::object(v, "options")?,
    };
    let filter = match options.get("filter") {
        None | Some(Value::Null) => None,
        // {} matches everything: no predicate at all.
        Some(Value::Object(f)) if f.is_empty() => None,
        // Stored metadata had U+0000 removed, so a filter must too, or it could never match.
        Some(f @ Value::Object(_)) => Some(strip_nul(f.clone())),
        Some(other) => {
            return Err(input::expected("options.filter", "an object of metadata keys and values", other).into());
        }
    };
    let before = optional_string(options, "options", "before")?.filter(|s| !s.is_empty());
    let limit =
        input::get(options, "limit").map(|v| input::whole(v, "options.limit", 0, i32::MAX.into())).transpose()?;
    Ok(ListArgs {
        p_thread_id: ids.thread_id,
        p_checkpoint_ns: ids.checkpoint_ns,
        p_checkpoint_id: ids.checkpoint_id,
        p_filter: filter,
        p_before: before,
        p_limit: limit.map(|n| n as u32),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::checkpoint::CheckpointError::InvalidInput;

    fn json_bytes(v: Value) -> TypedBytes {
        TypedBytes { type_: "json".into(), bytes: serde_json::to_vec(&v).unwrap() }
    }
    fn field(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(InvalidInput(e)) => e.field,
            other => panic!("expected invalid input, got {other:?}"),
        }
    }
    fn meta() -> TypedBytes {
        json_bytes(json!({"source": "input", "step": -1, "parents": {}}))
    }

    #[test]
    fn put_marks_valueless_channels_empty() {
        let args = put_args(
            &json!({"thread_id": "t", "checkpoint_id": "parent"}),
            &json!({"v": 4, "id": "c1", "ts": "x", "channel_versions": {"a": 2, "b": "v.1"}}),
            &json!({"a": 2, "b": "v.1"}),
            vec![("a".into(), TypedBytes { type_: "bytes".into(), bytes: vec![0, 255] })],
            meta(),
        )
        .unwrap();
        assert_eq!(
            args.to_json(),
            json!({
                "p_thread_id": "t", "p_checkpoint_ns": "", "p_checkpoint_id": "c1", "p_parent_checkpoint_id": "parent",
                "p_type": null,
                "p_checkpoint": {"v": 4, "id": "c1", "ts": "x", "channel_versions": {"a": 2, "b": "v.1"}},
                "p_metadata": {"source": "input", "step": -1, "parents": {}},
                "p_blobs": [
                    {"channel": "a", "version": "2", "type": "bytes", "blob": "AP8="},
                    {"channel": "b", "version": "v.1", "type": "empty", "blob": null},
                ],
            })
        );
    }

    #[test]
    fn versions_print_as_postgres_numeric_text() {
        let v = |x: Value| version_text(&x, "v").unwrap();
        assert_eq!(v(json!(7)), "7");
        assert_eq!(v(json!(-3)), "-3");
        assert_eq!(v(json!(u64::MAX)), "18446744073709551615");
        assert_eq!(v(json!(1.5)), "1.5");
        assert_eq!(v(json!(1e21)), "1000000000000000000000");
        assert_eq!(v(json!(1e-7)), "0.0000001");
        assert_eq!(v(json!("00000000000000000000000000000001.0.5")), "00000000000000000000000000000001.0.5");
        assert!(version_text(&json!(true), "newVersions.a").is_err());
    }

    #[test]
    fn metadata_loses_nul_in_strings_and_keys_only() {
        let args = put_args(
            &json!({"thread_id": "t"}),
            &json!({"id": "c"}),
            &json!({}),
            vec![],
            json_bytes(json!({"a\u{0}b": ["x\u{0}", {"\u{0}": "\u{0}\u{0}"}], "n": 1, "s": "é😀"})),
        )
        .unwrap();
        assert_eq!(args.p_metadata, json!({"ab": ["x", {"": ""}], "n": 1, "s": "é😀"}));
        assert_eq!(args.p_parent_checkpoint_id, None);
        assert!(args.p_blobs.is_empty());
    }

    #[test]
    fn put_refuses_what_cannot_be_stored() {
        let ok_ckpt = json!({"id": "c"});
        let put = |cfg: Value, ckpt: &Value, nv: Value, m: TypedBytes| put_args(&cfg, ckpt, &nv, vec![], m);
        assert_eq!(field(put(json!(null), &ok_ckpt, json!({}), meta())), "config.configurable");
        assert_eq!(field(put(json!({}), &ok_ckpt, json!({}), meta())), "config.configurable.thread_id");
        assert_eq!(field(put(json!({"thread_id": ""}), &ok_ckpt, json!({}), meta())), "config.configurable.thread_id");
        assert_eq!(field(put(json!({"thread_id": 1}), &ok_ckpt, json!({}), meta())), "config.configurable.thread_id");
        assert_eq!(
            field(put(json!({"thread_id": "t", "checkpoint_ns": 5}), &ok_ckpt, json!({}), meta())),
            "config.configurable.checkpoint_ns"
        );
        let t = || json!({"thread_id": "t"});
        assert_eq!(field(put(t(), &json!([]), json!({}), meta())), "checkpoint");
        assert_eq!(field(put(t(), &json!({"id": ""}), json!({}), meta())), "checkpoint.id");
        assert_eq!(
            field(put(t(), &json!({"id": "c", "channel_values": {}}), json!({}), meta())),
            "checkpoint.channel_values"
        );
        assert_eq!(
            field(put(t(), &json!({"id": "c", "channel_versions": []}), json!({}), meta())),
            "checkpoint.channel_versions"
        );
        assert_eq!(field(put(t(), &ok_ckpt, json!([]), meta())), "newVersions");
        assert_eq!(field(put(t(), &ok_ckpt, json!({"a": null}), meta())), "newVersions.a");
        assert_eq!(
            field(put(t(), &ok_ckpt, json!({"zz": 1}), meta())),
            "newVersions.zz",
            "a channel the checkpoint has no version of"
        );
        assert_eq!(
            field(put(t(), &ok_ckpt, json!({}), TypedBytes { type_: "bytes".into(), bytes: vec![] })),
            "metadata"
        );
        assert_eq!(
            field(put(t(), &ok_ckpt, json!({}), TypedBytes { type_: "json".into(), bytes: b"{".to_vec() })),
            "metadata"
        );
        assert_eq!(field(put(t(), &ok_ckpt, json!({}), json_bytes(json!([1])))), "metadata");
    }

    #[test]
    fn writes_use_the_special_index_map_else_their_position() {
        let w = |c: &str| (c.to_string(), TypedBytes { type_: "json".into(), bytes: b"1".to_vec() });
        let args = put_writes_args(
            &json!({"thread_id": "t", "checkpoint_ns": "n", "checkpoint_id": "c"}),
            "task",
            "~path",
            vec![w("a"), w("__error__"), w("b"), w("__scheduled__"), w("__interrupt__"), w("__resume__")],
        )
        .unwrap()
        .unwrap();
        assert_eq!(args.p_writes.iter().map(|w| w.idx).collect::<Vec<_>>(), [0, -1, 2, -2, -3, -4]);
        assert_eq!((args.p_thread_id.as_str(), args.p_checkpoint_ns.as_str()), ("t", "n"));
        assert_eq!((args.p_task_id.as_str(), args.p_task_path.as_str()), ("task", "~path"));
        assert_eq!(
            (args.p_writes[0].blob.as_deref(), args.p_writes[0].text.as_deref()),
            (None, Some("1")),
            "JSON as text"
        );

        // Bytes, and "json" that is not text Postgres can hold, travel as base64.
        let odd = |ty: &str, bytes: &[u8]| ("x".to_string(), TypedBytes { type_: ty.into(), bytes: bytes.to_vec() });
        let cfg = json!({"thread_id": "t", "checkpoint_id": "c"});
        let args =
            put_writes_args(&cfg, "task", "", vec![odd("bytes", b"hi"), odd("json", b"\"a\0\""), odd("json", &[0xff])]);
        let blobs: Vec<_> = args.unwrap().unwrap().p_writes.into_iter().map(|w| (w.blob, w.text)).collect();
        assert_eq!(blobs, [(Some("aGk=".into()), None), (Some("ImEAIg==".into()), None), (Some("/w==".into()), None)]);

        let cfg = json!({"thread_id": "t", "checkpoint_id": "c"});
        assert_eq!(put_writes_args(&cfg, "task", "", vec![]).unwrap(), None, "nothing to send");
        assert_eq!(
            field(put_writes_args(&json!({"thread_id": "t"}), "task", "", vec![])),
            "config.configurable.checkpoint_id"
        );
        assert_eq!(
            field(put_writes_args(&json!({"checkpoint_id": "c"}), "task", "", vec![])),
            "config.configurable.thread_id"
        );
        assert_eq!(field(put_writes_args(&cfg, "", "", vec![w("a")])), "taskId");
    }

    #[test]
    fn reads_without_a_thread_and_list_filters() {
        assert_eq!(get_tuple_args(&json!(null)).unwrap(), None);
        assert_eq!(get_tuple_args(&json!({"checkpoint_ns": ""})).unwrap(), None);
        assert_eq!(
            get_tuple_args(&json!({"thread_id": "t", "checkpoint_id": ""})).unwrap(),
            Some(GetTupleArgs { p_thread_id: "t".into(), p_checkpoint_ns: "".into(), p_checkpoint_id: None })
        );

        let all = list_args(&json!(null), &json!(null)).unwrap();
        assert_eq!(
            all.to_json(),
            json!({"p_thread_id": null, "p_checkpoint_ns": null, "p_checkpoint_id": null, "p_filter": null, "p_before": null, "p_limit": null})
        );
        let some = list_args(
            &json!({"thread_id": "t", "checkpoint_ns": ""}),
            &json!({"filter": {"source": "loop", "k\u{0}": "v\u{0}"}, "before": "c9", "limit": 2}),
        )
        .unwrap();
        assert_eq!(some.p_checkpoint_ns.as_deref(), Some(""), "the root namespace, not every namespace");
        assert_eq!(some.p_filter, Some(json!({"source": "loop", "k": "v"})));
        assert_eq!((some.p_before.as_deref(), some.p_limit), (Some("c9"), Some(2)));
        assert_eq!(
            list_args(&json!({}), &json!({"filter": {}})).unwrap().p_filter,
            None,
            "an empty filter filters nothing"
        );

        assert_eq!(field(list_args(&json!({}), &json!({"filter": "x"}))), "options.filter");
        assert_eq!(field(list_args(&json!({}), &json!({"limit": -1}))), "options.limit");
        assert_eq!(field(list_args(&json!({}), &json!({"limit": 1.5}))), "options.limit");
        assert_eq!(field(list_args(&json!({}), &json!({"before": 3}))), "options.before");
    }
}
