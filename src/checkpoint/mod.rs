//! LangGraph checkpoint row codecs: what the saver (`pkg-template/langgraph.js`) sends to
//! the RPCs of `supabase/migrations/20261122000100_langgraph_checkpoints.sql`, and how the
//! rows they return become LangGraph's `CheckpointTuple`s again.
//!
//! Values stay opaque here. The saver serializes every channel value, pending write and
//! the metadata with its `serde` (LangGraph's `JsonPlusSerializer` by default, which turns
//! LangChain messages back into message objects), and hands this module `(type, bytes)`
//! pairs. What this module owns is the row shape and LangGraph's storage rules:
//!
//! - `put`: the checkpoint without `channel_values`; one blob per channel in `newVersions`
//!   (type `"empty"` and no bytes when the channel has no value), so unchanged channels
//!   are never rewritten; metadata as jsonb with `\u0000` removed from every string and
//!   key (jsonb cannot store it);
//! - `putWrites`: `WRITES_IDX_MAP` indexes for special channels, positions otherwise;
//! - reading: `channel_values` rebuilt from the blobs (`"empty"` dropped), pending writes
//!   in `(task_path, task_id, idx)` code-point order, and the migration of checkpoints older
//!   than format v4 (their parent's `__pregel_tasks` writes become `channel_values.__pregel_tasks`).

mod answer;
mod ops;
mod read;
mod write;

pub use answer::answer;
pub use ops::{Call, CheckpointOp, MIGRATION, check, operation};

pub use read::{BlobRef, ChannelValue, PendingWrite, Tuple, TupleConfig, decode_rows};
pub use write::{
    BlobArg, GetTupleArgs, ListArgs, MAX_PREVIEW_CHARS, PutArgs, PutWritesArgs, WriteArg, get_tuple_args, list_args,
    list_threads_args, preview_arg, put_args, put_writes_args, strip_nul,
};

use crate::error::{ErrorCode, ErrorReport, Invalid};

/// The channel of pending `Send`s (`TASKS` in `@langchain/langgraph-checkpoint`).
pub const TASKS: &str = "__pregel_tasks";

/// LangGraph's `WRITES_IDX_MAP`: special channels get fixed negative indexes, so a task's
/// error/interrupt/... write replaces the previous one instead of piling up.
pub const WRITES_IDX_MAP: [(&str, i64); 4] =
    [("__error__", -1), ("__scheduled__", -2), ("__interrupt__", -3), ("__resume__", -4)];

pub fn special_write_idx(channel: &str) -> Option<i64> {
    WRITES_IDX_MAP.iter().find(|(c, _)| *c == channel).map(|(_, i)| *i)
}

/// A value as the saver's serializer produced it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypedBytes {
    pub type_: String,
    pub bytes: Vec<u8>,
}

impl TypedBytes {
    /// The bytes as text when they can travel as a JSON string instead of base64: a "json"
    /// value (UTF-8 by definition) without NUL, which Postgres text cannot hold. That is
    /// every value of LangGraph's JsonPlusSerializer but raw byte arrays, and saves base64's
    /// third on the wire and its encoding on both ends.
    pub fn as_text(&self) -> Option<&str> {
        if self.type_ != "json" || self.bytes.contains(&0) {
            return None;
        }
        std::str::from_utf8(&self.bytes).ok()
    }

    /// `(blob, text)` as the RPCs take a value: base64 bytes, or the text itself.
    pub(crate) fn encode(&self) -> (Option<String>, Option<String>) {
        match self.as_text() {
            Some(t) => (None, Some(t.to_owned())),
            None => (Some(crate::base64::encode(&self.bytes)), None),
        }
    }
}

/// A serializer's `[type, Uint8Array]`, as the saver copies it.
impl crate::arguments::Param for TypedBytes {
    const TS: &'static str = "[type: string, bytes: Uint8Array]";
    const OPTIONAL: bool = false;
    fn read(args: &mut dyn crate::arguments::Arguments, field: &str) -> Self {
        args.typed_bytes(field)
    }
}

/// Serialized values by channel: `[[channel, [type, Uint8Array]], …]`.
impl crate::arguments::Param for Vec<(String, TypedBytes)> {
    const TS: &'static str = "[channel: string, value: [type: string, bytes: Uint8Array]][]";
    const OPTIONAL: bool = false;
    fn read(args: &mut dyn crate::arguments::Arguments, field: &str) -> Self {
        args.named_typed_bytes(field)
    }
}

/// A stored value as a row carries it back: bytes (from base64) or text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    Bytes(Vec<u8>),
    Text(String),
}

/// A stored value and its serializer type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedValue {
    pub type_: String,
    pub data: Payload,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckpointError {
    /// The caller's config, checkpoint, metadata or options cannot be stored or queried.
    #[error(transparent)]
    InvalidInput(#[from] Invalid),
    /// The server answered with something that is not a checkpoint row of our SQL.
    #[error("the server returned a malformed checkpoint row: {0}")]
    MalformedRow(String),
}

impl CheckpointError {
    pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        CheckpointError::InvalidInput(Invalid::new(field, message))
    }
}

impl From<CheckpointError> for ErrorReport {
    fn from(e: CheckpointError) -> Self {
        match e {
            CheckpointError::InvalidInput(e) => e.into(),
            e @ CheckpointError::MalformedRow(_) => ErrorReport::new(ErrorCode::Server, e.to_string()),
        }
    }
}

#[cfg(test)]
mod roundtrip_tests;
