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
    /// The type behind domains (`tsvector`, `json`, …), for choosing operators.
    #[serde(default)]
    pub base_type: String,
    /// The column's DEFAULT expression, for `Prefer: missing=default`.
    #[serde(default)]
    pub default: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    #[serde(default)]
    pub primary_key: Vec<String>,
    /// Column sets of UNIQUE constraints (one-to-one detection).
    #[serde(default)]
    pub unique_keys: Vec<Vec<String>>,
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
    /// The table whose row type the first argument is (computed fields and relationships).
    #[serde(default)]
    pub arg_table: Option<String>,
    /// The table whose row type the function returns, if any.
    #[serde(default)]
    pub returns_table: Option<String>,
    /// `RETURNS SETOF … ROWS 1` (or a single row): a computed relationship to one.
    #[serde(default)]
    pub single_row: bool,
}

impl Function {
    /// A single unnamed json/jsonb argument receives the whole request body.
    pub fn single_unnamed_json(&self) -> bool {
        self.args.len() == 1
            && self.args[0].name.is_empty()
            && matches!(self.args[0].type_name.as_str(), "json" | "jsonb")
    }
}

/// A foreign key as the catalog states it: `table(columns)` references `ftable(fcolumns)`.
#[derive(Debug, Clone, Deserialize)]
pub struct ForeignKey {
    pub name: String,
    pub table: String,
    pub columns: Vec<String>,
    pub ftable: String,
    pub fcolumns: Vec<String>,
}

