//! The filter language: `[column, operator, value]` conditions and `{ or: [...] }` /
//! `{ and: [...] }` groups (optionally negated), checked and rendered into PostgREST's
//! query syntax with the quoting it specifies (`encode`), so a value can never change
//! the filter.

use serde_json::Value;

use super::TransportError;
use super::encode::{array_literal, list, quote, scalar_text, token};

/// A table, column or function name: not empty, no control characters (the encoding
/// takes care of everything else).
pub(super) fn check_name(field: &str, name: &str) -> Result<(), TransportError> {
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(TransportError::invalid(field, format!("{field} must not be empty or hold control characters")));
    }
    Ok(())
}

/// One filter: `[column, operator, value]`, or `{ or: [...] }` / `{ and: [...] }`,
/// optionally `{ not: { or: [...] } }`.

#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Cond { column: String, negated: bool, op: String, value: Value },
    Group { or: bool, negated: bool, children: Vec<Filter> },
}

const SCALAR_OPS: [&str; 11] =
    ["eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "isdistinct"];
const RANGE_OPS: [&str; 5] = ["sl", "sr", "nxr", "nxl", "adj"];
const FTS_OPS: [&str; 4] = ["fts", "plfts", "phfts", "wfts"];

pub fn parse_filters(field: &str, values: &[Value]) -> Result<Vec<Filter>, TransportError> {
    values.iter().enumerate().map(|(i, v)| parse_filter(&format!("{field}[{i}]"), v)).collect()
}

fn parse_filter(field: &str, v: &Value) -> Result<Filter, TransportError> {
    let bad = |msg: &str| TransportError::invalid(field, format!("{field}: {msg}"));
    match v {
        Value::Array(parts) if parts.len() == 3 => {
            let column = parts[0].as_str().ok_or_else(|| bad("the column must be a string"))?;
            check_name(field, column)?;
            let op_raw = parts[1].as_str().ok_or_else(|| bad("the operator must be a string"))?;
            let (negated, op) = match op_raw.strip_prefix("not.") {
                Some(op) => (true, op),
                None => (false, op_raw),
            };
            let known = SCALAR_OPS.contains(&op)
                || RANGE_OPS.contains(&op)
                || FTS_OPS.contains(&op)
                || matches!(op, "is" | "in" | "cs" | "cd" | "ov");
            if !known {
                return Err(bad(&format!("unknown operator {}", crate::error::Quoted(op_raw))));
            }
            let f = Filter::Cond { column: column.to_owned(), negated, op: op.to_owned(), value: parts[2].clone() };
            // Render once now so that a bad operand is reported here, with its field.
            render_operand(&f, false).map_err(|m| bad(&m))?;
            Ok(f)
        }
        Value::Object(map) if map.len() == 1 => {
            let (key, inner) = map.iter().next().expect("len 1");
            match (key.as_str(), inner) {
                ("or" | "and", Value::Array(children)) if !children.is_empty() => {
                    Ok(Filter::Group { or: key == "or", negated: false, children: parse_filters(field, children)? })
                }
                ("not", inner @ Value::Object(_)) => match parse_filter(field, inner)? {
                    Filter::Group { or, children, .. } => Ok(Filter::Group { or, negated: true, children }),
                    Filter::Cond { .. } => Err(bad(
                        "`not` takes an { or } or { and } group; negate a condition with a \"not.<op>\" operator",
                    )),
                },
                _ => Err(bad("expected { or: [...] }, { and: [...] } or { not: { or|and: [...] } }")),
            }
        }
        _ => Err(bad("expected [column, operator, value] or a { or | and | not } group")),
    }
}

/// The text after `op.`; `in_logic` quotes values that would otherwise split tokens.
fn render_operand(f: &Filter, in_logic: bool) -> Result<String, String> {
    let Filter::Cond { op, value, .. } = f else { unreachable!("only conditions have operands") };
    let op = op.as_str();
    let plain = |v: &Value| -> Result<String, String> {
        if in_logic { token(v) } else { scalar_text(v) }
            .ok_or_else(|| format!("{op} needs a string, number or boolean"))
    };
    Ok(match op {
        "is" => match value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::String(s) if matches!(s.as_str(), "null" | "not_null" | "true" | "false" | "unknown") => s.clone(),
            _ => return Err("is takes null, true, false, \"not_null\" or \"unknown\"".into()),
        },
        "in" => match value {
            Value::Array(items) => list(items).ok_or("in takes an array of strings, numbers or booleans")?,
            _ => return Err("in takes an array".into()),
        },
        "cs" | "cd" | "ov" => {
            let text = match value {
                Value::Array(items) => {
                    array_literal(items).ok_or("array operands hold strings, numbers, booleans or null")?
                }
                Value::Object(_) => crate::json::text(value),
                Value::String(s) => s.clone(),
                _ => return Err(format!("{op} takes an array, an object (jsonb) or a literal string")),
            };
            if in_logic { quote(&text) } else { text }
        }
        op if FTS_OPS.contains(&op) => {
            let (query, config) = match value {
                Value::String(q) => (q.clone(), None),
                Value::Object(o) => (
                    o.get("query")
                        .and_then(Value::as_str)
                        .ok_or("full-text search takes a string or { query, config }")?
                        .to_owned(),
                    o.get("config").and_then(Value::as_str).map(str::to_owned),
                ),
                _ => return Err("full-text search takes a string or { query, config }".into()),
            };
            if config.as_deref().is_some_and(|c| !c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')) {
                return Err("the full-text configuration must be a plain name".into());
            }
            let q = if in_logic && needs_logic_quote(&query) { quote(&query) } else { query };
            // The configuration rides on the operator: fts(english).query
            return Ok(match config {
                Some(c) => format!("({c}).{q}"),
                None => format!(".{q}"),
            });
        }
        _ => plain(value)?,
    })
}

