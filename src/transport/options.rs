//! The options of a PostgREST request as callers write them (`{ columns, filters, order,
//! limit, ... }`), checked and read into the types the request builders take.

use serde_json::Value;

use crate::error::ErrorReport;
use crate::input::{self, Object};

string_enum!(
    /// `count`: how PostgREST counts the rows (`Prefer: count=…`).
    CountMode { Exact = "exact", Planned = "planned", Estimated = "estimated" }
);

string_enum!(
    /// `returning`: what a write answers with.
    Returning { Minimal = "minimal", Representation = "representation" }
);

#[allow(clippy::derivable_impls)] // string_enum! derives; a variant attribute would be its only use
impl Default for Returning {
    fn default() -> Self {
        Returning::Minimal
    }
}

/// `order` as a PostgREST string (`"created_at.desc,id"`) or a list of terms.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderSpec {
    Raw(String),
    Terms(Vec<OrderTerm>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderTerm {
    pub column: String,
    pub ascending: bool,
    pub nulls_first: Option<bool>,
}

impl OrderSpec {
    fn parse(o: &Object) -> Result<Option<OrderSpec>, ErrorReport> {
        let field = o.field("order");
        Ok(match o.get("order") {
            None => None,
            Some(Value::String(s)) => Some(OrderSpec::Raw(s.clone())),
            Some(Value::Array(terms)) => Some(OrderSpec::Terms(
                terms
                    .iter()
                    .enumerate()
                    .map(|(i, term)| {
                        let t =
                            Object::new(term, &format!("{field}[{i}]"), "", &["column", "ascending", "nullsFirst"])?;
                        let nulls_first = match t.get("nullsFirst") {
                            None => None,
                            Some(_) => Some(t.flag("nullsFirst")?),
                        };
                        let ascending = t.get("ascending").is_none() || t.flag("ascending")?;
                        Ok(OrderTerm { column: t.required_string("column")?, ascending, nulls_first })
                    })
                    .collect::<Result<_, ErrorReport>>()?,
            )),
            Some(other) => {
                return Err(input::expected(
                    &field,
                    "a string or an array of { column, ascending, nullsFirst }",
                    other,
                )
                .into());
            }
        })
    }
}

/// Options shared by reads and by the representation of writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadOptions {
    pub columns: Option<String>,
    pub filters: Vec<Value>,
    pub order: Option<OrderSpec>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub count: Option<CountMode>,
    pub single: bool,
    pub maybe_single: bool,
    /// HEAD instead of GET: only the count and headers.
    pub head: bool,
}

/// The options of a read (a `select`, or the rows an RPC returns), in the order a message
/// lists them; `head` is the select's alone.
pub const READ_OPTIONS: [&str; 9] =
    ["columns", "filters", "order", "limit", "offset", "count", "single", "maybeSingle", "head"];

impl ReadOptions {
    /// `select` options, as the caller writes them.
    pub fn parse(v: &Value) -> Result<ReadOptions, ErrorReport> {
        let o = Object::new(v, "", "options", &READ_OPTIONS)?;
        Ok(ReadOptions { head: o.flag("head")?, ..ReadOptions::read(&o)? })
    }

