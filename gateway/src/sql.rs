//! SQL text from parsed requests. URL values are inlined as untyped string literals, which
//! Postgres coerces to the column's type exactly as it does PostgREST's unknown-typed
//! parameters; identifiers are always double-quoted. What varies with every request (the
//! settings, the request body) is a text parameter instead, so the statement's text, and
//! with it the connection's prepared plan, is shared by every request of the same shape.

use crate::error::ApiError;
use crate::query::{Condition, Field, Filter, IsValue, Op, Operand, OrderTerm, Quant, SelectItem};
use crate::quote::{ident, literal};
use crate::schema::Table;

/// A statement and its parameters (`$1`, `$2`, …, all text).
pub struct Sql {
    pub text: String,
    pub params: Vec<String>,
}

impl Sql {
    pub fn bare(text: impl Into<String>) -> Sql {
        Sql { text: text.into(), params: Vec::new() }
    }
}

/// NUL cannot be stored in Postgres text, so a value that would become a literal is refused
/// up front with the error Postgres itself gives for `\u0000` in JSON (22P05).
pub fn check_no_nul(s: &str) -> Result<(), ApiError> {
    if s.contains('\0') {
        Err(ApiError::pgrst(400, "22P05", "unsupported Unicode escape sequence")
            .with_details("\\u0000 cannot be converted to text."))
    } else {
        Ok(())
    }
}

/// `qual."col"->'a'->>'b'` (numeric keys index arrays, as in PostgREST). `qual` is SQL
/// already (`"t"` or `"schema"."t"`). A JSON path on a column that is not json/jsonb (or on
/// a computed field, whose type is unknown) goes through `to_jsonb`, as SqlFragment.hs
/// `pgFmtField` does.
pub fn field_expr(qual: &str, field: &Field, table: Option<&Table>) -> String {
    let base = format!("{qual}.{}", ident(&field.column));
    if field.path.is_empty() {
        return base;
    }
    let is_json = table.and_then(|t| t.column(&field.column)).is_some_and(|c| {
        matches!(c.base_type.as_str(), "json" | "jsonb") || matches!(c.type_name.as_str(), "json" | "jsonb")
    });
    let mut out = if is_json { base } else { format!("to_jsonb({base})") };
    for step in &field.path {
        out.push_str(if step.as_text { "->>" } else { "->" });
        // SqlFragment.hs `pgFmtJsonOperand`: a key is a literal, an index a literal cast to int.
        out.push_str(&literal(&step.key));
        if step.index {
            out.push_str("::int");
        }
    }
    out
}

/// One select item as `expr AS "name"`; `*` is `qual.*`.
pub fn select_item(qual: &str, table: Option<&Table>, item: &SelectItem) -> Option<String> {
    match item {
        SelectItem::Star => Some(format!("{qual}.*")),
        SelectItem::Field { field, alias, cast } => {
            let mut expr = field_expr(qual, field, table);
            if let Some(c) = cast {
                expr = format!("CAST({expr} AS {c})");
            }
            Some(format!("{expr} AS {}", ident(alias.as_deref().unwrap_or(field.output_name()))))
        }
        SelectItem::Relation(_) => None,
    }
}

pub fn where_clause(qual: &str, table: Option<&Table>, conditions: &[Condition]) -> Result<String, ApiError> {
    let parts = conditions_sql(qual, table, conditions)?;
    Ok(if parts.is_empty() { String::new() } else { format!(" WHERE {}", parts.join(" AND ")) })
}

pub fn conditions_sql(qual: &str, table: Option<&Table>, conditions: &[Condition]) -> Result<Vec<String>, ApiError> {
    conditions.iter().map(|c| condition(qual, table, c)).collect()
}

fn condition(qual: &str, table: Option<&Table>, c: &Condition) -> Result<String, ApiError> {
    match c {
        Condition::Filter(f) => filter(qual, table, f),
        Condition::Logic { negated, or, children } => {
            let parts = children.iter().map(|c| condition(qual, table, c)).collect::<Result<Vec<_>, _>>()?;
            let joined = format!("({})", parts.join(if *or { " OR " } else { " AND " }));
            Ok(if *negated { format!("NOT {joined}") } else { joined })
        }
        // SqlFragment.hs: `"join_alias" IS [NOT] DISTINCT FROM NULL`.
        Condition::NullEmbed { join_alias, is_null } => {
            Ok(format!("{} IS {}DISTINCT FROM NULL", ident(join_alias), if *is_null { "NOT " } else { "" }))
        }
    }
}