/// How two tables relate, from the origin's side (SchemaCache/Relationship.hs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cardinality {
    /// `cols` pair the origin's column with the target's.
    ManyToOne {
        constraint: String,
        cols: Vec<(String, String)>,
    },
    OneToMany {
        constraint: String,
        cols: Vec<(String, String)>,
    },
    OneToOne {
        constraint: String,
        cols: Vec<(String, String)>,
    },
    /// Through `junction`: `source` pairs (origin column, junction column), `target` pairs
    /// (target column, junction column).
    ManyToMany {
        junction: String,
        constraint1: String,
        constraint2: String,
        source: Vec<(String, String)>,
        target: Vec<(String, String)>,
    },
    /// A function taking the origin's row type and returning the target's rows.
    Computed {
        function: String,
        to_one: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relationship {
    pub table: String,
    pub ftable: String,
    pub cardinality: Cardinality,
}

impl Relationship {
    pub fn is_self(&self) -> bool {
        self.table == self.ftable
    }

    pub fn to_one(&self) -> bool {
        matches!(
            self.cardinality,
            Cardinality::ManyToOne { .. } | Cardinality::OneToOne { .. } | Cardinality::Computed { to_one: true, .. }
        )
    }

    /// The single column pair of a one-column foreign key, for `!column` hints.
    pub fn single_col(&self) -> Option<&(String, String)> {
        match &self.cardinality {
            Cardinality::ManyToOne { cols, .. }
            | Cardinality::OneToMany { cols, .. }
            | Cardinality::OneToOne { cols, .. }
                if cols.len() == 1 =>
            {
                cols.first()
            }
            _ => None,
        }
    }

    pub fn constraint(&self) -> Option<&str> {
        match &self.cardinality {
            Cardinality::ManyToOne { constraint, .. }
            | Cardinality::OneToMany { constraint, .. }
            | Cardinality::OneToOne { constraint, .. } => Some(constraint),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct SchemaCache {
    pub schema: String,
    pub tables: HashMap<String, Table>,
    pub functions: HashMap<String, Vec<Function>>,
    /// Every relationship, keyed by origin table.
    pub relationships: HashMap<String, Vec<Relationship>>,
    /// Impersonated role settings (`ALTER ROLE anon SET statement_timeout = '3s'`): what each
    /// role's requests set, in order (database-specific settings after role-wide ones, so
    /// they win). Only settings a non-superuser may set, as PostgREST applies them.
    pub role_settings: HashMap<String, Vec<(String, String)>>,
}

#[derive(Deserialize)]
struct Raw {
    tables: Option<Vec<Table>>,
    functions: Option<Vec<Function>>,
    foreign_keys: Option<Vec<ForeignKey>>,
    role_settings: Option<HashMap<String, Vec<(String, String)>>>,
}

/// One round trip: everything as JSON, built by the catalog query itself.
pub fn introspection_sql(schema: &str) -> String {
    let s = crate::quote::literal(schema);
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
    'columns', (SELECT coalesce(json_agg(json_build_object(
                    'name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
                    'base_type', format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END, NULL),
                    'default', CASE
                        WHEN t.typbasetype <> 0 AND d.adbin IS NULL THEN pg_get_expr(t.typdefaultbin, 0)
                        WHEN a.attidentity = 'd' THEN format('nextval(%L)', pg_get_serial_sequence(format('%I.%I', {s}, r.relname), a.attname))
                        WHEN a.attgenerated = 's' THEN NULL
                        ELSE pg_get_expr(d.adbin, d.adrelid) END) ORDER BY a.attnum), '[]')
                FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped),
    'unique_keys', (SELECT coalesce(json_agg((SELECT json_agg(a.attname) FROM unnest(con.conkey) k(attnum)
                                              JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum)), '[]')
                    FROM pg_constraint con WHERE con.conrelid = r.oid AND con.contype IN ('p', 'u')),
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
    'arg_table', (SELECT ac.relname FROM pg_type at JOIN pg_class ac ON ac.oid = at.typrelid
                  WHERE p.pronargs >= 1 AND at.oid = p.proargtypes[0] AND ac.relnamespace = p.pronamespace
                    AND ac.relkind IN ('r','v','m','f','p')),
    'returns_table', (SELECT rc.relname FROM pg_class rc WHERE rc.oid = rt.typrelid AND rc.relnamespace = p.pronamespace
                        AND rc.relkind IN ('r','v','m','f','p')),
    'single_row', NOT p.proretset OR p.prorows = 1,
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
),
fks AS (
  SELECT json_build_object(
    'name', con.conname, 'table', c.relname, 'ftable', fc.relname,
    'columns', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum),
    'fcolumns', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum)
  ) AS fk
  FROM pg_constraint con
  JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class fc ON fc.oid = con.confrelid JOIN pg_namespace fn ON fn.oid = fc.relnamespace
  -- Foreign keys of partitions would make every embedding of the parent ambiguous.
  WHERE con.contype = 'f' AND n.nspname = {s} AND fn.nspname = {s} AND NOT c.relispartition AND NOT fc.relispartition
    AND con.conparentid = 0
),
role_settings AS (
  SELECT r.rolname, json_agg(json_build_array(split_part(u.c, '=', 1), substr(u.c, strpos(u.c, '=') + 1))
                             ORDER BY s.setdatabase, u.o) AS settings
  FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole,
       unnest(s.setconfig) WITH ORDINALITY u(c, o)
  WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
    AND EXISTS (SELECT 1 FROM pg_settings g WHERE g.name = split_part(u.c, '=', 1) AND g.context = 'user')
  GROUP BY r.rolname
)
SELECT json_build_object('tables', (SELECT json_agg(t) FROM tables), 'functions', (SELECT json_agg(f) FROM funcs),
                         'foreign_keys', (SELECT json_agg(fk ORDER BY fk->>'name') FROM fks),
                         'role_settings', (SELECT json_object_agg(rolname, settings) FROM role_settings))::text
"#
    )
}

impl SchemaCache {
    pub fn from_json(schema: &str, json: &str) -> Result<SchemaCache, serde_json::Error> {
        let raw: Raw = serde_json::from_str(json)?;
        let tables: HashMap<String, Table> =
            raw.tables.unwrap_or_default().into_iter().map(|t| (t.name.clone(), t)).collect();
        let mut functions: HashMap<String, Vec<Function>> = HashMap::new();
        for f in raw.functions.unwrap_or_default() {
            functions.entry(f.name.clone()).or_default().push(f);
        }
        let relationships = relationships(&tables, &functions, &raw.foreign_keys.unwrap_or_default());
        let role_settings = raw.role_settings.unwrap_or_default();
        Ok(SchemaCache { schema: schema.to_owned(), tables, functions, relationships, role_settings })
    }
}

