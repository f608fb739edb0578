//! The schema cache: tables, columns, keys and functions of the exposed schema, read
//! from the catalog in one query (PostgREST's SchemaCache), reloaded on
//! `NOTIFY pgrst, 'reload schema'`.

use std::collections::HashMap;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    #[serde(default)]
    pub primary_key: Vec<String>,
    pub insertable: bool,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Arg {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub has_default: bool,
    pub variadic: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReturnShape {
    Void,
    Scalar,
    /// One composite row (RETURNS some_table / RETURNS record with OUT params).
    Composite,
    /// SETOF scalar.
    SetofScalar,
    /// SETOF composite / RETURNS TABLE.
    SetofComposite,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Function {
    pub name: String,
    pub args: Vec<Arg>,
    pub returns: ReturnShape,
    /// 'v' volatile, 's' stable, 'i' immutable.
    pub volatility: String,
}

impl Function {
    /// A single unnamed json/jsonb argument receives the whole request body.
    pub fn single_unnamed_json(&self) -> bool {
        self.args.len() == 1
            && self.args[0].name.is_empty()
            && matches!(self.args[0].type_name.as_str(), "json" | "jsonb")
    }
}

#[derive(Debug, Default)]
pub struct SchemaCache {
    pub schema: String,
    pub tables: HashMap<String, Table>,
    pub functions: HashMap<String, Vec<Function>>,
}

#[derive(Deserialize)]
struct Raw {
    tables: Option<Vec<Table>>,
    functions: Option<Vec<Function>>,
}

/// One round trip: everything as JSON, built by the catalog query itself.
pub fn introspection_sql(schema: &str) -> String {
    let s = crate::sql::literal(schema);
    format!(
        r#"
WITH rels AS (
  SELECT c.oid, c.relname, c.relkind
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = {s} AND c.relkind IN ('r','v','m','f','p')
),
tables AS (
  SELECT json_build_object(
    'name', r.relname,
    'insertable', r.relkind IN ('r','p','f') OR pg_relation_is_updatable(r.oid, true) & 8 = 8,
    'columns', (SELECT coalesce(json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum), '[]')
                FROM pg_attribute a WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped),
    'primary_key', (SELECT coalesce(json_agg(a.attname ORDER BY k.ord), '[]')
                    FROM pg_constraint con CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
                    WHERE con.conrelid = r.oid AND con.contype = 'p')
  ) AS t FROM rels r
),
funcs AS (
  SELECT json_build_object(
    'name', p.proname,
    'volatility', p.provolatile::text,
    'returns', CASE
        WHEN p.prorettype = 'void'::regtype THEN 'void'
        WHEN p.proretset AND (rt.typtype = 'c' OR p.prorettype = 'record'::regtype) THEN 'setof_composite'
        WHEN p.proretset THEN 'setof_scalar'
        WHEN rt.typtype = 'c' OR p.prorettype = 'record'::regtype THEN 'composite'
        ELSE 'scalar' END,
    'args', (SELECT coalesce(json_agg(json_build_object(
                 'name', coalesce(x.name, ''),
                 'type', format_type(x.typ, NULL),
                 'variadic', x.mode = 'v',
                 'has_default', x.in_pos > p.pronargs - p.pronargdefaults) ORDER BY x.pos), '[]')
             FROM (
               SELECT a.pos, a.typ, a.name, a.mode,
                      row_number() OVER (PARTITION BY a.mode IN ('i','b','v') ORDER BY a.pos) AS in_pos
               FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                           coalesce(p.proargnames, array_fill(NULL::text, ARRAY[coalesce(array_length(p.proallargtypes, 1), p.pronargs)])),
                           coalesce(p.proargmodes::text[], array_fill('i'::text, ARRAY[p.pronargs])))
                    WITH ORDINALITY a(typ, name, mode, pos)
             ) x WHERE x.mode IN ('i','b','v'))
  ) AS f
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_type rt ON rt.oid = p.prorettype
  WHERE n.nspname = {s} AND p.prokind = 'f'
)
SELECT json_build_object('tables', (SELECT json_agg(t) FROM tables), 'functions', (SELECT json_agg(f) FROM funcs))::text
"#
    )
}

impl SchemaCache {
    pub fn from_json(schema: &str, json: &str) -> Result<SchemaCache, serde_json::Error> {
        let raw: Raw = serde_json::from_str(json)?;
        let tables = raw.tables.unwrap_or_default().into_iter().map(|t| (t.name.clone(), t)).collect();
        let mut functions: HashMap<String, Vec<Function>> = HashMap::new();
        for f in raw.functions.unwrap_or_default() {
            functions.entry(f.name.clone()).or_default().push(f);
        }
        Ok(SchemaCache { schema: schema.to_owned(), tables, functions })
    }
}
