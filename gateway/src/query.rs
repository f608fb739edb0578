//! PostgREST's URL grammar (docs/references/api/url_grammar.rst, tables_views.rst):
//! `select=`, filters `col=[not.]op.value`, logic trees `or=(...)` / `and=(...)`, `order=`,
//! `limit=`, `offset=`, `columns=`, `on_conflict=`. Parsing is separate from SQL building so
//! every rule is unit-tested without a database.

use crate::error::ApiError;

/// `col`, `col->key`, `col->0->>key`: a column and an optional JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub column: String,
    pub path: Vec<JsonStep>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonStep {
    /// `->>` (text) rather than `->` (json).
    pub as_text: bool,
    pub key: String,
}

impl Field {
    /// The name PostgREST gives the output column: the last JSON key, else the column.
    pub fn output_name(&self) -> &str {
        self.path.last().map_or(&self.column, |s| &s.key)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectItem {
    Star,
    Field { field: Field, alias: Option<String>, cast: Option<String> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    Ilike,
    Match,
    Imatch,
    Is,
    IsDistinct,
    In,
    Cs,
    Cd,
    Ov,
    Sl,
    Sr,
    Nxr,
    Nxl,
    Adj,
    Fts,
    Plfts,
    Phfts,
    Wfts,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "eq" => Op::Eq,
            "neq" => Op::Neq,
            "gt" => Op::Gt,
            "gte" => Op::Gte,
            "lt" => Op::Lt,
            "lte" => Op::Lte,
            "like" => Op::Like,
            "ilike" => Op::Ilike,
            "match" => Op::Match,
            "imatch" => Op::Imatch,
            "is" => Op::Is,
            "isdistinct" => Op::IsDistinct,
            "in" => Op::In,
            "cs" => Op::Cs,
            "cd" => Op::Cd,
            "ov" => Op::Ov,
            "sl" => Op::Sl,
            "sr" => Op::Sr,
            "nxr" => Op::Nxr,
            "nxl" => Op::Nxl,
            "adj" => Op::Adj,
            "fts" => Op::Fts,
            "plfts" => Op::Plfts,
            "phfts" => Op::Phfts,
            "wfts" => Op::Wfts,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IsValue {
    Null,
    NotNull,
    True,
    False,
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    Value(String),
    List(Vec<String>),
    Is(IsValue),
    /// Full-text search: optional configuration and the query text.
    Fts {
        config: Option<String>,
        query: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub field: Field,
    pub negated: bool,
    pub op: Op,
    pub operand: Operand,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Filter(Filter),
    Logic { negated: bool, or: bool, children: Vec<Condition> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTerm {
    pub field: Field,
    pub desc: bool,
    pub nulls_first: Option<bool>,
}

/// Everything a request's query string says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryParams {
    pub select: Option<Vec<SelectItem>>,
    pub conditions: Vec<Condition>,
    pub order: Vec<OrderTerm>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub columns: Option<Vec<String>>,
    pub on_conflict: Option<Vec<String>>,
    /// Remaining `key=value` pairs, for RPC arguments on GET.
    pub rpc_args: Vec<(String, String)>,
}

fn parse_error(message: impl Into<String>, details: impl Into<String>) -> ApiError {
    ApiError::pgrst(400, "PGRST100", message).with_details(details)
}

/// Splits a raw query string into decoded `(key, value)` pairs (`+` is a space, as in
/// application/x-www-form-urlencoded, which is what PostgREST's WAI parser does).
pub fn decode_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let plus_as_space = s.replace('+', " ");
    percent_encoding::percent_decode_str(&plus_as_space).decode_utf8_lossy().into_owned()
}

/// Parses all query pairs. `is_rpc` keeps unknown keys as function arguments instead of
/// treating every key as a filter (GET /rpc/fn?arg=value).
pub fn parse_query(pairs: &[(String, String)], rpc_arg_names: Option<&[String]>) -> Result<QueryParams, ApiError> {
    let mut q = QueryParams::default();
    for (key, value) in pairs {
        match key.as_str() {
            "select" => q.select = Some(parse_select(value)?),
            "order" => q.order = parse_order(value)?,
            // Non-integers are ignored, as PostgREST's `readMaybe` does; a negative limit
            // makes an empty range, which ApiRequest.hs `getRanges` refuses (NegativeLimit).
            "limit" => match value.parse::<i64>() {
                Ok(n) if n < 0 => {
                    return Err(invalid_range("Limit should be greater than or equal to zero."));
                }
                parsed => q.limit = parsed.ok().map(|n| n as u64),
            },
            "offset" => q.offset = value.parse().ok(),
            "columns" => q.columns = Some(parse_name_list("columns", value)?),
            "on_conflict" => q.on_conflict = Some(parse_name_list("on_conflict", value)?),
            "or" | "and" | "not.or" | "not.and" => {
                let negated = key.starts_with("not.");
                let or = key.ends_with("or");
                let children = parse_logic_children(key, value)?;
                q.conditions.push(Condition::Logic { negated, or, children });
            }
            _ if rpc_arg_names.is_some_and(|names| names.iter().any(|n| n == key)) => {
                q.rpc_args.push((key.clone(), value.clone()));
            }
            _ => q.conditions.push(Condition::Filter(parse_filter(key, value)?)),
        }
    }
    Ok(q)
}

fn parse_name_list(name: &str, value: &str) -> Result<Vec<String>, ApiError> {
    let names: Vec<String> = value.split(',').map(|s| s.trim().trim_matches('"').to_owned()).collect();
    if names.iter().any(String::is_empty) {
        return Err(parse_error(format!("failed to parse {name} parameter ({value})"), "empty column name"));
    }
    Ok(names)
}

/// `col`, `col->a->>b`, `col->0`. Column names may be double-quoted.
pub fn parse_field(s: &str) -> Result<Field, ApiError> {
    let bad = || parse_error(format!("failed to parse field ({s})"), "expecting a column name or a JSON path");
    let mut rest = s;
    let mut pieces: Vec<(Option<bool>, String)> = Vec::new();
    let mut as_text = None;
    loop {
        let (name, after) = take_name(rest).ok_or_else(bad)?;
        pieces.push((as_text, name));
        if let Some(r) = after.strip_prefix("->>") {
            as_text = Some(true);
            rest = r;
        } else if let Some(r) = after.strip_prefix("->") {
            as_text = Some(false);
            rest = r;
        } else if after.is_empty() {
            break;
        } else {
            return Err(bad());
        }
    }
    let mut it = pieces.into_iter();
    let (_, column) = it.next().ok_or_else(bad)?;
    let path = it.map(|(t, key)| JsonStep { as_text: t.unwrap_or(false), key }).collect();
    Ok(Field { column, path })
}

/// A bare name (up to `-`>, `:`, `,`, `.`, `(`, `)`), or a double-quoted one.
fn take_name(s: &str) -> Option<(String, &str)> {
    if let Some(inner) = s.strip_prefix('"') {
        let end = inner.find('"')?;
        return Some((inner[..end].to_owned(), &inner[end + 1..]));
    }
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        if matches!(c, ':' | ',' | '.' | '(' | ')') || s[i..].starts_with("->") {
            end = i;
            break;
        }
    }
    (end > 0).then(|| (s[..end].trim().to_owned(), &s[end..]))
}

fn parse_select(value: &str) -> Result<Vec<SelectItem>, ApiError> {
    let mut items = Vec::new();
    if value.trim().is_empty() {
        return Ok(vec![SelectItem::Star]);
    }
    for raw in split_top_level(value, ',')
        .map_err(|d| parse_error(format!("failed to parse select parameter ({value})"), d))?
    {
        let raw = raw.trim();
        if raw == "*" {
            items.push(SelectItem::Star);
            continue;
        }
        if raw.contains('(') || raw.starts_with("...") {
            return Err(ApiError::pgrst(400, "PGRST100", format!("failed to parse select parameter ({value})"))
                .with_details("resource embedding and aggregates are not supported by this gateway"));
        }
        let (alias, rest) = match raw.find(':').filter(|&i| !raw[i..].starts_with("::")) {
            Some(i) => (Some(raw[..i].trim().trim_matches('"').to_owned()), &raw[i + 1..]),
            None => (None, raw),
        };
        let (field, cast) = match rest.split_once("::") {
            Some((f, c)) => (f, Some(c.trim().to_owned())),
            None => (rest, None),
        };
        if let Some(c) = &cast
            && (c.is_empty() || !c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == ' '))
        {
            return Err(parse_error(
                format!("failed to parse select parameter ({value})"),
                format!("invalid cast {c:?}"),
            ));
        }
        items.push(SelectItem::Field { field: parse_field(field.trim())?, alias, cast });
    }
    if items.is_empty() {
        items.push(SelectItem::Star);
    }
    Ok(items)
}

fn parse_order(value: &str) -> Result<Vec<OrderTerm>, ApiError> {
    let err = || {
        parse_error(format!("failed to parse order ({value})"), "expecting field[.asc|.desc][.nullsfirst|.nullslast]")
    };
    let mut terms = Vec::new();
    for raw in value.split(',') {
        let (field_part, modifiers) = split_field_prefix(raw);
        let field = parse_field(field_part).map_err(|_| err())?;
        let mut term = OrderTerm { field, desc: false, nulls_first: None };
        for m in modifiers.split('.').filter(|m| !m.is_empty()) {
            match m {
                "asc" => term.desc = false,
                "desc" => term.desc = true,
                "nullsfirst" => term.nulls_first = Some(true),
                "nullslast" => term.nulls_first = Some(false),
                _ => return Err(err()),
            }
        }
        terms.push(term);
    }
    Ok(terms)
}

/// Splits `field.rest` at the first `.` that is not inside a quoted name.
fn split_field_prefix(s: &str) -> (&str, &str) {
    let mut in_quotes = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            '.' if !in_quotes => return (&s[..i], &s[i + 1..]),
            _ => {}
        }
    }
    (s, "")
}

/// `key=value` where value is `[not.]op.operand`.
pub fn parse_filter(key: &str, value: &str) -> Result<Filter, ApiError> {
    let field = parse_field(key)?;
    parse_op_operand(field, value, false).map_err(|d| parse_error(format!("failed to parse filter ({value})"), d))
}

fn parse_op_operand(field: Field, value: &str, in_logic: bool) -> Result<Filter, String> {
    let (negated, rest) = match value.strip_prefix("not.") {
        Some(r) => (true, r),
        None => (false, value),
    };
    let (op_part, operand) = rest.split_once('.').ok_or("expecting operator.value")?;
    // fts(config) carries its configuration in parentheses.
    let (op_name, fts_config) = match op_part.split_once('(') {
        Some((name, cfg)) => (name, Some(cfg.strip_suffix(')').ok_or("unclosed ( in operator")?.to_owned())),
        None => (op_part, None),
    };
    let op = Op::parse(op_name).ok_or_else(|| format!("unknown operator {op_name:?}"))?;
    if fts_config.is_some() && !matches!(op, Op::Fts | Op::Plfts | Op::Phfts | Op::Wfts) {
        return Err(format!("operator {op_name:?} takes no configuration"));
    }
    let unquote = |s: &str| if in_logic { unquote_value(s) } else { Ok(s.to_owned()) };
    let operand = match op {
        Op::In => Operand::List(parse_list(operand)?),
        Op::Is => Operand::Is(match operand.to_ascii_lowercase().as_str() {
            "null" => IsValue::Null,
            "not_null" => IsValue::NotNull,
            "true" => IsValue::True,
            "false" => IsValue::False,
            "unknown" => IsValue::Unknown,
            other => return Err(format!("unexpected {other:?} expecting null, not_null, true, false or unknown")),
        }),
        Op::Fts | Op::Plfts | Op::Phfts | Op::Wfts => Operand::Fts { config: fts_config, query: unquote(operand)? },
        _ => Operand::Value(unquote(operand)?),
    };
    Ok(Filter { field, negated, op, operand })
}

/// A value inside a logic tree may be double-quoted to protect `,` `.` `:` `(` `)`.
fn unquote_value(s: &str) -> Result<String, String> {
    match s.strip_prefix('"') {
        Some(inner) => {
            let (v, rest) = read_quoted(inner)?;
            if rest.is_empty() { Ok(v) } else { Err(format!("unexpected {rest:?} after quoted value")) }
        }
        None => Ok(s.to_owned()),
    }
}

/// Reads a quoted string body (after the opening `"`), handling `\"` and `\\`.
fn read_quoted(s: &str) -> Result<(String, &str), String> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e)) => out.push(e),
                None => return Err("unterminated escape".into()),
            },
            '"' => return Ok((out, &s[i + 1..])),
            c => out.push(c),
        }
    }
    Err("unterminated quoted value".into())
}