/// Relationships from foreign keys (SchemaCache.hs `addInverseRels`, `addM2MRels`): each
/// foreign key gives a many-to-one and the inverse one-to-many, or two one-to-ones when its
/// columns are the primary key or a unique key; two foreign keys of one table whose columns
/// are all in its primary key make it the junction of a many-to-many. Functions taking a
/// table's row type and returning another table's rows are computed relationships, which
/// replace a detected one of the same name.
fn relationships(
    tables: &HashMap<String, Table>,
    functions: &HashMap<String, Vec<Function>>,
    fks: &[ForeignKey],
) -> HashMap<String, Vec<Relationship>> {
    let mut out: HashMap<String, Vec<Relationship>> = HashMap::new();
    let mut add = |r: Relationship| out.entry(r.table.clone()).or_default().push(r);
    let same_set = |a: &[String], b: &[String]| {
        let mut a = a.to_vec();
        let mut b = b.to_vec();
        a.sort();
        b.sort();
        a == b
    };
    for fk in fks {
        let cols: Vec<(String, String)> = fk.columns.iter().cloned().zip(fk.fcolumns.iter().cloned()).collect();
        let inverse: Vec<(String, String)> = cols.iter().map(|(a, b)| (b.clone(), a.clone())).collect();
        let one_to_one = tables.get(&fk.table).is_some_and(|t| {
            (!t.primary_key.is_empty() && same_set(&t.primary_key, &fk.columns))
                || t.unique_keys.iter().any(|u| same_set(u, &fk.columns))
        });
        let constraint = fk.name.clone();
        // From the referencing table, and back from the referenced one.
        let (forward, backward) = if one_to_one {
            (
                Cardinality::OneToOne { constraint: constraint.clone(), cols },
                Cardinality::OneToOne { constraint, cols: inverse },
            )
        } else {
            (
                Cardinality::ManyToOne { constraint: constraint.clone(), cols },
                Cardinality::OneToMany { constraint, cols: inverse },
            )
        };
        add(Relationship { table: fk.table.clone(), ftable: fk.ftable.clone(), cardinality: forward });
        add(Relationship { table: fk.ftable.clone(), ftable: fk.table.clone(), cardinality: backward });
    }
    for j in tables.values() {
        let own: Vec<&ForeignKey> = fks
            .iter()
            .filter(|fk| fk.table == j.name && fk.columns.iter().all(|c| j.primary_key.contains(c)))
            .collect();
        for a in &own {
            for b in &own {
                if a.name == b.name {
                    continue;
                }
                add(Relationship {
                    table: a.ftable.clone(),
                    ftable: b.ftable.clone(),
                    cardinality: Cardinality::ManyToMany {
                        junction: j.name.clone(),
                        constraint1: a.name.clone(),
                        constraint2: b.name.clone(),
                        source: a.fcolumns.iter().cloned().zip(a.columns.iter().cloned()).collect(),
                        target: b.fcolumns.iter().cloned().zip(b.columns.iter().cloned()).collect(),
                    },
                });
            }
        }
    }
    for f in functions.values().flatten() {
        if let (Some(from), Some(to), 1) = (&f.arg_table, &f.returns_table, f.args.len()) {
            let rels = out.entry(from.clone()).or_default();
            // A computed relationship named like a table overrides the detected ones.
            rels.retain(|r| r.ftable != f.name || matches!(r.cardinality, Cardinality::Computed { .. }));
            rels.push(Relationship {
                table: from.clone(),
                ftable: to.clone(),
                cardinality: Cardinality::Computed { function: f.name.clone(), to_one: f.single_row },
            });
        }
    }
    out
}