fn needs_logic_quote(s: &str) -> bool {
    token(&Value::String(s.to_owned())).is_some_and(|t| t.starts_with('"'))
}

/// Column names with reserved characters are quoted (JSON paths like `meta->>k` are not).
pub(super) fn column_token(c: &str) -> String {
    if !c.contains("->") && c.chars().any(|ch| matches!(ch, ',' | '.' | ':' | '(' | ')' | '"' | '\\')) {
        quote(c)
    } else {
        c.to_owned()
    }
}

/// `op.value` (with `not.` and an fts configuration folded in).
fn op_and_operand(f: &Filter, in_logic: bool) -> Result<String, String> {
    let Filter::Cond { negated, op, .. } = f else { unreachable!() };
    let operand = render_operand(f, in_logic)?;
    let neg = if *negated { "not." } else { "" };
    Ok(if FTS_OPS.contains(&op.as_str()) { format!("{neg}{op}{operand}") } else { format!("{neg}{op}.{operand}") })
}

fn render_group_item(f: &Filter) -> Result<String, String> {
    match f {
        Filter::Cond { column, .. } => Ok(format!("{}.{}", column_token(column), op_and_operand(f, true)?)),
        Filter::Group { or, negated, children } => {
            let inner = children.iter().map(render_group_item).collect::<Result<Vec<_>, _>>()?.join(",");
            Ok(format!("{}{}({inner})", if *negated { "not." } else { "" }, if *or { "or" } else { "and" }))
        }
    }
}

/// Query pairs for a filter list (top-level conditions are ANDed by PostgREST).
pub fn filter_pairs(filters: &[Filter]) -> Result<Vec<(String, String)>, String> {
    filters
        .iter()
        .map(|f| match f {
            Filter::Cond { column, .. } => Ok((column_token(column), op_and_operand(f, false)?)),
            Filter::Group { or, negated, children } => {
                let inner = children.iter().map(render_group_item).collect::<Result<Vec<_>, _>>()?.join(",");
                let key = format!("{}{}", if *negated { "not." } else { "" }, if *or { "or" } else { "and" });
                Ok((key, format!("({inner})")))
            }
        })
        .collect()
}
