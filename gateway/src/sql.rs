//! SQL text from parsed requests. Values are sent as untyped string literals, which
//! Postgres coerces to the column's type exactly as it does PostgREST's unknown-typed
//! parameters; identifiers are always double-quoted. Statements run through the simple
//! query protocol, so results come back as text that is already JSON.

use crate::error::ApiError;
use crate::query::{Condition, Field, Filter, IsValue, Op, Operand, OrderTerm, SelectItem};
use crate::schema::Table;

/// A string literal. NUL cannot be stored in Postgres text, so it is refused up front
/// with the error Postgres itself gives for `\u0000` in JSON (22P05).
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub fn check_no_nul(s: &str) -> Result<(), ApiError> {
    if s.contains('\0') {
        Err(ApiError::pgrst(400, "22P05", "unsupported Unicode escape sequence")
            .with_details("\\u0000 cannot be converted to text."))
    } else {
        Ok(())
    }
}

pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

pub fn qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", ident(schema), ident(name))
}

/// `"rel"."col"->'a'->>'b'` (numeric keys index arrays, as in PostgREST).
pub fn field_expr(rel: &str, field: &Field) -> String {
    let mut out = format!("{}.{}", ident(rel), ident(&field.column));
    for step in &field.path {
        out.push_str(if step.as_text { "->>" } else { "->" });
        if !step.key.is_empty() && step.key.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&step.key);
        } else {
            out.push_str(&literal(&step.key));
        }
    }
    out
}

/// Rejects columns the table does not have, with PostgREST's 42703-style error.
pub fn check_field(table: &Table, field: &Field) -> Result<(), ApiError> {
    if table.column(&field.column).is_none() {
        return Err(ApiError::pgrst(400, "42703", format!("column {}.{} does not exist", table.name, field.column)));
    }
    Ok(())
}

pub fn select_list(rel: &str, table: &Table, items: &[SelectItem]) -> Result<String, ApiError> {
    let mut out = Vec::new();
    for item in items {
        match item {
            SelectItem::Star => {
                out.extend(table.columns.iter().map(|c| format!("{}.{}", ident(rel), ident(&c.name))));
            }
            SelectItem::Field { field, alias, cast } => {
                check_field(table, field)?;
                let mut expr = field_expr(rel, field);
                if let Some(c) = cast {
                    expr = format!("CAST({expr} AS {c})");
                }
                let name = alias.as_deref().unwrap_or(field.output_name());
                out.push(format!("{expr} AS {}", ident(name)));
            }
        }
    }
    Ok(out.join(", "))
}

pub fn where_clause(rel: &str, table: Option<&Table>, conditions: &[Condition]) -> Result<String, ApiError> {
    if conditions.is_empty() {
        return Ok(String::new());
    }
    let parts = conditions.iter().map(|c| condition(rel, table, c)).collect::<Result<Vec<_>, _>>()?;
    Ok(format!(" WHERE {}", parts.join(" AND ")))
}

fn condition(rel: &str, table: Option<&Table>, c: &Condition) -> Result<String, ApiError> {
    match c {
        Condition::Filter(f) => filter(rel, table, f),
        Condition::Logic { negated, or, children } => {
            let parts = children.iter().map(|c| condition(rel, table, c)).collect::<Result<Vec<_>, _>>()?;
            let joined = format!("({})", parts.join(if *or { " OR " } else { " AND " }));
            Ok(if *negated { format!("NOT {joined}") } else { joined })
        }
    }
}

fn filter(rel: &str, table: Option<&Table>, f: &Filter) -> Result<String, ApiError> {
    if let Some(t) = table {
        check_field(t, &f.field)?;
    }
    let lhs = field_expr(rel, &f.field);
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
                Some(c) => format!("{}::regconfig, ", value(c)?),
                None => String::new(),
            };
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
            format!("{lhs} {sql_op} {}", value(&v)?)
        }
        _ => unreachable!("operand shape is fixed by the parser"),
    };
    Ok(if f.negated { format!("NOT ({expr})") } else { expr })
}

pub fn order_clause(rel: &str, table: Option<&Table>, terms: &[OrderTerm]) -> Result<String, ApiError> {
    if terms.is_empty() {
        return Ok(String::new());
    }
    let mut parts = Vec::new();
    for t in terms {
        if let Some(table) = table {
            check_field(table, &t.field)?;
        }
        let mut s = format!("{} {}", field_expr(rel, &t.field), if t.desc { "DESC" } else { "ASC" });
        match t.nulls_first {
            Some(true) => s.push_str(" NULLS FIRST"),
            Some(false) => s.push_str(" NULLS LAST"),
            None => {}
        }
        parts.push(s);
    }
    Ok(format!(" ORDER BY {}", parts.join(", ")))
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
        let p = parse_query(&decode_pairs(q), None).unwrap();
        where_clause("t", None, &p.conditions).unwrap()
    }

    #[test]
    fn literals_and_identifiers_cannot_break_out() {
        assert_eq!(literal("it's"), "'it''s'");
        assert_eq!(literal(r"a\'b"), r"'a\''b'");
        assert_eq!(ident("we\"ird"), "\"we\"\"ird\"");
        assert!(check_no_nul("a\0b").is_err());
    }

    #[test]
    fn filters_render() {
        assert_eq!(where_of("id=eq.5"), " WHERE \"t\".\"id\" = '5'");
        assert_eq!(where_of("n=not.like.*a*"), " WHERE NOT (\"t\".\"n\" LIKE '%a%')");
        assert_eq!(where_of("n=in.(a,%22b,c%22)"), " WHERE \"t\".\"n\" IN ('a', 'b,c')");
        assert_eq!(where_of("n=in.()"), " WHERE false");
        assert_eq!(where_of("m->>source=eq.loop"), " WHERE \"t\".\"m\"->>'source' = 'loop'");
        assert_eq!(where_of("m->a->0=eq.1"), " WHERE \"t\".\"m\"->'a'->0 = '1'");
        assert_eq!(where_of("x=is.null&y=not.is.null"), " WHERE \"t\".\"x\" IS NULL AND NOT (\"t\".\"y\" IS NULL)");
        assert_eq!(where_of("or=(a.eq.1,b.eq.2)"), " WHERE (\"t\".\"a\" = '1' OR \"t\".\"b\" = '2')");
        assert_eq!(
            where_of("tsv=wfts(english).cat"),
            " WHERE \"t\".\"tsv\" @@ websearch_to_tsquery('english'::regconfig, 'cat')"
        );
        assert_eq!(where_of("name=eq.O'Brien"), " WHERE \"t\".\"name\" = 'O''Brien'");
    }
}
