//! Whole statements for each request kind, shaped like PostgREST's
//! (src/PostgREST/Query/Statements.hs, QueryBuilder.hs, SqlFragment.hs): the operation runs
//! in a `pgrst_source` CTE and one outer SELECT returns `total_result_set`, `page_total`,
//! `body` (JSON text built by Postgres), the `response.headers`/`response.status` GUCs and,
//! for upserts, how many rows were inserted rather than updated.

use serde_json::Value;

use crate::error::ApiError;
use crate::media::Media;
use crate::prefer::{Prefer, Resolution, Return};
use crate::query::{QueryParams, SelectItem};
use crate::quote::{ident, literal, qualified};
use crate::read::Node;
use crate::schema::{Function, ReturnShape, SchemaCache, Table};
use crate::sql::{Sql, check_no_nul, conditions_sql, limit_offset, order_clause, where_clause};

/// Rows to skip and the most to return (None = all), after `Range`, `limit`, `offset`
/// and `db-max-rows` were combined as PostgREST's RangeQuery does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub offset: u64,
    pub limit: Option<u64>,
}

impl Window {
    pub fn new(header: Option<(u64, Option<u64>)>, q: &QueryParams, max_rows: Option<u64>) -> Window {
        let (mut offset, mut limit) = header.unwrap_or((0, None));
        if let Some(o) = q.offset {
            // Intersection of [header range] and [offset, ∞).
            if o > offset {
                limit = limit.map(|l| l.saturating_sub(o - offset));
                offset = o;
            }
        }
        if let Some(l) = q.limit {
            limit = Some(limit.map_or(l, |x| x.min(l)));
        }
        if let Some(m) = max_rows {
            limit = Some(limit.map_or(m, |x| x.min(m)));
        }
        Window { offset, limit }
    }

    pub fn is_all(&self) -> bool {
        self.offset == 0 && self.limit.is_none()
    }
}

/// SqlFragment.hs `addConfigPgrstInserted`: every row the INSERT's WHERE lets through adds
/// one to `pgrst.inserted` and every conflict that turns into an update takes it back, so
/// what is left counts the rows really inserted (201 vs 200).
const COUNT_INSERTED: &str = "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'";
const UNCOUNT_INSERTED: &str = "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'";
const INSERTED: &str = "nullif(current_setting('pgrst.inserted', true), '')::int";

const GUC_HEADERS: &str = "nullif(current_setting('response.headers', true), '')";
const GUC_STATUS: &str = "nullif(current_setting('response.status', true), '')";

fn outer(total: &str, page_total: &str, body: &str, inserted: &str, from: &str) -> String {
    outer_with_location(total, page_total, body, inserted, "null", from)
}

fn outer_with_location(
    total: &str,
    page_total: &str,
    body: &str,
    inserted: &str,
    location: &str,
    from: &str,
) -> String {
    format!(
        "SELECT {total}::text AS total_result_set, {page_total}::text AS page_total, {body}::text AS body, \
         {GUC_HEADERS} AS response_headers, {GUC_STATUS} AS response_status, {inserted}::text AS response_inserted, \
         {location}::text AS location, \
         set_config('pgrst.page_total', {page_total}::text, true) AS page_total_guc \
         FROM ({from}) _postgrest_t"
    )
}

/// The response body built by Postgres (SqlFragment.hs `asJsonF`, `asJsonSingleF`,
/// `asCsvF`): a JSON array, a single object or scalar, or CSV with a header row.
fn body_expr(media: Media, scalar: bool, set: bool) -> String {
    let item = if scalar { "_postgrest_t.pgrst_scalar" } else { "_postgrest_t" };
    if media == Media::Csv {
        return "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k FROM \
                (SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a) || '\n' || \
                coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), '\n'), '')"
            .to_owned();
    }
    let strip = |e: String| if media.strip_nulls() { format!("json_strip_nulls({e})") } else { e };
    if media.singular() || !set {
        format!("coalesce({}, 'null')", strip(format!("json_agg({item})->0")))
    } else {
        format!("coalesce({}, '[]')", strip(format!("json_agg({item})")))
    }
}

