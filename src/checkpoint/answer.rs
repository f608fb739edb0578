//! A read's tuples as they leave the module: JSON text, and the values' bytes beside it,
//! which JSON cannot carry (`Output::Buffers`). One string and one byte buffer per stored
//! value cross the boundary (the facade's `JSON.parse` builds the objects) instead of a
//! conversion per field.

use std::fmt::Write;

use super::{Payload, Tuple, TupleConfig, TypedValue};
use crate::json::{write_list, write_object, write_str};
use crate::op::Output;

/// `{ rows, count }` as JSON text, each row
/// `{ config, parentConfig?, checkpoint (no channel_values), metadata (JSON text),
///    values: [[channel, version, type | null (an "empty" channel), data | null]],
///    refs: [[channel, version]] (values an earlier row of the same answer carried),
///    pendingWrites: [[taskId, channel, type, data]], pendingSends?: [[type, data]] }`,
/// where `data` is the index of the value's bytes among the buffers (langgraph.js
/// `readAnswer`). The bytes move out of the tuples: nothing is copied here.
pub fn answer(mut tuples: Vec<Tuple>, count: Option<u64>) -> Output {
    let mut buffers = Vec::new();
    let mut out = String::from(r#"{"rows":"#);
    write_list(&mut out, tuples.iter_mut(), |out, t| {
        out.push_str(r#"{"config":"#);
        config_json(out, &t.config);
        if let Some(parent) = &t.parent_config {
            out.push_str(r#","parentConfig":"#);
            config_json(out, parent);
        }
        out.push_str(r#","checkpoint":"#);
        write_object(out, &t.checkpoint);
        out.push_str(r#","metadata":"#);
        write_str(out, &t.metadata);
        out.push_str(r#","values":"#);
        write_list(out, t.values.iter_mut(), |out, v| {
            out.push('[');
            two_texts(out, &v.channel, &v.version);
            out.push(',');
            match &mut v.value {
                Some(value) => typed_json(out, value, &mut buffers),
                None => out.push_str("null,null"),
            }
            out.push(']');
        });
        out.push_str(r#","refs":"#);
        write_list(out, &t.refs, |out, r| {
            out.push('[');
            two_texts(out, &r.channel, &r.version);
            out.push(']');
        });
        out.push_str(r#","pendingWrites":"#);
        write_list(out, t.pending_writes.iter_mut(), |out, w| {
            out.push('[');
            two_texts(out, &w.task_id, &w.channel);
            out.push(',');
            typed_json(out, &mut w.value, &mut buffers);
            out.push(']');
        });
        if let Some(sends) = &mut t.pending_sends {
            out.push_str(r#","pendingSends":"#);
            write_list(out, sends.iter_mut(), |out, s| {
                out.push('[');
                typed_json(out, s, &mut buffers);
                out.push(']');
            });
        }
        out.push('}');
    });
    match count {
        Some(n) => {
            let _ = write!(out, r#","count":{n}}}"#);
        }
        None => out.push_str(r#","count":null}"#),
    }
    Output::Buffers(out, buffers)
}

/// `{"configurable":{"thread_id":…,"checkpoint_ns":…,"checkpoint_id":…}}`, keys in that order.
fn config_json(out: &mut String, config: &TupleConfig) {
    let c = &config.configurable;
    out.push_str(r#"{"configurable":{"thread_id":"#);
    write_str(out, &c.thread_id);
    out.push_str(r#","checkpoint_ns":"#);
    write_str(out, &c.checkpoint_ns);
    out.push_str(r#","checkpoint_id":"#);
    write_str(out, &c.checkpoint_id);
    out.push_str("}}");
}

/// `"type",data` of a stored value: `data` is the index of its bytes among `buffers`, a
/// value stored as text too (its UTF-8 bytes, which the serializer's `loadsTyped` takes as
/// it takes the bytes it made): written into the text, a long value would be escaped here
/// and scanned again by the engine's `JSON.parse`, where its bytes cross as they are.
fn typed_json(out: &mut String, v: &mut TypedValue, buffers: &mut Vec<Vec<u8>>) {
    write_str(out, &v.type_);
    let _ = write!(out, ",{}", buffers.len());
    buffers.push(match std::mem::replace(&mut v.data, Payload::Bytes(Vec::new())) {
        Payload::Text(t) => t.into_bytes(),
        Payload::Bytes(b) => b,
    });
}

/// `"a","b"`: the two texts that open a value's, a ref's or a write's array.
fn two_texts(out: &mut String, a: &str, b: &str) {
    write_str(out, a);
    out.push(',');
    write_str(out, b);
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;
    use crate::checkpoint::{BlobRef, ChannelValue, PendingWrite};

    fn config(id: &str) -> TupleConfig {
        TupleConfig::new("t", "", id.into())
    }

    fn typed(type_: &str, data: Payload) -> TypedValue {
        TypedValue { type_: type_.into(), data }
    }

    #[test]
    fn bytes_travel_beside_the_text_in_the_order_the_text_names_them() {
        let tuple = Tuple {
            config: config("2"),
            parent_config: Some(config("1")),
            checkpoint: Map::new(),
            metadata: "{}".into(),
            values: vec![
                ChannelValue {
                    channel: "a".into(),
                    version: "1".into(),
                    value: Some(typed("bytes", Payload::Bytes(vec![1, 2]))),
                },
                ChannelValue { channel: "b".into(), version: "1".into(), value: None },
                ChannelValue {
                    channel: "c".into(),
                    version: "1".into(),
                    value: Some(typed("json", Payload::Text("\"x\"".into()))),
                },
            ],
            refs: vec![BlobRef { channel: "d".into(), version: "2".into() }],
            pending_writes: vec![PendingWrite {
                task_id: "k".into(),
                channel: "e".into(),
                value: typed("msgpack", Payload::Bytes(vec![3])),
            }],
            pending_sends: Some(vec![typed("msgpack", Payload::Bytes(vec![4, 5, 6]))]),
        };
        let Output::Buffers(text, buffers) = answer(vec![tuple], None) else { panic!("not buffers") };
        let c =
            |id: &str| format!(r#"{{"configurable":{{"thread_id":"t","checkpoint_ns":"","checkpoint_id":"{id}"}}}}"#);
        assert_eq!(
            text,
            format!(
                r#"{{"rows":[{{"config":{},"parentConfig":{},"checkpoint":{{}},"metadata":"{{}}","values":[["a","1","bytes",0],["b","1",null,null],["c","1","json",1]],"refs":[["d","2"]],"pendingWrites":[["k","e","msgpack",2]],"pendingSends":[["msgpack",3]]}}],"count":null}}"#,
                c("2"),
                c("1")
            )
        );
        assert_eq!(buffers, [vec![1, 2], b"\"x\"".to_vec(), vec![3], vec![4, 5, 6]]);
        let Output::Buffers(text, buffers) = answer(Vec::new(), Some(0)) else { panic!("not buffers") };
        assert_eq!((text.as_str(), buffers.len()), (r#"{"rows":[],"count":0}"#, 0));
    }
}