/// `(a,b,"c,d")` → `["a", "b", "c,d"]`.
fn parse_list(s: &str) -> Result<Vec<String>, String> {
    let inner = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')).ok_or("expecting (value,value,...)")?;
    let mut items = Vec::new();
    if inner.is_empty() {
        return Ok(items);
    }
    let mut rest = inner;
    loop {
        let (item, after) = if let Some(q) = rest.strip_prefix('"') {
            read_quoted(q)?
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        };
        items.push(item);
        if after.is_empty() {
            break;
        }
        rest = after.strip_prefix(',').ok_or_else(|| format!("unexpected {after:?} in list"))?;
    }
    Ok(items)
}

/// Splits on `sep` outside parentheses and double quotes.
fn split_top_level(s: &str, sep: char) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut depth, mut in_quotes, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            // `{a,b}` array literals may carry commas inside logic trees.
            '(' | '{' if !in_quotes => depth += 1,
            ')' | '}' if !in_quotes => {
                depth -= 1;
                if depth < 0 {
                    return Err("unbalanced )".into());
                }
            }
            c if c == sep && depth == 0 && !in_quotes => {
                parts.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if depth != 0 || in_quotes {
        return Err("unbalanced parentheses or quotes".into());
    }
    parts.push(&s[start..]);
    Ok(parts)
}

