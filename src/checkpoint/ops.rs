//! The saver's operations on the database, each ONE request to an RPC of the checkpoint
//! migration, and the same checks for the in-memory backend (which makes no request).
//!
//! All of them are safe to send twice, so the client may retry them after a lost answer:
//! blobs, the checkpoint row and ordinary writes are insert-once (the same content again is
//! a no-op), special writes an upsert of the same values;
//! deleting a thread, retention and metrics likewise.

use serde_json::Value;

use super::{
    CheckpointError, TypedBytes, decode_rows, get_tuple_args, list_args, list_threads_args, preview_arg, put_args,
    put_writes_args,
};
use crate::error::ErrorReport;
use crate::op::{Op, Output, Step};
use crate::transport::options::{CountMode, ReadOptions, RpcOptions};
use crate::transport::request;
use crate::transport::target::Target;

/// What this capability's migration creates ([`crate::migration::Migration`]).
pub const MIGRATION: crate::migration::Migration = (
    "20261122000100_langgraph_checkpoints.sql",
    &[
        "langgraph_checkpoints",
        "langgraph_checkpoint_blobs",
        "langgraph_checkpoint_writes",
        "langgraph_checkpoint_metrics",
        "langgraph_get_tuple",
        "langgraph_list",
        "langgraph_list_threads",
        "langgraph_threads",
        "langgraph_put",
        "langgraph_put_writes",
        "langgraph_delete_thread",
        "cleanup_old_checkpoints",
        "agentmem.langgraph_tuples",
    ],
);

operations!(
    /// The saver's operations against the database (`call`'s `op` for the capability
    /// `checkpoint`), one a [`Call`] variant.
    CheckpointOp,
    /// A saver call, its arguments converted from what LangGraph passed (`configurable` is
    /// the `{ thread_id, checkpoint_ns, checkpoint_id }` of a config, or `null`). Reads answer
    /// `ReadAnswer`: JSON text and the byte buffers it refers to (`super::answer`).
    Call {
        GetTuple = "getTuple" { configurable: Value = "config.configurable" } -> "ReadAnswer",
        /// `options` is `{ filter, before (a checkpoint id), limit }`; `offset` pages past the
        /// server's max-rows.
        List = "list" {
            configurable: Value = "config.configurable",
            options: Value = "options",
            offset: u64 = "offset",
        } -> "ReadAnswer",
        /// `values`: the serialized values of the channels in `new_versions` that have one.
        Put = "put" {
            configurable: Value = "config.configurable",
            checkpoint: Value = "checkpoint",
            new_versions: Value = "newVersions",
            values: Vec<(String, TypedBytes)> = "values",
            metadata: TypedBytes = "metadata",
            /// `{human, ai}` text of the state's last messages, or `null` (boxed: the
            /// variant would be far larger than the others).
            preview: Box<Value> = "preview",
        } -> "{ thread_id: string, checkpoint_ns: string, checkpoint_id: string }",
        /// `task_path`: not given is "".
        PutWrites = "putWrites" {
            configurable: Value = "config.configurable",
            task_id: String = "taskId",
            task_path: Option<String> = "taskPath",
            writes: Vec<(String, TypedBytes)> = "writes",
        } -> "null",
        DeleteThread = "deleteThread" { thread_id: String = "threadId" } -> "null",
        /// Deletes checkpoints older than `days_old` days, keeping each thread's latest.
        CleanupOldCheckpoints = "cleanupOldCheckpoints" { days_old: f64 = "daysOld" } -> "number",
        /// Counts and bytes of one thread, or of every visible one.
        Metrics = "metrics" { thread_id: Option<String> = "threadId" } -> "CheckpointMetrics",
        /// The caller's threads, newest first: `{prefix, filter, limit, offset}`.
        ListThreads = "listThreads" { options: Value = "options" } -> "Omit<ThreadSummary, \"config\" | \"step\" | \"source\">[]",
    }
);

/// What a call sends: the RPC, its arguments, whether it pages, and what its answer is.
enum Plan {
    /// Nothing to send (getTuple without a thread, putWrites without writes).
    Nothing(Output),
    Rpc {
        function: &'static str,
        args: Value,
        offset: Option<u64>,
        answer: Answer,
    },
}

enum Answer {
    /// Checkpoint rows, decoded into tuples.
    Tuples,
    /// This value, whatever the server answered.
    Fixed(Value),
    /// The RPC's JSON result.
    Data,
}

