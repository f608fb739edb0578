//! PostgREST's URL grammar (docs/references/api/url_grammar.rst, tables_views.rst):
//! `select=`, filters `col=[not.]op.value`, logic trees `or=(...)` / `and=(...)`, `order=`,
//! `limit=`, `offset=`, `columns=`, `on_conflict=`. Parsing is separate from SQL building so
//! every rule is unit-tested without a database.

use crate::error::ApiError;
use crate::grammar;

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
    /// A key, or an array index with its sign (`+1`, `-2`) when `index`.
    pub key: String,
    pub index: bool,
}

impl Field {
    /// The name PostgREST gives the output column (Plan.hs `lastJsonKey`): the last JSON key;
    /// when the path ends in an array index, the last key before it, else the column.
    pub fn output_name(&self) -> &str {
        match self.path.last() {
            None => &self.column,
            Some(last) if !last.index => &last.key,
            Some(_) => self.path.iter().rev().find(|s| !s.index).map_or(&self.column, |s| &s.key),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectItem {
    Star,
    Field {
        field: Field,
        alias: Option<String>,
        cast: Option<String>,
    },
    /// `alias:name!hint!inner(children)`, or a spread `...name!hint(children)`.
    Relation(Relation),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub name: String,
    pub alias: Option<String>,
    pub hint: Option<String>,
    /// `!inner` (Some(true)) / `!left` (Some(false)).
    pub inner: Option<bool>,
    pub spread: bool,
    pub children: Vec<SelectItem>,
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

/// `(any)` / `(all)` after an operator: the value is a `{a,b}` array literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quant {
    Any,
    All,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub field: Field,
    pub negated: bool,
    pub op: Op,
    pub quant: Option<Quant>,
    pub operand: Operand,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Filter(Filter),
    Logic {
        negated: bool,
        or: bool,
        children: Vec<Condition>,
    },
    /// `rel=is.null` / `rel=not.is.null` on an embedded resource, resolved by the planner to
    /// the embedding's join alias (Plan.hs `addNullEmbedFilters`).
    NullEmbed {
        join_alias: String,
        is_null: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTerm {
    /// `order=rel(col)`: a column of an embedded to-one resource.
    pub relation: Option<String>,
    pub field: Field,
    pub desc: bool,
    pub nulls_first: Option<bool>,
}

/// Everything a request's query string says. Filters, orders and ranges carry the embed
/// path they apply to (`cities.name=eq.x` → `["cities"]`); the root's path is empty.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryParams {
    pub select: Option<Vec<SelectItem>>,
    pub conditions: Vec<(Vec<String>, Condition)>,
    pub order: Vec<(Vec<String>, Vec<OrderTerm>)>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    /// `rel.limit=` / `rel.offset=` for embedded resources.
    pub embed_ranges: Vec<(Vec<String>, Option<u64>, Option<u64>)>,
    pub columns: Option<Vec<String>>,
    pub on_conflict: Option<Vec<String>>,
    /// `key=value` pairs whose value is no operator expression: RPC arguments on GET.
    pub rpc_args: Vec<(String, String)>,
}

impl QueryParams {
    pub fn root_conditions(&self) -> Vec<Condition> {
        self.conditions.iter().filter(|(p, _)| p.is_empty()).map(|(_, c)| c.clone()).collect()
    }

    pub fn root_order(&self) -> Vec<OrderTerm> {
        self.order.iter().rev().find(|(p, _)| p.is_empty()).map(|(_, o)| o.clone()).unwrap_or_default()
    }
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

/// Parses all query pairs (QueryParams.hs `parse`). With `rpc_read` (GET/HEAD on a
/// function) a pair whose value is no operator expression is a function argument; every
/// other pair is a filter on the result.
pub fn parse_query(pairs: &[(String, String)], rpc_read: bool) -> Result<QueryParams, ApiError> {
    let mut q = QueryParams::default();
    for (key, value) in pairs {
        match key.as_str() {
            "select" => q.select = Some(parse_select(value)?),
            "columns" => q.columns = Some(grammar::columns("columns", value)?),
            "on_conflict" => q.on_conflict = Some(grammar::columns("on_conflict", value)?),
            _ => {
                let segments = split_path(key);
                let last = segments.last().map(String::as_str).unwrap_or("");
                let path: Vec<String> = segments[..segments.len().saturating_sub(1)].to_vec();
                match last {
                    "order" => q.order.push((path, parse_order(value)?)),
                    // Non-integers are ignored, as PostgREST's `readMaybe` does; a negative limit
                    // makes an empty range, which ApiRequest.hs `getRanges` refuses (NegativeLimit).
                    "limit" | "offset" => {
                        let n = match value.parse::<i64>() {
                            Ok(n) if n < 0 && last == "limit" => {
                                return Err(invalid_range("Limit should be greater than or equal to zero."));
                            }
                            parsed => parsed.ok().filter(|n| *n >= 0).map(|n| n as u64),
                        };
                        if path.is_empty() {
                            if last == "limit" { q.limit = n } else { q.offset = n }
                        } else {
                            let entry = match q.embed_ranges.iter_mut().find(|(p, _, _)| *p == path) {
                                Some(e) => e,
                                None => {
                                    q.embed_ranges.push((path, None, None));
                                    q.embed_ranges.last_mut().expect("just pushed")
                                }
                            };
                            if last == "limit" { entry.1 = n } else { entry.2 = n }
                        }
                    }
                    "or" | "and" => {
                        let negated = path.iter().any(|p| p == "not");
                        let path: Vec<String> = path.into_iter().filter(|p| p != "not").collect();
                        let children = parse_logic_children(key, value)?;
                        q.conditions.push((path, Condition::Logic { negated, or: last == "or", children }));
                    }
                    _ => {
                        // The whole key is one tree path (QueryParams.hs `pRequestFilter`): a
                        // key PostgREST cannot parse fails the request, even on RPC reads.
                        let (path, field) = grammar::tree_path(key)?;
                        let name = field.column.clone();
                        match parse_op_operand(field, value, false) {
                            Ok(f) => q.conditions.push((path, Condition::Filter(f))),
                            Err(_) if rpc_read && path.is_empty() => q.rpc_args.push((name, value.clone())),
                            Err(d) => return Err(parse_error(format!("failed to parse filter ({value})"), d)),
                        }
                    }
                }
            }
        }
    }
    Ok(q)
}

/// The raw keys of the filter parameters (QueryParams.hs `qsFilterFields`): every key but
/// `select`, `columns` and `on_conflict`, and those whose last dot-separated word is
/// `order`, `limit`, `offset`, `and` or `or`. PUT compares them with the primary key.
pub fn filter_fields(pairs: &[(String, String)]) -> Vec<String> {
    pairs
        .iter()
        .map(|(k, _)| k)
        .filter(|k| !matches!(k.as_str(), "select" | "columns" | "on_conflict"))
        .filter(|k| !matches!(k.rsplit('.').next(), Some("order" | "limit" | "offset" | "and" | "or")))
        .cloned()
        .collect()
}

/// `a.b.c` → `["a", "b", "c"]`, keeping dots inside double quotes; embed names lose their
/// quotes, the last segment (a field, maybe with a JSON path) keeps them for `parse_field`.
fn split_path(key: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in key.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                out.last_mut().expect("never empty").push(ch);
            }
            '.' if !quoted => out.push(String::new()),
            _ => out.last_mut().expect("never empty").push(ch),
        }
    }
    let n = out.len();
    for seg in &mut out[..n - 1] {
        *seg = unquote_name(seg);
    }
    out
}

/// A field with its JSON path (`pField`) spanning `piece`, a slice of the parameter
/// `whole`; a failure is PGRST100 for `source`, placed where it is in `whole`.
fn field_of(piece: &str, whole: &str, source: &str) -> Result<Field, ApiError> {
    grammar::whole_field(piece).map_err(|e| e.shifted(grammar::offset_in(whole, piece)).to_api_error(source, whole))
}

fn parse_select(value: &str) -> Result<Vec<SelectItem>, ApiError> {
    if value.trim().is_empty() {
        return Ok(vec![SelectItem::Star]);
    }
    parse_forest(value, value)
}

/// One level of `select=` (QueryParams.hs `pFieldForest`): fields, `*`, embedded
/// relations `[alias:]name[!hint][!inner|!left](…)` and spreads `...name(…)`.
fn parse_forest(value: &str, whole: &str) -> Result<Vec<SelectItem>, ApiError> {
    let err = |d: String| parse_error(format!("failed to parse select parameter ({whole})"), d);
    let source = format!("failed to parse select parameter ({whole})");
    // Aliases, relation names and hints are `pFieldName`s, casts `pIdentifier`s.
    let name = |piece: &str| {
        grammar::whole_name(piece).map_err(|e| e.shifted(grammar::offset_in(whole, piece)).to_api_error(&source, whole))
    };
    let mut items = Vec::new();
    if value.trim().is_empty() {
        return Ok(items);
    }
    for raw in split_top_level(value, ',').map_err(|d| err(d.to_string()))? {
        let raw = raw.trim();
        if raw == "*" {
            items.push(SelectItem::Star);
            continue;
        }
        let (alias, rest) = match top_level_find(raw, ':').filter(|&i| !raw[i..].starts_with("::")) {
            Some(i) if !raw[..i].contains('(') => (Some(name(raw[..i].trim())?), raw[i + 1..].trim()),
            _ => (None, raw),
        };
        // Aggregates (`count()`, `col.sum()`): PostgREST refuses them unless
        // db-aggregates-enabled, which is off by default (Plan.hs `validateAggFunctions`).
        let head = rest.split("::").next().unwrap_or(rest);
        let aggregate = head == "count()"
            || ["sum()", "avg()", "count()", "max()", "min()"].iter().any(|a| head.ends_with(&format!(".{a}")));
        if aggregate {
            return Err(ApiError::pgrst(400, "PGRST123", "Use of aggregate functions is not allowed"));
        }
        if let Some(open) = top_level_find(rest, '(') {
            let inner =
                rest[open + 1..].strip_suffix(')').ok_or_else(|| err(format!("unexpected {:?}", &rest[open..])))?;
            let (spread, head) = match rest[..open].strip_prefix("...") {
                Some(h) => (true, h),
                None => (false, &rest[..open]),
            };
            if spread && alias.is_some() {
                return Err(err("a spread relation takes no alias".into()));
            }
            let mut parts = split_bang(head).into_iter();
            let relation = parts.next().unwrap_or_default();
            let relation = name(relation.trim())
                .map_err(|e| if relation.trim().is_empty() { err("expecting a relation name".into()) } else { e })?;
            let (mut hint, mut inner_join) = (None, None);
            for p in parts {
                match p.as_str() {
                    "inner" => inner_join = Some(true),
                    "left" => inner_join = Some(false),
                    h if hint.is_none() => {
                        hint = Some(grammar::whole_name(h).map_err(|_| err(format!("unexpected !{h}")))?)
                    }
                    other => return Err(err(format!("unexpected !{other}"))),
                }
            }
            let children = parse_forest(inner, whole)?;
            items.push(SelectItem::Relation(Relation {
                name: relation,
                alias,
                hint,
                inner: inner_join,
                spread,
                children,
            }));
            continue;
        }
        if rest.starts_with("...") {
            return Err(err("a spread needs (columns)".into()));
        }
        let (field, cast) = match rest.split_once("::") {
            Some((f, c)) => (f, Some(c)),
            None => (rest, None),
        };
        let cast = match cast {
            Some(c) => Some(
                grammar::whole_identifier(c)
                    .map_err(|e| e.shifted(grammar::offset_in(whole, c)).to_api_error(&source, whole))?,
            ),
            None => None,
        };
        items.push(SelectItem::Field { field: field_of(field, whole, &source)?, alias, cast });
    }
    Ok(items)
}

fn unquote_name(s: &str) -> String {
    s.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(s).to_owned()
}

/// The first `c` outside double quotes and parentheses.
fn top_level_find(s: &str, c: char) -> Option<usize> {
    let (mut depth, mut quoted) = (0i32, false);
    for (i, ch) in s.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            _ if quoted => {}
            _ if ch == c && depth == 0 => return Some(i),
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `name!hint!inner` → `["name", "hint", "inner"]` (quotes respected).
fn split_bang(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in s.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                out.last_mut().expect("never empty").push(ch);
            }
            '!' if !quoted => out.push(String::new()),
            _ => out.last_mut().expect("never empty").push(ch),
        }
    }
    out
}