fn parse_logic_children(key: &str, value: &str) -> Result<Vec<Condition>, ApiError> {
    let err = |d: String| parse_error(format!("failed to parse logic tree ({value})"), d);
    let inner = value
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| err(format!("{key} expects (condition,condition,...)")))?;
    split_top_level(inner, ',').map_err(err)?.into_iter().map(|item| parse_logic_item(item).map_err(err)).collect()
}

fn parse_logic_item(item: &str) -> Result<Condition, String> {
    let (negated, body) = match item.strip_prefix("not.") {
        Some(r) if r.starts_with("and(") || r.starts_with("or(") => (true, r),
        _ => (false, item),
    };
    for (prefix, or) in [("and(", false), ("or(", true)] {
        if let Some(inner) = body.strip_prefix(prefix) {
            let inner = inner.strip_suffix(')').ok_or("unclosed logic group")?;
            let children = split_top_level(inner, ',')?.into_iter().map(parse_logic_item).collect::<Result<_, _>>()?;
            return Ok(Condition::Logic { negated, or, children });
        }
    }
    let (field_part, rest) = split_field_prefix(item);
    let field = parse_field(field_part).map_err(|e| e.message)?;
    Ok(Condition::Filter(parse_op_operand(field, rest, true)?))
}

/// `Range: 0-9` → (offset 0, limit 10); `Range: 5-` → (offset 5, no limit).
pub fn parse_range_header(value: &str) -> Result<Option<(u64, Option<u64>)>, ApiError> {
    let spec = value.trim().strip_prefix("items=").unwrap_or(value.trim());
    let Some((from, to)) = spec.split_once('-') else { return Ok(None) };
    let Ok(from) = from.trim().parse::<u64>() else { return Ok(None) };
    let to = to.trim();
    if to.is_empty() {
        return Ok(Some((from, None)));
    }
    let Ok(to) = to.parse::<u64>() else { return Ok(None) };
    if to < from {
        // An empty range: 416 (ApiRequest.hs `getRanges`, LowerGTUpper).
        return Err(invalid_range(
            "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
        ));
    }
    Ok(Some((from, Some(to - from + 1))))
}