fn rpc(function: &'static str, args: Result<Value, CheckpointError>, answer: Answer) -> Result<Plan, ErrorReport> {
    Ok(Plan::Rpc { function, args: args?, offset: None, answer })
}

fn plan(call: Call) -> Result<Plan, ErrorReport> {
    match call {
        Call::GetTuple { configurable } => match get_tuple_args(&configurable)? {
            None => Ok(Plan::Nothing(super::answer(Vec::new(), Some(0)))),
            Some(args) => rpc("langgraph_get_tuple", Ok(args.to_json()), Answer::Tuples),
        },
        Call::List { configurable, options, offset } => {
            let plan = rpc("langgraph_list", list_args(&configurable, &options).map(|a| a.to_json()), Answer::Tuples)?;
            Ok(match plan {
                Plan::Rpc { function, args, answer, .. } => Plan::Rpc { function, args, offset: Some(offset), answer },
                nothing => nothing,
            })
        }
        Call::Put { configurable, checkpoint, new_versions, values, metadata, preview } => {
            let mut args = put_args(&configurable, &checkpoint, &new_versions, values, metadata)?;
            args.p_preview = preview_arg(&preview)?;
            let stored = value!({
                "thread_id": args.p_thread_id, "checkpoint_ns": args.p_checkpoint_ns, "checkpoint_id": args.p_checkpoint_id,
            });
            rpc("langgraph_put", Ok(args.to_json()), Answer::Fixed(stored))
        }
        Call::PutWrites { configurable, task_id, task_path, writes } => {
            match put_writes_args(&configurable, &task_id, task_path.as_deref().unwrap_or_default(), writes)? {
                None => Ok(Plan::Nothing(Output::Json(Value::Null))),
                Some(args) => rpc("langgraph_put_writes", Ok(args.to_json()), Answer::Fixed(Value::Null)),
            }
        }
        Call::DeleteThread { thread_id } => {
            rpc("langgraph_delete_thread", Ok(value!({ "p_thread_id": thread_id })), Answer::Fixed(Value::Null))
        }
        Call::CleanupOldCheckpoints { days_old } => {
            if days_old.fract() != 0.0 || !(1.0..=crate::ids::MAX_TIMESTAMP_MS as f64).contains(&days_old) {
                return Err(ErrorReport::invalid_input(
                    "daysOld",
                    format!(
                        "daysOld must be a whole number of at least 1, got the number {}",
                        crate::number::js_text(days_old)
                    ),
                ));
            }
            rpc("cleanup_old_checkpoints", Ok(value!({ "days_old": days_old as u64 })), Answer::Data)
        }
        Call::Metrics { thread_id } => {
            rpc("langgraph_checkpoint_metrics", Ok(value!({ "p_thread_id": thread_id })), Answer::Data)
        }
        Call::ListThreads { options } => rpc("langgraph_list_threads", list_threads_args(&options), Answer::Data),
    }
}

/// Checks `call` as [`operation`] would, without a request: `true` when it would make
/// one, `false` when there is nothing to send.
pub fn check(call: Call) -> Result<bool, ErrorReport> {
    Ok(matches!(plan(call)?, Plan::Rpc { .. }))
}