fn default_select() -> Vec<SelectItem> {
    vec![SelectItem::Star]
}

#[allow(clippy::too_many_arguments)]
pub fn read(
    cache: &SchemaCache,
    table: &Table,
    q: &QueryParams,
    window: Window,
    prefer: &Prefer,
    media: Media,
    max_rows: Option<u64>,
) -> Result<String, ApiError> {
    let qual = ident(&table.name);
    let from = format!("{} AS {qual}", qualified(&cache.schema, &table.name));
    let root = Node::root(cache, Some(table), &table.name, qual, from, q, max_rows)?;
    let source = root.sql(false, Some((window.limit, window.offset)))?;
    let (count_cte, total) = count_parts(prefer, window, &root.sql(true, None)?);
    Ok(format!(
        "WITH pgrst_source AS ({source}){count_cte} {}",
        outer(
            &total,
            "pg_catalog.count(_postgrest_t)",
            &body_expr(media, false, true),
            "''",
            "SELECT * FROM pgrst_source"
        )
    ))
}

/// PostgREST's countF: a separate count only when the page may be smaller than the set.
fn count_parts(prefer: &Prefer, window: Window, count_query: &str) -> (String, String) {
    if !prefer.counting() {
        return (String::new(), "null::bigint".into());
    }
    if window.is_all() {
        (String::new(), "pg_catalog.count(_postgrest_t)".into())
    } else {
        (
            format!(", pgrst_source_count AS ({count_query})"),
            "(SELECT pg_catalog.count(*) FROM pgrst_source_count)".into(),
        )
    }
}

/// The request body as PostgREST reads it: an object or an array of objects.
pub struct Payload {
    pub json: String,
    pub is_object: bool,
    pub keys: Vec<String>,
}

pub fn payload(body: &[u8], columns: Option<&[String]>) -> Result<Payload, ApiError> {
    let invalid = || ApiError::pgrst(400, "PGRST102", "Empty or invalid json");
    let text = std::str::from_utf8(body).map_err(|_| invalid())?;
    let value: Value = serde_json::from_str(text).map_err(|_| invalid())?;
    // A string holding U+0000 (the escape \u0000, not the text "\\u0000"), which Postgres
    // refuses when json_to_record turns it into text or jsonb.
    fn has_nul(v: &Value) -> bool {
        match v {
            Value::String(s) => s.contains('\0'),
            Value::Array(a) => a.iter().any(has_nul),
            Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
            _ => false,
        }
    }
    if has_nul(&value) {
        return Err(ApiError::pgrst(400, "22P05", "unsupported Unicode escape sequence")
            .with_details("\\u0000 cannot be converted to text."));
    }
    let (is_object, objects): (bool, Vec<&serde_json::Map<String, Value>>) = match &value {
        Value::Object(o) => (true, vec![o]),
        Value::Array(items) => {
            let objs = items.iter().map(Value::as_object).collect::<Option<Vec<_>>>().ok_or_else(invalid)?;
            (false, objs)
        }
        _ => return Err(invalid()),
    };
    let keys: Vec<String> = match columns {
        Some(cols) => cols.to_vec(),
        None => {
            let first: Vec<String> = objects.first().map(|o| o.keys().cloned().collect()).unwrap_or_default();
            let mut sorted_first = first.clone();
            sorted_first.sort();
            for o in objects.iter().skip(1) {
                let mut k: Vec<&String> = o.keys().collect();
                k.sort();
                if k.len() != sorted_first.len() || k.iter().zip(&sorted_first).any(|(a, b)| *a != b) {
                    return Err(ApiError::pgrst(400, "PGRST102", "All object keys must match"));
                }
            }
            first
        }
    };
    Ok(Payload { json: text.to_owned(), is_object, keys })
}