/// PGRST103 for a range that selects nothing by construction (Error.hs `InvalidRange`).
fn invalid_range(details: &str) -> ApiError {
    ApiError::pgrst(416, "PGRST103", "Requested range not satisfiable").with_details(details)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> QueryParams {
        parse_query(&decode_pairs(q), None).unwrap()
    }

    fn col(name: &str) -> Field {
        Field { column: name.into(), path: vec![] }
    }

    #[test]
    fn filters_with_every_operator_shape() {
        let q = pairs("id=eq.5&name=not.like.*a*&tags=cs.{a,b}&x=is.null&y=not.is.true&z=in.(1,2,3)");
        let f: Vec<&Filter> = q
            .conditions
            .iter()
            .map(|c| match c {
                Condition::Filter(f) => f,
                _ => panic!(),
            })
            .collect();
        assert_eq!(f[0], &Filter { field: col("id"), negated: false, op: Op::Eq, operand: Operand::Value("5".into()) });
        assert_eq!((f[1].negated, f[1].op, &f[1].operand), (true, Op::Like, &Operand::Value("*a*".into())));
        assert_eq!(f[2].operand, Operand::Value("{a,b}".into()));
        assert_eq!(f[3].operand, Operand::Is(IsValue::Null));
        assert_eq!((f[4].negated, &f[4].operand), (true, &Operand::Is(IsValue::True)));
        assert_eq!(f[5].operand, Operand::List(vec!["1".into(), "2".into(), "3".into()]));
    }

    #[test]
    fn values_keep_dots_and_percent_decoding_applies() {
        let q = pairs("v=eq.1.5&w=eq.a%2Cb&t=eq.a+b");
        let values: Vec<_> = q
            .conditions
            .iter()
            .map(|c| match c {
                Condition::Filter(Filter { operand: Operand::Value(v), .. }) => v.clone(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(values, ["1.5", "a,b", "a b"]);
    }

    #[test]
    fn in_lists_follow_postgrest_quoting() {
        let f = parse_filter("name", r#"in.("a,b","c\"d","e\\f",plain,"x.y:z(1)")"#).unwrap();
        assert_eq!(
            f.operand,
            Operand::List(vec!["a,b".into(), "c\"d".into(), "e\\f".into(), "plain".into(), "x.y:z(1)".into()])
        );
        assert_eq!(parse_filter("n", "in.()").unwrap().operand, Operand::List(vec![]));
        assert!(parse_filter("n", "in.(a,\"b").is_err());
        assert!(parse_filter("n", "in.a,b").is_err());
    }

    #[test]
    fn json_paths_in_filters_select_and_order() {
        let f = parse_filter("metadata->>source", "eq.loop").unwrap();
        assert_eq!(
            f.field,
            Field { column: "metadata".into(), path: vec![JsonStep { as_text: true, key: "source".into() }] }
        );
        let f = parse_filter("data->a->0->>b", "eq.1").unwrap();
        assert_eq!(f.field.path.len(), 3);
        assert!(!f.field.path[0].as_text && !f.field.path[1].as_text && f.field.path[2].as_text);
        assert_eq!(f.field.output_name(), "b");
        let q = pairs("select=id,src:metadata->>source,n::text&order=metadata->>step.desc.nullslast,id");
        assert_eq!(q.select.as_ref().unwrap().len(), 3);
        match &q.select.as_ref().unwrap()[1] {
            SelectItem::Field { alias, field, cast } => {
                assert_eq!(alias.as_deref(), Some("src"));
                assert_eq!(field.path[0].key, "source");
                assert_eq!(cast, &None);
            }
            _ => panic!(),
        }
        assert!(q.order[0].desc);
        assert_eq!(q.order[0].nulls_first, Some(false));
        assert_eq!(q.order[1], OrderTerm { field: col("id"), desc: false, nulls_first: None });
    }

    #[test]
    fn logic_trees_nest_and_negate() {
        let q = pairs("or=(a.eq.1,and(b.gt.2,c.in.(x,y)),not.and(d.is.null,e.eq.\"q,r\"))");
        match &q.conditions[0] {
            Condition::Logic { negated: false, or: true, children } => {
                assert_eq!(children.len(), 3);
                assert!(
                    matches!(&children[1], Condition::Logic { or: false, negated: false, children } if children.len() == 2)
                );
                match &children[2] {
                    Condition::Logic { negated: true, or: false, children } => match &children[1] {
                        Condition::Filter(f) => assert_eq!(f.operand, Operand::Value("q,r".into())),
                        _ => panic!(),
                    },
                    other => panic!("{other:?}"),
                }
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_query(&decode_pairs("or=(a.eq.1"), None).is_err());
        assert!(parse_query(&decode_pairs("or=a.eq.1"), None).is_err());
    }

    #[test]
    fn bad_filters_are_pgrst100() {
        for (k, v) in [("id", "5"), ("id", "equals.5"), ("id", "is.maybe"), ("id", "eq"), ("->x", "eq.1")] {
            let e = parse_filter(k, v).unwrap_err();
            assert_eq!((e.status, e.code.as_str()), (400, "PGRST100"), "{k}={v}");
        }
    }

    #[test]
    fn embedding_is_refused_clearly() {
        let e = parse_query(&decode_pairs("select=*,other(*)"), None).unwrap_err();
        assert_eq!(e.code, "PGRST100");
    }

    #[test]
    fn fts_takes_a_configuration() {
        let f = parse_filter("tsv", "fts(english).cats").unwrap();
        assert_eq!(f.operand, Operand::Fts { config: Some("english".into()), query: "cats".into() });
        assert!(parse_filter("x", "eq(english).a").is_err());
    }

    #[test]
    fn range_header() {
        assert_eq!(parse_range_header("0-9").unwrap(), Some((0, Some(10))));
        assert_eq!(parse_range_header("items=5-").unwrap(), Some((5, None)));
        assert_eq!(parse_range_header("x").unwrap(), None, "junk is ignored");
        let e = parse_range_header("9-0").unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (416, "PGRST103"));
        let e = parse_query(&decode_pairs("limit=-1"), None).unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (416, "PGRST103"));
        assert_eq!(pairs("limit=0").limit, Some(0));
        assert_eq!(pairs("limit=abc").limit, None, "non-integers are ignored");
    }

    #[test]
    fn limit_offset_columns_on_conflict() {
        let q = pairs("limit=10&offset=20&columns=a,b&on_conflict=thread_id,checkpoint_ns");
        assert_eq!((q.limit, q.offset), (Some(10), Some(20)));
        assert_eq!(q.columns.unwrap(), ["a", "b"]);
        assert_eq!(q.on_conflict.unwrap(), ["thread_id", "checkpoint_ns"]);
        assert_eq!(parse_query(&decode_pairs("limit=x&offset=x"), None).unwrap().limit, None);
    }
}