fn parse_order(value: &str) -> Result<Vec<OrderTerm>, ApiError> {
    let err = || {
        parse_error(format!("failed to parse order ({value})"), "expecting field[.asc|.desc][.nullsfirst|.nullslast]")
    };
    let mut terms = Vec::new();
    for raw in split_top_level(value, ',').map_err(|_| err())? {
        let raw = raw.trim();
        // `rel(col)` orders by a column of an embedded to-one resource (`pOrderRelationTerm`).
        let (relation, raw) = match (raw.find('('), raw.find(')')) {
            (Some(o), Some(c)) if o < c => {
                (Some(unquote_name(&raw[..o])), format!("{}{}", &raw[o + 1..c], &raw[c + 1..]))
            }
            _ => (None, raw.to_owned()),
        };
        let (field_part, modifiers) = split_field_prefix(&raw);
        let field = field_of(field_part, value, &format!("failed to parse order ({value})"))?;
        let mut term = OrderTerm { relation, field, desc: false, nulls_first: None };
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
#[cfg(test)]
pub fn parse_filter(key: &str, value: &str) -> Result<Filter, ApiError> {
    let field = grammar::tree_path(key)?.1;
    parse_op_operand(field, value, false).map_err(|d| parse_error(format!("failed to parse filter ({value})"), d))
}

fn parse_op_operand(field: Field, value: &str, in_logic: bool) -> Result<Filter, String> {
    let (negated, rest) = match value.strip_prefix("not.") {
        Some(r) => (true, r),
        None => (false, value),
    };
    let (op_part, operand) = rest.split_once('.').ok_or("expecting operator.value")?;
    // fts(config) carries its configuration in parentheses; eq(any) … imatch(all) a quantifier.
    let (op_name, mut fts_config) = match op_part.split_once('(') {
        Some((name, cfg)) => (name, Some(cfg.strip_suffix(')').ok_or("unclosed ( in operator")?.to_owned())),
        None => (op_part, None),
    };
    let op = Op::parse(op_name).ok_or_else(|| format!("unknown operator {op_name:?}"))?;
    let quantifiable =
        matches!(op, Op::Eq | Op::Gt | Op::Gte | Op::Lt | Op::Lte | Op::Like | Op::Ilike | Op::Match | Op::Imatch);
    let quant = match fts_config.as_deref() {
        Some("any") if quantifiable => Some(Quant::Any),
        Some("all") if quantifiable => Some(Quant::All),
        _ => None,
    };
    if quant.is_some() {
        fts_config = None;
    }
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
    Ok(Filter { field, negated, op, quant, operand })
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
    // PostgREST parses `<op><value>` (`or(a.eq.1)`), so its columns count the operator too.
    let op = key.rsplit('.').next().unwrap_or(key);
    let op = if key.split('.').any(|p| p == "not") { format!("not.{op}") } else { op.to_owned() };
    let ctx = Logic { value, op: &op };
    split_top_level(inner, ',').map_err(err)?.into_iter().map(|item| parse_logic_item(item, &ctx)).collect()
}

struct Logic<'a> {
    value: &'a str,
    op: &'a str,
}

fn parse_logic_item(item: &str, ctx: &Logic) -> Result<Condition, ApiError> {
    let err = |d: String| parse_error(format!("failed to parse logic tree ({})", ctx.value), d);
    let (negated, body) = match item.strip_prefix("not.") {
        Some(r) if r.starts_with("and(") || r.starts_with("or(") => (true, r),
        _ => (false, item),
    };
    for (prefix, or) in [("and(", false), ("or(", true)] {
        if let Some(inner) = body.strip_prefix(prefix) {
            let inner = inner.strip_suffix(')').ok_or_else(|| err("unclosed logic group".into()))?;
            let children = split_top_level(inner, ',')
                .map_err(err)?
                .into_iter()
                .map(|i| parse_logic_item(i, ctx))
                .collect::<Result<_, _>>()?;
            return Ok(Condition::Logic { negated, or, children });
        }
    }
    let (field_part, rest) = split_field_prefix(item);
    let field = grammar::whole_field(field_part).map_err(|e| {
        let at = grammar::offset_in(ctx.value, field_part) + ctx.op.chars().count();
        e.shifted(at)
            .to_api_error(&format!("failed to parse logic tree ({})", ctx.value), &format!("{}{}", ctx.op, ctx.value))
    })?;
    Ok(Condition::Filter(parse_op_operand(field, rest, true).map_err(err)?))
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

    #[test]
    fn filter_fields_are_the_raw_filter_keys() {
        let pairs = decode_pairs(
            "select=a&id=eq.1&rel.id=eq.2&order=a&rel.limit=1&offset=2&or=(a.eq.1)&not.and=(a.eq.1)&columns=a&on_conflict=a&j->>k=eq.1",
        );
        assert_eq!(filter_fields(&pairs), ["id", "rel.id", "j->>k"]);
    }

    /// The message and details of a PGRST100 refusal (a query string PostgREST cannot parse).
    fn refusal<T: std::fmt::Debug>(r: Result<T, ApiError>) -> (String, String) {
        let e = r.unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (400, "PGRST100"), "{e:?}");
        (e.message, e.details.and_then(|d| d.as_str().map(str::to_owned)).unwrap_or_default())
    }

    fn pairs(q: &str) -> QueryParams {
        parse_query(&decode_pairs(q), false).unwrap()
    }

    fn col(name: &str) -> Field {
        Field { column: name.into(), path: vec![] }
    }

    fn root_filters(q: &QueryParams) -> Vec<Filter> {
        q.root_conditions()
            .into_iter()
            .map(|c| match c {
                Condition::Filter(f) => f,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn filters_with_every_operator_shape() {
        let q = pairs("id=eq.5&name=not.like.*a*&tags=cs.{a,b}&x=is.null&y=not.is.true&z=in.(1,2,3)");
        let f = root_filters(&q);
        assert_eq!(
            f[0],
            Filter { field: col("id"), negated: false, op: Op::Eq, quant: None, operand: Operand::Value("5".into()) }
        );
        assert_eq!((f[1].negated, f[1].op, &f[1].operand), (true, Op::Like, &Operand::Value("*a*".into())));
        assert_eq!(f[2].operand, Operand::Value("{a,b}".into()));
        assert_eq!(f[3].operand, Operand::Is(IsValue::Null));
        assert_eq!((f[4].negated, &f[4].operand), (true, &Operand::Is(IsValue::True)));
        assert_eq!(f[5].operand, Operand::List(vec!["1".into(), "2".into(), "3".into()]));
    }

    #[test]
    fn quantifiers_on_the_operators_postgrest_allows() {
        let f = &root_filters(&pairs("t=like(any).{*a*,*b*}&n=gte(all).{1,2}"));
        assert_eq!((f[0].op, f[0].quant), (Op::Like, Some(Quant::Any)));
        assert_eq!(f[0].operand, Operand::Value("{*a*,*b*}".into()));
        assert_eq!((f[1].op, f[1].quant), (Op::Gte, Some(Quant::All)));
        assert_eq!(
            refusal(parse_query(&decode_pairs("t=cs(any).{a}"), false)),
            ("failed to parse filter (cs(any).{a})".into(), "operator \"cs\" takes no configuration".into()),
            "cs takes no quantifier"
        );
    }

    #[test]
    fn values_keep_dots_and_percent_decoding_applies() {
        let values: Vec<String> = root_filters(&pairs("v=eq.1.5&w=eq.a%2Cb&t=eq.a+b"))
            .into_iter()
            .map(|f| match f.operand {
                Operand::Value(v) => v,
                other => panic!("{other:?}"),
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
        for bad in ["in.(a,\"b", "in.a,b"] {
            assert_eq!(
                refusal(parse_filter("n", bad)),
                (format!("failed to parse filter ({bad})"), "expecting (value,value,...)".into())
            );
        }
    }

    #[test]
    fn json_paths_in_filters_select_and_order() {
        let f = parse_filter("metadata->>source", "eq.loop").unwrap();
        assert_eq!(
            f.field,
            Field {
                column: "metadata".into(),
                path: vec![JsonStep { as_text: true, key: "source".into(), index: false }]
            }
        );
        let f = parse_filter("data->a->0->>b", "eq.1").unwrap();
        assert_eq!(f.field.path.len(), 3);
        assert!(!f.field.path[0].as_text && !f.field.path[1].as_text && f.field.path[2].as_text);
        assert_eq!(f.field.output_name(), "b");
        assert_eq!(parse_filter("data->tags->0", "eq.1").unwrap().field.output_name(), "tags", "index: last key");
        assert_eq!(parse_filter("data->0", "eq.1").unwrap().field.output_name(), "data");
        let q = pairs("select=id,src:metadata->>source,n::text&order=metadata->>step.desc.nullslast,id");
        assert_eq!(q.select.as_ref().unwrap().len(), 3);
        match &q.select.as_ref().unwrap()[1] {
            SelectItem::Field { alias, field, cast } => {
                assert_eq!(alias.as_deref(), Some("src"));
                assert_eq!(field.path[0].key, "source");
                assert_eq!(cast, &None);
            }
            other => panic!("{other:?}"),
        }
        let order = q.root_order();
        assert!(order[0].desc);
        assert_eq!(order[0].nulls_first, Some(false));
        assert_eq!(order[1], OrderTerm { relation: None, field: col("id"), desc: false, nulls_first: None });
    }

    #[test]
    fn logic_trees_nest_and_negate() {
        let q = pairs("or=(a.eq.1,and(b.gt.2,c.in.(x,y)),not.and(d.is.null,e.eq.\"q,r\"))");
        match &q.root_conditions()[0] {
            Condition::Logic { negated: false, or: true, children } => {
                assert_eq!(children.len(), 3);
                assert!(
                    matches!(&children[1], Condition::Logic { or: false, negated: false, children } if children.len() == 2)
                );
                match &children[2] {
                    Condition::Logic { negated: true, or: false, children } => match &children[1] {
                        Condition::Filter(f) => assert_eq!(f.operand, Operand::Value("q,r".into())),
                        other => panic!("{other:?}"),
                    },
                    other => panic!("{other:?}"),
                }
            }
            other => panic!("{other:?}"),
        }
        for bad in ["(a.eq.1", "a.eq.1"] {
            assert_eq!(
                refusal(parse_query(&decode_pairs(&format!("or={bad}")), false)),
                (format!("failed to parse logic tree ({bad})"), "or expects (condition,condition,...)".into())
            );
        }
    }

    #[test]
    fn bad_filters_are_pgrst100() {
        for (k, v) in [("id", "5"), ("id", "equals.5"), ("id", "is.maybe"), ("id", "eq"), ("->x", "eq.1")] {
            let e = parse_filter(k, v).unwrap_err();
            assert_eq!((e.status, e.code.as_str()), (400, "PGRST100"), "{k}={v}");
        }
    }

    #[test]
    fn embedding_grammar() {
        let q = pairs("select=title,director:directors!fk_dir!inner(id,last_name),...films(t:title),empty()");
        let items = q.select.unwrap();
        match &items[1] {
            SelectItem::Relation(r) => {
                assert_eq!(
                    (r.name.as_str(), r.alias.as_deref(), r.hint.as_deref()),
                    ("directors", Some("director"), Some("fk_dir"))
                );
                assert_eq!((r.inner, r.spread, r.children.len()), (Some(true), false, 2));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&items[2], SelectItem::Relation(Relation { spread: true, name, .. }) if name == "films"));
        assert!(matches!(&items[3], SelectItem::Relation(Relation { children, .. }) if children.is_empty()));
        let e = parse_query(&decode_pairs("select=year.sum()"), false).unwrap_err();
        assert_eq!(e.code, "PGRST123", "aggregates are off by default, as db-aggregates-enabled");
        assert_eq!(parse_query(&decode_pairs("select=count()"), false).unwrap_err().code, "PGRST123");
    }

    #[test]
    fn embed_paths_on_filters_orders_ranges_and_logic() {
        let q = pairs(
            "cities.name=eq.x&a.b.c=gt.1&cities.order=name.desc&cities.limit=2&cities.offset=1&cities.or=(x.eq.1,y.eq.2)&not.or=(z.eq.1)&order=cities(name).desc",
        );
        assert_eq!(q.conditions[0].0, ["cities"]);
        assert_eq!(q.conditions[1].0, ["a", "b"]);
        assert_eq!(q.order[0].0, ["cities"]);
        assert_eq!(q.embed_ranges, vec![(vec!["cities".to_owned()], Some(2), Some(1))]);
        assert!(matches!(&q.conditions[2], (p, Condition::Logic { or: true, negated: false, .. }) if p == &["cities"]));
        assert!(matches!(&q.conditions[3], (p, Condition::Logic { negated: true, .. }) if p.is_empty()));
        let root = q.root_order();
        assert_eq!(
            (root[0].relation.as_deref(), root[0].field.column.as_str(), root[0].desc),
            (Some("cities"), "name", true)
        );
    }

    #[test]
    fn rpc_reads_split_arguments_from_filters() {
        let q = parse_query(&decode_pairs("director=3&year=gt.1900&select=title"), true).unwrap();
        assert_eq!(q.rpc_args, vec![("director".to_owned(), "3".to_owned())]);
        assert_eq!(root_filters(&q)[0].field.column, "year");
        assert_eq!(
            refusal(parse_query(&decode_pairs("director=3"), false)),
            ("failed to parse filter (3)".into(), "expecting operator.value".into()),
            "on tables every pair is a filter"
        );
    }

    #[test]
    fn fts_takes_a_configuration() {
        let f = parse_filter("tsv", "fts(english).cats").unwrap();
        assert_eq!(f.operand, Operand::Fts { config: Some("english".into()), query: "cats".into() });
        assert_eq!(
            refusal(parse_filter("x", "eq(english).a")),
            ("failed to parse filter (eq(english).a)".into(), "operator \"eq\" takes no configuration".into())
        );
    }

    #[test]
    fn range_header() {
        assert_eq!(parse_range_header("0-9").unwrap(), Some((0, Some(10))));
        assert_eq!(parse_range_header("items=5-").unwrap(), Some((5, None)));
        assert_eq!(parse_range_header("x").unwrap(), None, "junk is ignored");
        let e = parse_range_header("9-0").unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (416, "PGRST103"));
        let e = parse_query(&decode_pairs("limit=-1"), false).unwrap_err();
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
        assert_eq!(parse_query(&decode_pairs("limit=x&offset=x"), false).unwrap().limit, None);
    }
}