    /// The read options of `o` but `head`.
    fn read(o: &Object) -> Result<ReadOptions, ErrorReport> {
        Ok(ReadOptions {
            columns: o.string("columns")?,
            filters: o.array("filters")?,
            order: OrderSpec::parse(o)?,
            limit: o.count("limit")?,
            offset: o.count("offset")?,
            count: o.choice("count")?,
            single: o.flag("single")?,
            maybe_single: o.flag("maybeSingle")?,
            head: false,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteOptions {
    pub returning: Returning,
    /// Columns to return with `returning: "representation"`.
    pub columns: Option<String>,
    /// Insert only these keys (PostgREST `columns=`): tolerates rows with differing keys.
    pub insert_columns: Option<Vec<String>>,
    pub count: Option<CountMode>,
    pub single: bool,
    /// For upserts: the conflict target (defaults to the primary key).
    pub on_conflict: Option<Vec<String>>,
    /// For upserts: keep existing rows instead of merging.
    pub ignore_duplicates: bool,
    /// Columns missing from a row take their DEFAULT instead of NULL (`missing=default`).
    pub missing_default: bool,
    pub filters: Vec<Value>,
}

impl WriteOptions {
    /// `insert` / `upsert` / `update` / `delete` options, as the caller writes them.
    pub fn parse(v: &Value) -> Result<WriteOptions, ErrorReport> {
        let o = Object::new(v, "", "options", &WRITE_OPTIONS)?;
        Ok(WriteOptions {
            returning: o.choice("returning")?.unwrap_or_default(),
            columns: o.string("columns")?,
            insert_columns: o.strings("insertColumns")?,
            count: o.choice("count")?,
            single: o.flag("single")?,
            on_conflict: o.strings("onConflict")?,
            ignore_duplicates: o.flag("ignoreDuplicates")?,
            missing_default: o.flag("missingDefault")?,
            filters: o.array("filters")?,
        })
    }
}

/// The options of a write (`insert`, `upsert`, `update`, `delete`), in the order a message
/// lists them.
pub const WRITE_OPTIONS: [&str; 9] = [
    "returning",
    "columns",
    "insertColumns",
    "count",
    "single",
    "onConflict",
    "ignoreDuplicates",
    "missingDefault",
    "filters",
];

/// The options of an `rpc`, in the order a message lists them: its own, then a read's
/// but `head`.
pub fn rpc_options() -> Vec<&'static str> {
    let mut keys = vec!["idempotent", "get"];
    keys.extend(&READ_OPTIONS[..READ_OPTIONS.len() - 1]);
    keys
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RpcOptions {
    /// Declares the function safe to call twice, which allows retries.
    pub idempotent: bool,
    /// Call with GET (arguments in the query string; the function must not write).
    pub get: bool,
    /// The options of the result's rows, as for a read (`head` aside).
    pub read: ReadOptions,
}

impl RpcOptions {
    /// `rpc` options, as the caller writes them.
    pub fn parse(v: &Value) -> Result<RpcOptions, ErrorReport> {
        let o = Object::new(v, "", "options", &rpc_options())?;
        Ok(RpcOptions { idempotent: o.flag("idempotent")?, get: o.flag("get")?, read: ReadOptions::read(&o)? })
    }

    /// An RPC that is safe to send twice (so it may be retried), with no other option.
    pub fn idempotent() -> RpcOptions {
        RpcOptions { idempotent: true, ..RpcOptions::default() }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn options_name_the_option_at_fault() {
        let field = |r: Result<ReadOptions, ErrorReport>| r.unwrap_err().field.unwrap_or_default();
        assert_eq!(field(ReadOptions::parse(&json!({"limt": 1}))), "limt");
        assert_eq!(field(ReadOptions::parse(&json!({"limit": -1}))), "limit");
        assert_eq!(field(ReadOptions::parse(&json!({"count": "all"}))), "count");
        assert_eq!(field(ReadOptions::parse(&json!({"order": [{"column": "a"}, {"column": 1}]}))), "order[1].column");
        assert_eq!(field(ReadOptions::parse(&json!({"order": 5}))), "order");
        let e = ReadOptions::parse(&json!({"count": "all"})).unwrap_err();
        assert_eq!(e.message, r#"count must be one of exact, planned, estimated, got the string "all""#);
        let e = WriteOptions::parse(&json!({"onConflict": ["a", 2]})).unwrap_err();
        assert_eq!(
            (e.field.as_deref(), e.message.as_str()),
            (Some("onConflict[1]"), "onConflict[1] must be a string, got the number 2")
        );
        let o = ReadOptions::parse(
            &json!({"order": [{"column": "a", "ascending": false, "nullsFirst": true}], "count": "planned"}),
        )
        .unwrap();
        assert_eq!(
            o.order,
            Some(OrderSpec::Terms(vec![OrderTerm { column: "a".into(), ascending: false, nulls_first: Some(true) }]))
        );
        assert_eq!(o.count, Some(CountMode::Planned));
        assert_eq!(
            RpcOptions::parse(&json!({"limit": null})).unwrap(),
            RpcOptions::default(),
            "null leaves an option out"
        );
    }
}