fn filter(qual: &str, table: Option<&Table>, f: &Filter) -> Result<String, ApiError> {
    let lhs = field_expr(qual, &f.field, table);
    let value = |v: &str| -> Result<String, ApiError> {
        check_no_nul(v)?;
        Ok(literal(v))
    };
    let expr = match (&f.op, &f.operand) {
        (Op::Is, Operand::Is(v)) => match v {
            IsValue::Null => format!("{lhs} IS NULL"),
            IsValue::NotNull => format!("{lhs} IS NOT NULL"),
            IsValue::True => format!("{lhs} IS TRUE"),
            IsValue::False => format!("{lhs} IS FALSE"),
            IsValue::Unknown => format!("{lhs} IS UNKNOWN"),
        },
        (Op::In, Operand::List(items)) => {
            if items.is_empty() {
                // PostgREST sends `= ANY('{}')`, which is false for every row.
                "false".to_owned()
            } else {
                let vals = items.iter().map(|v| value(v)).collect::<Result<Vec<_>, _>>()?;
                format!("{lhs} IN ({})", vals.join(", "))
            }
        }
        (Op::Fts | Op::Plfts | Op::Phfts | Op::Wfts, Operand::Fts { config, query }) => {
            let func = match f.op {
                Op::Fts => "to_tsquery",
                Op::Plfts => "plainto_tsquery",
                Op::Phfts => "phraseto_tsquery",
                _ => "websearch_to_tsquery",
            };
            let cfg = match config {
                Some(c) => format!("{}, ", value(c)?),
                None => String::new(),
            };
            // PostgREST >= 13 wraps anything that is not a tsvector column in to_tsvector.
            let is_tsvector = table
                .and_then(|t| t.column(&f.field.column))
                .is_some_and(|c| c.base_type == "tsvector" || c.type_name == "tsvector")
                && f.field.path.is_empty();
            let lhs = if is_tsvector { lhs } else { format!("to_tsvector({cfg}{lhs})") };
            format!("{lhs} @@ {func}({cfg}{})", value(query)?)
        }
        (op, Operand::Value(v)) => {
            let (sql_op, v) = match op {
                Op::Eq => ("=", v.clone()),
                Op::Neq => ("<>", v.clone()),
                Op::Gt => (">", v.clone()),
                Op::Gte => (">=", v.clone()),
                Op::Lt => ("<", v.clone()),
                Op::Lte => ("<=", v.clone()),
                // PostgREST lets `*` stand for `%` so URLs need no escaping.
                Op::Like => ("LIKE", v.replace('*', "%")),
                Op::Ilike => ("ILIKE", v.replace('*', "%")),
                Op::Match => ("~", v.clone()),
                Op::Imatch => ("~*", v.clone()),
                Op::IsDistinct => ("IS DISTINCT FROM", v.clone()),
                Op::Cs => ("@>", v.clone()),
                Op::Cd => ("<@", v.clone()),
                Op::Ov => ("&&", v.clone()),
                Op::Sl => ("<<", v.clone()),
                Op::Sr => (">>", v.clone()),
                Op::Nxr => ("&<", v.clone()),
                Op::Nxl => ("&>", v.clone()),
                Op::Adj => ("-|-", v.clone()),
                _ => unreachable!("operand shape is fixed by the parser"),
            };
            match f.quant {
                Some(Quant::Any) => format!("{lhs} {sql_op} ANY({})", value(&v)?),
                Some(Quant::All) => format!("{lhs} {sql_op} ALL({})", value(&v)?),
                None => format!("{lhs} {sql_op} {}", value(&v)?),
            }
        }
        _ => unreachable!("operand shape is fixed by the parser"),
    };
    Ok(if f.negated { format!("NOT ({expr})") } else { expr })
}

/// `ORDER BY …`; a term naming an embedded to-one resource was resolved by the planner
/// to that embedding's join alias.
pub fn order_clause(qual: &str, table: Option<&Table>, terms: &[OrderTerm]) -> String {
    if terms.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = terms.iter().map(|t| order_term(qual, table, t)).collect();
    format!(" ORDER BY {}", parts.join(", "))
}