fn typed_columns(table: &Table, keys: &[String]) -> Result<String, ApiError> {
    keys.iter()
        .map(|k| {
            table.column(k).map(|c| format!("{} {}", ident(&c.name), c.type_name)).ok_or_else(|| {
                ApiError::pgrst(
                    400,
                    "PGRST204",
                    format!("Could not find the '{k}' column of '{}' in the schema cache", table.name),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|v| v.join(", "))
}

/// `FROM (SELECT $1::json AS json_data) pgrst_payload, LATERAL (SELECT cols FROM
/// json_to_record[set](...) AS _(typed cols)) pgrst_body` (SqlFragment.fromJsonBodyF), the
/// body being the statement's one parameter. With
/// `Prefer: missing=default` each object is first merged over a jsonb object of the
/// columns' DEFAULT expressions, so keys it lacks take the default instead of NULL.
fn json_body_source(table: &Table, p: &Payload, defaults: bool) -> Result<String, ApiError> {
    let defaults: Vec<String> = if defaults {
        p.keys
            .iter()
            .filter_map(|k| table.column(k))
            .filter_map(|c| c.default.as_ref().map(|d| format!("{}, {d}", literal(&c.name))))
            .collect()
    } else {
        Vec::new()
    };
    let (source_json, defs) = if defaults.is_empty() {
        ("pgrst_payload.json_data", String::new())
    } else {
        let obj = format!("jsonb_build_object({})", defaults.join(", "));
        let lateral = if p.is_object {
            format!("LATERAL (SELECT {obj} || pgrst_payload.json_data::jsonb AS val) pgrst_json_defs, ")
        } else {
            format!(
                "LATERAL (SELECT jsonb_agg({obj} || elem) AS val FROM jsonb_array_elements(pgrst_payload.json_data::jsonb) elem) pgrst_json_defs, "
            )
        };
        ("pgrst_json_defs.val", lateral)
    };
    let jsonb = !defs.is_empty();
    let func = match (p.is_object, jsonb) {
        (true, false) => "json_to_record",
        (false, false) => "json_to_recordset",
        (true, true) => "jsonb_to_record",
        (false, true) => "jsonb_to_recordset",
    };
    let cols = p.keys.iter().map(|k| ident(k)).collect::<Vec<_>>().join(", ");
    let source = if p.keys.is_empty() {
        if p.is_object {
            "(values(1)) _".to_owned()
        } else {
            "json_array_elements(pgrst_payload.json_data) _".to_owned()
        }
    } else {
        format!("{func}({source_json}) AS _({})", typed_columns(table, &p.keys)?)
    };
    Ok(format!(
        "FROM (SELECT $1::json AS json_data) pgrst_payload, {defs}LATERAL (SELECT {} FROM {source}) pgrst_body",
        if cols.is_empty() { "1".to_owned() } else { cols }
    ))
}

/// What RETURNING must produce for the outer select (RETURNING 1 when no row is wanted, so
/// RLS SELECT policies are not consulted, as in PostgREST's returningF). Otherwise the
/// selected columns plus the primary key (Plan.hs `inferColsEmbedNeeds` adds it so a
/// Location header can always be built, which is why `return=headers-only` needs SELECT
/// rights too). Embeddings need the join columns, and computed fields the whole row: those
/// return every column.
fn returning(qual: &str, table: &Table, q: &QueryParams, prefer: &Prefer) -> String {
    if !matches!(prefer.ret, Some(Return::Representation | Return::HeadersOnly)) {
        return "RETURNING 1".into();
    }
    let items = q.select.clone().unwrap_or_else(default_select);
    let mut cols: Vec<&str> = Vec::new();
    for i in &items {
        match i {
            SelectItem::Field { field, .. } if table.column(&field.column).is_some() => {
                if !cols.contains(&field.column.as_str()) {
                    cols.push(&field.column);
                }
            }
            _ => return format!("RETURNING {qual}.*"),
        }
    }
    for k in &table.primary_key {
        if !cols.contains(&k.as_str()) {
            cols.push(k);
        }
    }
    format!("RETURNING {}", cols.iter().map(|c| format!("{qual}.{}", ident(c))).collect::<Vec<_>>().join(", "))
}

/// The primary-key columns in the order PostgREST's Location lists them: `locationF` walks
/// the RETURNING row with `json_each_text`, and that row holds the table's columns in table
/// order when the select has `*`, otherwise the returned columns, which
/// `inferColsEmbedNeeds` takes from a sorted set.
pub fn location_keys(table: &Table, q: &QueryParams) -> Vec<String> {
    let star = q.select.as_ref().is_none_or(|items| items.iter().any(|i| matches!(i, SelectItem::Star)));
    if star {
        table.columns.iter().filter(|c| table.primary_key.contains(&c.name)).map(|c| c.name.clone()).collect()
    } else {
        let mut keys = table.primary_key.clone();
        keys.sort();
        keys
    }
}

/// Statements.hs `locF` with SqlFragment.hs `locationF`: when the insert returned exactly
/// one row, its primary-key columns as a JSON array of `[key, "eq.<value>"]` pairs
/// (`is.null` for NULL), read back from the RETURNING row; NULL otherwise, and for a table
/// without a primary key. The response percent-encodes them into `Location`.
fn location_expr(table: &Table, q: &QueryParams) -> String {
    let keys = location_keys(table, q);
    if keys.is_empty() {
        return "null".into();
    }
    let list = keys.iter().map(|k| literal(k)).collect::<Vec<_>>().join(", ");
    format!(
        "CASE WHEN pg_catalog.count(_postgrest_t) = 1 THEN (SELECT json_agg(json_build_array(pgrst_loc.key, \
         coalesce('eq.' || pgrst_loc.value, 'is.null')) ORDER BY array_position(ARRAY[{list}]::text[], pgrst_loc.key)) \
         FROM (SELECT row_to_json(_) AS row FROM pgrst_source AS _ LIMIT 1) pgrst_loc_row \
         CROSS JOIN json_each_text(pgrst_loc_row.row) AS pgrst_loc WHERE pgrst_loc.key IN ({list})) END"
    )
}

pub fn want_body(prefer: &Prefer) -> bool {
    prefer.ret == Some(Return::Representation)
}

/// `(a, b)` for an INSERT's column list, empty when the payload has no keys.
fn insert_columns(keys: &[String]) -> String {
    if keys.is_empty() {
        String::new()
    } else {
        format!("({})", keys.iter().map(|k| ident(k)).collect::<Vec<_>>().join(", "))
    }
}

/// `pgrst_body.a, pgrst_body.b`: the payload's values in the INSERT's column order.
fn body_values(keys: &[String]) -> String {
    keys.iter().map(|k| format!("pgrst_body.{}", ident(k))).collect::<Vec<_>>().join(", ")
}

/// A merge upsert's conflict action: every column sent takes the new value, and a row that
/// was updated is taken off the `pgrst.inserted` count; with no columns, nothing to update.
fn merge_action(keys: &[String]) -> String {
    if keys.is_empty() {
        "DO NOTHING".to_owned()
    } else {
        format!(
            "DO UPDATE SET {} WHERE {UNCOUNT_INSERTED}",
            keys.iter().map(|k| format!("{} = EXCLUDED.{}", ident(k), ident(k))).collect::<Vec<_>>().join(", ")
        )
    }
}

/// What every mutation is planned from: the table, the parsed query, `Prefer` and the
/// response's media type. Each statement runs in the `pgrst_source` CTE under the one
/// outer select ([`Mutation::statement`]).
pub struct Mutation<'a> {
    pub cache: &'a SchemaCache,
    pub table: &'a Table,
    pub q: &'a QueryParams,
    pub prefer: &'a Prefer,
    pub media: Media,
}

impl Mutation<'_> {
    /// The table, schema-qualified.
    fn rel(&self) -> String {
        qualified(&self.cache.schema, &self.table.name)
    }

    /// [`returning`] for the rows named `qual`.
    fn returning(&self, qual: &str) -> String {
        returning(qual, self.table, self.q, self.prefer)
    }

    /// The whole statement: `sql` as `pgrst_source`, then its rows shaped by `select=`
    /// (embeddings included) over `pgrst_source` named like the table; root filters
    /// already ran in the mutation itself.
    fn statement(&self, sql: &str, inserted: &str, location: &str) -> Result<String, ApiError> {
        let (table, body) = (self.table, want_body(self.prefer));
        let from = if body {
            let mut embedded = self.q.clone();
            embedded.conditions.retain(|(path, _)| !path.is_empty());
            let qual = ident(&table.name);
            let from = format!("pgrst_source AS {qual}");
            Node::root(self.cache, Some(table), &table.name, qual, from, &embedded, None)?.sql(false, None)?
        } else {
            "SELECT * FROM pgrst_source".to_owned()
        };
        let body = if body { body_expr(self.media, false, true) } else { "null".to_owned() };
        let outer = outer_with_location("''", "pg_catalog.count(_postgrest_t)", &body, inserted, location, &from);
        Ok(format!("WITH pgrst_source AS ({sql}) {outer}"))
    }

    pub fn insert(&self, p: &Payload) -> Result<Sql, ApiError> {
        let (table, q, prefer) = (self.table, self.q, self.prefer);
        let rel = self.rel();
        let conflict_cols = q.on_conflict.clone().unwrap_or_else(|| table.primary_key.clone());
        let resolution = prefer.resolution.filter(|_| !conflict_cols.is_empty());
        for c in &conflict_cols {
            if resolution.is_some() && table.column(c).is_none() {
                return Err(ApiError::pgrst(400, "42703", format!("column \"{c}\" does not exist")));
            }
        }
        let merge = resolution == Some(Resolution::MergeDuplicates);
        let mut sql = format!(
            "INSERT INTO {rel}{} SELECT {} {}",
            insert_columns(&p.keys),
            body_values(&p.keys),
            json_body_source(table, p, prefer.missing == Some(true))?
        );
        if merge {
            sql.push_str(&format!(" WHERE {COUNT_INSERTED}"));
        }
        if let Some(res) = resolution {
            sql.push_str(&format!(
                " ON CONFLICT({}) ",
                conflict_cols.iter().map(|c| ident(c)).collect::<Vec<_>>().join(", ")
            ));
            match res {
                Resolution::IgnoreDuplicates => sql.push_str("DO NOTHING"),
                Resolution::MergeDuplicates => sql.push_str(&merge_action(&p.keys)),
            }
        }
        sql.push(' ');
        sql.push_str(&self.returning(&rel));
        let inserted = if merge { INSERTED } else { "''" };
        let location = if prefer.ret == Some(Return::HeadersOnly) { location_expr(table, q) } else { "null".into() };
        Ok(Sql { text: self.statement(&sql, inserted, &location)?, params: vec![p.json.clone()] })
    }

    /// PUT, a single-row upsert (QueryBuilder.hs `mutatePlanToQuery` for an Insert with
    /// `putConditions`): the URL's primary-key filters run against the payload rows, so only
    /// a row whose key matches the URL is written, and the PGRST115 check after the
    /// statement rolls back unless exactly one was. ON CONFLICT on the primary key updates
    /// every column sent; `pgrst.inserted` tells 201 from 200. `columns=`, `on_conflict=`
    /// and `Prefer: missing=default` do not apply to PUT.
    pub fn put(&self, p: &Payload) -> Result<Sql, ApiError> {
        let table = self.table;
        let rel = self.rel();
        let mut conditions = conditions_sql(&ident("pgrst_body"), Some(table), &self.q.root_conditions())?;
        conditions.push(COUNT_INSERTED.to_owned());
        let sql = format!(
            "INSERT INTO {rel}{} SELECT {} {} WHERE {} ON CONFLICT({}) {} {}",
            insert_columns(&p.keys),
            body_values(&p.keys),
            json_body_source(table, p, false)?,
            conditions.join(" AND "),
            table.primary_key.iter().map(|c| ident(c)).collect::<Vec<_>>().join(", "),
            merge_action(&p.keys),
            self.returning(&rel),
        );
        Ok(Sql { text: self.statement(&sql, INSERTED, "null")?, params: vec![p.json.clone()] })
    }

    pub fn update(&self, p: &Payload) -> Result<Sql, ApiError> {
        if !p.is_object {
            return Err(ApiError::pgrst(400, "PGRST102", "Empty or invalid json")
                .with_details("PATCH expects a single JSON object"));
        }
        let table = self.table;
        let rel = self.rel();
        let a = ident(&table.name);
        let filters = where_clause(&a, Some(table), &self.q.root_conditions())?;
        let (sql, params) = if p.keys.is_empty() {
            (format!("SELECT {rel}.* FROM {rel} WHERE false"), Vec::new())
        } else {
            let sql = format!(
                "UPDATE {rel} AS {a} SET {} {}{filters} {}",
                p.keys.iter().map(|k| format!("{} = pgrst_body.{}", ident(k), ident(k))).collect::<Vec<_>>().join(", "),
                json_body_source(table, p, self.prefer.missing == Some(true))?,
                self.returning(&a),
            );
            (sql, vec![p.json.clone()])
        };
        Ok(Sql { text: self.statement(&sql, "''", "null")?, params })
    }

    pub fn delete(&self) -> Result<String, ApiError> {
        let rel = self.rel();
        let a = ident(&self.table.name);
        let filters = where_clause(&a, Some(self.table), &self.q.root_conditions())?;
        self.statement(&format!("DELETE FROM {rel} AS {a}{filters} {}", self.returning(&a)), "''", "null")
    }
}

/// Plan.hs `mutatePlan` (MutationSingleUpsert): PUT's filters must be `eq` (not negated, no
/// quantifier) on exactly the primary-key columns, with no `or`/`and` tree. `fields` are
/// the raw keys of the filter parameters (QueryParams.hs `qsFilterFields`), so an embedded
/// filter or a JSON path never stands for a key column. A table without a primary key
/// always fails.
pub fn check_put_filters(table: &Table, fields: &[String], q: &QueryParams) -> Result<(), ApiError> {
    let mut wanted: Vec<&str> = table.primary_key.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut given: Vec<&str> = fields.iter().map(String::as_str).collect();
    given.sort_unstable();
    given.dedup();
    let plain_eq = |c: &crate::query::Condition| {
        matches!(c, crate::query::Condition::Filter(f)
            if f.op == crate::query::Op::Eq && !f.negated && f.quant.is_none() && f.field.path.is_empty())
    };
    let no_logic = q.conditions.iter().all(|(_, c)| !matches!(c, crate::query::Condition::Logic { .. }));
    if no_logic && !wanted.is_empty() && wanted == given && q.root_conditions().iter().all(plain_eq) {
        Ok(())
    } else {
        Err(ApiError::pgrst(
            405,
            "PGRST105",
            "Filters must include all and only primary key columns with 'eq' operators",
        ))
    }
}

/// The arguments of an RPC: a JSON object body (POST) or query parameters (GET).
pub enum RpcArgs {
    Json(Payload),
    Direct(Vec<(String, String)>),
}

#[allow(clippy::too_many_arguments)]
pub fn call(
    cache: &SchemaCache,
    func: &Function,
    args: &RpcArgs,
    q: &QueryParams,
    window: Window,
    prefer: &Prefer,
    media: Media,
    max_rows: Option<u64>,
) -> Result<Sql, ApiError> {
    let fq = qualified(&cache.schema, &func.name);
    let scalar = matches!(func.returns, ReturnShape::Scalar | ReturnShape::SetofScalar | ReturnShape::Void);
    let set = matches!(func.returns, ReturnShape::SetofScalar | ReturnShape::SetofComposite);
    let call_it = |argument: String| {
        if scalar {
            format!("(SELECT {fq}({argument}) pgrst_scalar) pgrst_call")
        } else {
            format!("{fq}({argument}) pgrst_call")
        }
    };
    let mut params = Vec::new();
    let from_call = if func.single_unnamed_json() || (prefer.single_object && func.args.len() == 1) {
        params.push(match args {
            RpcArgs::Json(p) => p.json.clone(),
            RpcArgs::Direct(pairs) => {
                Value::Object(pairs.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect()).to_string()
            }
        });
        format!("FROM {}", call_it(format!("$1::{}", func.args[0].type_name)))
    } else {
        match args {
            RpcArgs::Json(p) => {
                let named: Vec<&crate::schema::Arg> = func.args.iter().filter(|a| p.keys.contains(&a.name)).collect();
                if named.is_empty() {
                    format!("FROM {}", call_it(String::new()))
                } else {
                    let typed = named
                        .iter()
                        .map(|a| format!("{} {}", ident(&a.name), a.type_name))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let cols = named.iter().map(|a| ident(&a.name)).collect::<Vec<_>>().join(", ");
                    let func_rec = if p.is_object { "json_to_record" } else { "json_to_recordset" };
                    let named_args = named
                        .iter()
                        .map(|a| {
                            format!(
                                "{}{} := pgrst_body.{}",
                                if a.variadic { "VARIADIC " } else { "" },
                                ident(&a.name),
                                ident(&a.name)
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ");
                    let from = format!(
                        "FROM (SELECT $1::json AS json_data) pgrst_payload, LATERAL (SELECT {cols} FROM {func_rec}(pgrst_payload.json_data) AS _({typed}) LIMIT 1) pgrst_body, LATERAL {}",
                        call_it(named_args)
                    );
                    params.push(p.json.clone());
                    from
                }
            }
            RpcArgs::Direct(pairs) => {
                let mut parts = Vec::new();
                for a in &func.args {
                    if let Some((_, v)) = pairs.iter().find(|(k, _)| *k == a.name) {
                        check_no_nul(v)?;
                        parts.push(format!("{} := {}::{}", ident(&a.name), literal(v), a.type_name));
                    }
                }
                format!("FROM {}", call_it(parts.join(", ")))
            }
        }
    };
    let source = format!("SELECT {} {from_call}", if scalar { "pgrst_call.pgrst_scalar" } else { "pgrst_call.*" });
    let (inner, count_query) = if scalar {
        let filters = where_clause("pgrst_source", None, &q.root_conditions())?;
        let order = order_clause("pgrst_source", None, &q.root_order());
        (
            format!(
                "SELECT pgrst_source.pgrst_scalar FROM pgrst_source{filters}{order}{}",
                limit_offset(window.limit, Some(window.offset))
            ),
            format!("SELECT 1 FROM pgrst_source{filters}"),
        )
    } else {
        // A function returning a table's rows can embed that table's relationships.
        let origin = func.returns_table.as_deref().unwrap_or(&func.name);
        let qual = ident(origin);
        let table = func.returns_table.as_ref().and_then(|t| cache.tables.get(t));
        let root = Node::root(cache, table, origin, qual.clone(), format!("pgrst_source AS {qual}"), q, max_rows)?;
        (root.sql(false, Some((window.limit, window.offset)))?, root.sql(true, None)?)
    };
    let (count_cte, total) = count_parts(prefer, window, &count_query);
    let page_total = if set { "pg_catalog.count(_postgrest_t)" } else { "1" };
    let text = format!(
        "WITH pgrst_source AS ({source}){count_cte} {}",
        outer(&total, page_total, &body_expr(media, scalar, set), "''", &inner)
    );
    Ok(Sql { text, params })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_combines_range_limit_offset_and_max_rows() {
        let q = |s: &str| crate::query::parse_query(&crate::query::decode_pairs(s), false).unwrap();
        assert_eq!(Window::new(None, &q(""), None), Window { offset: 0, limit: None });
        assert_eq!(Window::new(None, &q("limit=5&offset=10"), None), Window { offset: 10, limit: Some(5) });
        assert_eq!(Window::new(Some((0, Some(10))), &q("limit=3"), None), Window { offset: 0, limit: Some(3) });
        assert_eq!(Window::new(Some((0, Some(10))), &q("offset=4"), None), Window { offset: 4, limit: Some(6) });
        assert_eq!(Window::new(None, &q(""), Some(1000)), Window { offset: 0, limit: Some(1000) });
        assert_eq!(Window::new(None, &q("limit=5000"), Some(1000)), Window { offset: 0, limit: Some(1000) });
    }

    fn table(pk: &[&str]) -> Table {
        serde_json::from_value(serde_json::json!({
            "name": "t",
            "columns": [{"name": "b", "type": "text"}, {"name": "a", "type": "int"}, {"name": "c", "type": "text"}],
            "primary_key": pk,
            "insertable": true,
        }))
        .unwrap()
    }

    #[test]
    fn put_filters_are_eq_on_exactly_the_primary_key() {
        let check = |pk: &[&str], qs: &str| {
            let pairs = crate::query::decode_pairs(qs);
            let q = crate::query::parse_query(&pairs, false).unwrap();
            check_put_filters(&table(pk), &crate::query::filter_fields(&pairs), &q).map_err(|e| (e.status, e.code))
        };
        assert_eq!(check(&["a"], "a=eq.1"), Ok(()));
        assert_eq!(check(&["a"], "a=eq.1&select=a,b&order=b"), Ok(()));
        assert_eq!(check(&["a", "b"], "b=eq.x&a=eq.1"), Ok(()));
        let refused = Err((405, "PGRST105".to_owned()));
        for qs in [
            "",
            "b=eq.x",
            "a=eq.1&b=eq.x",
            "a=not.eq.1",
            "a=in.(1)",
            "a=gt.1",
            "a=eq(any).{1}",
            "a->>k=eq.1",
            "and=(a.eq.1)",
            "a=eq.1&or=(a.eq.1,a.eq.2)",
            "a=eq.1&rel.a=eq.1",
        ] {
            assert_eq!(check(&["a"], qs), refused, "{qs}");
        }
        assert_eq!(check(&["a", "b"], "a=eq.1"), refused, "every key column");
        assert_eq!(check(&[], "a=eq.1"), refused, "no primary key");
    }

    #[test]
    fn location_keys_follow_the_returned_row() {
        let q = |s: &str| crate::query::parse_query(&crate::query::decode_pairs(s), false).unwrap();
        let t = table(&["a", "b"]);
        // `*`: the table's column order; a column list: RETURNING's sorted set.
        assert_eq!(location_keys(&t, &q("")), ["b", "a"]);
        assert_eq!(location_keys(&t, &q("select=c,*")), ["b", "a"]);
        assert_eq!(location_keys(&t, &q("select=c,b")), ["a", "b"]);
        assert!(location_keys(&table(&[]), &q("")).is_empty());
    }

    #[test]
    fn payload_rules() {
        assert_eq!(payload(br#"[{"a":1,"b":2},{"b":3,"a":4}]"#, None).unwrap().keys, ["a", "b"]);
        assert_eq!(payload(br#"[{"a":1},{"b":3}]"#, None).err().unwrap().message, "All object keys must match");
        assert_eq!(payload(br#"[{"a":1},{"b":3}]"#, Some(&["a".into()])).unwrap().keys, ["a"]);
        assert_eq!(payload(b"nope", None).err().unwrap().code, "PGRST102");
        assert_eq!(payload(b"42", None).err().unwrap().code, "PGRST102");
        assert_eq!(payload(br#"{"a":"x\u0000y"}"#, None).err().unwrap().code, "22P05");
        assert!(payload(br#"{"a":"x\\u0000y"}"#, None).is_ok(), "the text \\u0000 is no NUL");
        let p = payload(b"[]", None).unwrap();
        assert_eq!((p.keys.len(), p.is_object), (0, false));
    }
}