/// `call` as an operation: its one request and the reading of its answer.
pub fn operation(target: &Target, call: Call) -> Result<Step, ErrorReport> {
    let (function, args, offset, answer) = match plan(call)? {
        Plan::Nothing(output) => return Ok(Step::Done(output)),
        Plan::Rpc { function, args, offset, answer } => (function, args, offset, answer),
    };
    let options = match offset {
        // A list counts its rows, so that the saver sees when max-rows cut the answer short.
        Some(offset) => RpcOptions {
            read: ReadOptions {
                count: Some(CountMode::Exact),
                offset: Some(offset).filter(|o| *o > 0),
                ..ReadOptions::default()
            },
            ..RpcOptions::idempotent()
        },
        None => RpcOptions::idempotent(),
    };
    let req = request::rpc(target, function, &args, &options)?;
    Ok(Step::Send(Op::new(req, move |decoded| {
        Ok(Step::Done(match answer {
            Answer::Tuples => super::answer(decode_rows(decoded.body.as_deref().unwrap_or("null"))?, decoded.count),
            Answer::Fixed(value) => Output::Json(value),
            Answer::Data => Output::Json(decoded.json()?),
        }))
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn target() -> Target {
        Target::new("https://x.supabase.co", "anon-key", None).unwrap()
    }

    fn sent(call: Call) -> crate::transport::request::HttpRequest {
        match operation(&target(), call).unwrap() {
            Step::Send(op) => op.request,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn maintenance_calls_are_one_idempotent_rpc_each() {
        let r = sent(Call::DeleteThread { thread_id: "t".into() });
        assert!(r.url.ends_with("/rpc/langgraph_delete_thread") && r.idempotent, "{}", r.url);
        assert_eq!(r.body.as_deref(), Some(r#"{"p_thread_id":"t"}"#));
        let r = sent(Call::CleanupOldCheckpoints { days_old: 30.0 });
        assert!(r.url.ends_with("/rpc/cleanup_old_checkpoints") && r.idempotent);
        assert_eq!(r.body.as_deref(), Some(r#"{"days_old":30}"#));
        let r = sent(Call::Metrics { thread_id: None });
        assert!(r.url.ends_with("/rpc/langgraph_checkpoint_metrics") && r.idempotent);
        assert_eq!(r.body.as_deref(), Some(r#"{"p_thread_id":null}"#));
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            let e = operation(&target(), Call::CleanupOldCheckpoints { days_old: bad }).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("daysOld"), "{bad}");
        }
    }

    #[test]
    fn list_threads_is_one_idempotent_rpc_with_checked_options() {
        let r = sent(Call::ListThreads { options: Value::Null });
        assert!(r.url.ends_with("/rpc/langgraph_list_threads") && r.idempotent, "{}", r.url);
        assert_eq!(r.body.as_deref(), Some(r#"{"p_prefix":null,"p_filter":null,"p_limit":50,"p_offset":0}"#));
        let r = sent(Call::ListThreads {
            options: json!({"prefix": "chat-", "filter": {"source": "loop"}, "limit": 10, "offset": 20}),
        });
        assert_eq!(
            r.body.as_deref(),
            Some(r#"{"p_prefix":"chat-","p_filter":{"source":"loop"},"p_limit":10,"p_offset":20}"#)
        );
        for (options, field) in [
            (json!([]), "options"),
            (json!({"limit": 0}), "options.limit"),
            (json!({"limit": 1001}), "options.limit"),
            (json!({"offset": -1}), "options.offset"),
            (json!({"prefix": 5}), "options.prefix"),
            (json!({"prefix": "x".repeat(256)}), "options.prefix"),
            (json!({"filter": "source"}), "options.filter"),
            (json!({"before": "c1"}), "options.before"),
        ] {
            let e = operation(&target(), Call::ListThreads { options }).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field));
        }
    }

    #[test]
    fn a_put_carries_its_preview_checked() {
        let put = |preview: Value| Call::Put {
            configurable: json!({"thread_id": "t"}),
            checkpoint: json!({"id": "c", "channel_versions": {}}),
            new_versions: json!({}),
            values: vec![],
            metadata: TypedBytes { type_: "json".into(), bytes: b"{}".to_vec() },
            preview: Box::new(preview),
        };
        let body = |r: crate::transport::request::HttpRequest| -> Value {
            serde_json::from_str(r.body.as_deref().unwrap()).unwrap()
        };
        assert_eq!(
            body(sent(put(json!({"human": "hi", "ai": null})))).get("p_preview"),
            Some(&json!({"human": "hi", "ai": null}))
        );
        assert_eq!(body(sent(put(Value::Null))).get("p_preview"), None, "none sent: the RPC's default");
        for (preview, field) in [
            (json!("hi"), "preview"),
            (json!({"human": 1}), "preview.human"),
            (json!({"user": "x"}), "preview.user"),
            (json!({"ai": "x".repeat(super::super::MAX_PREVIEW_CHARS + 1)}), "preview.ai"),
        ] {
            let e = operation(&target(), put(preview)).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field));
        }
    }

    #[test]
    fn reads_and_writes_with_nothing_to_send_make_no_request() {
        assert!(!check(Call::GetTuple { configurable: Value::Null }).unwrap());
        let writes = Call::PutWrites {
            configurable: json!({"thread_id": "t", "checkpoint_id": "c"}),
            task_id: "task".into(),
            task_path: None,
            writes: vec![],
        };
        assert!(!check(writes.clone()).unwrap());
        assert!(matches!(operation(&target(), writes).unwrap(), Step::Done(Output::Json(Value::Null))));
        let r = sent(Call::List { configurable: Value::Null, options: Value::Null, offset: 20 });
        assert_eq!((r.header("prefer"), r.url.ends_with("/rpc/langgraph_list?offset=20")), (Some("count=exact"), true));
    }
}