pub fn order_term(qual: &str, table: Option<&Table>, t: &OrderTerm) -> String {
    let expr = match &t.relation {
        Some(join_alias) => field_expr(&ident(join_alias), &t.field, None),
        None => field_expr(qual, &t.field, table),
    };
    let mut s = format!("{expr} {}", if t.desc { "DESC" } else { "ASC" });
    match t.nulls_first {
        Some(true) => s.push_str(" NULLS FIRST"),
        Some(false) => s.push_str(" NULLS LAST"),
        None => {}
    }
    s
}

pub fn limit_offset(limit: Option<u64>, offset: Option<u64>) -> String {
    let mut s = String::new();
    if let Some(l) = limit {
        s.push_str(&format!(" LIMIT {l}"));
    }
    if let Some(o) = offset.filter(|o| *o > 0) {
        s.push_str(&format!(" OFFSET {o}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{decode_pairs, parse_query};

    fn where_of(q: &str) -> String {
        let p = parse_query(&decode_pairs(q), false).unwrap();
        where_clause("\"t\"", None, &p.root_conditions()).unwrap()
    }

    #[test]
    fn nul_is_refused() {
        assert!(check_no_nul("a\0b").is_err());
        assert!(check_no_nul("a\\0b").is_ok());
    }

    #[test]
    fn filters_render() {
        assert_eq!(where_of("id=eq.5"), " WHERE \"t\".\"id\" = '5'");
        assert_eq!(where_of("n=not.like.*a*"), " WHERE NOT (\"t\".\"n\" LIKE '%a%')");
        assert_eq!(where_of("n=in.(a,%22b,c%22)"), " WHERE \"t\".\"n\" IN ('a', 'b,c')");
        assert_eq!(where_of("n=in.()"), " WHERE false");
        // Without a known json column, PostgREST goes through to_jsonb.
        assert_eq!(where_of("m->>source=eq.loop"), " WHERE to_jsonb(\"t\".\"m\")->>'source' = 'loop'");
        assert_eq!(where_of("m->a->0=eq.1"), " WHERE to_jsonb(\"t\".\"m\")->'a'->'+0'::int = '1'");
        assert_eq!(where_of("t=like(any).{*a*,b}"), " WHERE \"t\".\"t\" LIKE ANY('{%a%,b}')");
        assert_eq!(where_of("n=lt(all).{1,2}"), " WHERE \"t\".\"n\" < ALL('{1,2}')");
        assert_eq!(where_of("x=is.null&y=not.is.null"), " WHERE \"t\".\"x\" IS NULL AND NOT (\"t\".\"y\" IS NULL)");
        assert_eq!(where_of("or=(a.eq.1,b.eq.2)"), " WHERE (\"t\".\"a\" = '1' OR \"t\".\"b\" = '2')");
        assert_eq!(
            where_of("tsv=wfts(english).cat"),
            " WHERE to_tsvector('english', \"t\".\"tsv\") @@ websearch_to_tsquery('english', 'cat')"
        );
        assert_eq!(where_of("name=eq.O'Brien"), " WHERE \"t\".\"name\" = 'O''Brien'");
    }

    #[test]
    fn json_path_keys_are_literals_and_indexes_literals_cast_to_int() {
        // SqlFragment.hs `pgFmtJsonOperand`. Keys PostgREST refuses (`--`, `-`) never get here.
        assert_eq!(where_of("m->%22--%22=eq.1"), " WHERE to_jsonb(\"t\".\"m\")->'--' = '1'");
        assert_eq!(where_of("m->1-2=eq.1"), " WHERE to_jsonb(\"t\".\"m\")->'1-2' = '1'");
        assert_eq!(where_of("m->a'b=eq.1"), " WHERE to_jsonb(\"t\".\"m\")->'a''b' = '1'");
        assert_eq!(where_of("m->-1=eq.1"), " WHERE to_jsonb(\"t\".\"m\")->'-1'::int = '1'");
        assert_eq!(where_of("m->a->>12=eq.1"), " WHERE to_jsonb(\"t\".\"m\")->'a'->>'+12'::int = '1'");
        assert!(parse_query(&decode_pairs("m->--=eq.1"), false).is_err());
    }
}
