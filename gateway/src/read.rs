//! Read plans with resource embedding (PostgREST's Plan.hs `readPlan` and
//! QueryBuilder.hs `readPlanToQuery`): the `select=` tree becomes a tree of nodes, one per
//! embedded resource, each joined to its parent by the relationship the schema cache
//! found; filters, orders and ranges attach to the node their embed path names. Every
//! child is a `LATERAL` subquery: a to-one embed is `row_to_json(child.*)`, a to-many
//! embed `json_agg(child)`, a spread lifts the child's columns into the parent.

use crate::error::ApiError;
use crate::fuzzy;
use crate::query::{Condition, Field, IsValue, Op, Operand, OrderTerm, QueryParams, Relation, SelectItem};
use crate::quote::{ident, qualified};
use crate::schema::{Cardinality, Relationship, SchemaCache, Table};
use crate::sql::{conditions_sql, field_expr, limit_offset, order_term, select_item};

pub struct Node<'a> {
    pub table: Option<&'a Table>,
    /// The relation name as written (the root: the table or function name).
    name: String,
    alias: Option<String>,
    /// How columns of this node are qualified in SQL.
    pub qual: String,
    /// The FROM item(s).
    pub from: String,
    join_conds: Vec<String>,
    rel: Option<Relationship>,
    /// The alias of this node's LATERAL join in its parent (QueryBuilder's `relAggAlias`).
    join_alias: String,
    inner: bool,
    spread: bool,
    select: Vec<SelectItem>,
    pub conditions: Vec<Condition>,
    pub order: Vec<OrderTerm>,
    limit: Option<u64>,
    offset: Option<u64>,
    children: Vec<Node<'a>>,
}

impl<'a> Node<'a> {
    /// A node with nothing selected, filtered or embedded yet, joined to no parent.
    fn new(table: Option<&'a Table>, name: String, qual: String, from: String) -> Node<'a> {
        Node {
            table,
            name,
            alias: None,
            qual,
            from,
            join_conds: Vec::new(),
            rel: None,
            join_alias: String::new(),
            inner: false,
            spread: false,
            select: Vec::new(),
            conditions: Vec::new(),
            order: Vec::new(),
            limit: None,
            offset: None,
            children: Vec::new(),
        }
    }

    /// The root of a read. `origin` is the name relationships are looked up from (the table;
    /// for a function, the table it returns), `qual`/`from` how the root appears in SQL.
    pub fn root(
        schema: &'a SchemaCache,
        table: Option<&'a Table>,
        origin: &str,
        qual: String,
        from: String,
        q: &QueryParams,
        max_rows: Option<u64>,
    ) -> Result<Node<'a>, ApiError> {
        let mut root = Node::new(table, origin.to_owned(), qual, from);
        let items = q.select.clone().unwrap_or_else(|| vec![SelectItem::Star]);
        root.add_items(schema, &items, 0)?;
        for (path, c) in &q.conditions {
            root.find(path)?.conditions.push(c.clone());
        }
        for (path, o) in &q.order {
            root.find(path)?.order = o.clone();
        }
        for (path, limit, offset) in &q.embed_ranges {
            let node = root.find(path)?;
            node.limit = *limit;
            node.offset = *offset;
        }
        root.resolve(max_rows)?;
        Ok(root)
    }

    fn label(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }

    fn to_one(&self) -> bool {
        self.rel.as_ref().is_some_and(Relationship::to_one)
    }

    /// Embedded resources are addressed by alias when they have one (Plan.hs `updateNode`).
    fn find(&mut self, path: &[String]) -> Result<&mut Node<'a>, ApiError> {
        let Some((first, rest)) = path.split_first() else { return Ok(self) };
        match self.children.iter_mut().find(|c| c.label() == first) {
            Some(child) => child.find(rest),
            None => Err(not_embedded(first)),
        }
    }

    fn add_items(&mut self, schema: &'a SchemaCache, items: &[SelectItem], depth: usize) -> Result<(), ApiError> {
        for item in items {
            match item {
                SelectItem::Relation(r) => {
                    let child = self.child(schema, r, depth + 1)?;
                    self.children.push(child);
                }
                other => self.select.push(other.clone()),
            }
        }
        Ok(())
    }

    fn child(&self, schema: &'a SchemaCache, r: &Relation, depth: usize) -> Result<Node<'a>, ApiError> {
        let origin = self.table.map_or(self.name.as_str(), |t| t.name.as_str());
        let rel = find_rel(schema, origin, &r.name, r.hint.as_deref())?;
        let s = &schema.schema;
        let table = schema.tables.get(&rel.ftable);
        let alias = format!("{}_{depth}", rel.ftable);
        let parent = &self.qual;
        let eq = |a: String, b: String| format!("{a} = {b}");
        let (qual, from, join_conds) = match &rel.cardinality {
            Cardinality::ManyToOne { cols, .. }
            | Cardinality::OneToMany { cols, .. }
            | Cardinality::OneToOne { cols, .. } => {
                let q = ident(&alias);
                let conds = cols
                    .iter()
                    .map(|(c, fc)| eq(format!("{q}.{}", ident(fc)), format!("{parent}.{}", ident(c))))
                    .collect();
                (q, format!("{} AS {}", qualified(s, &rel.ftable), ident(&alias)), conds)
            }
            // The junction is joined implicitly, without aliases (QueryBuilder.hs `fromF`).
            Cardinality::ManyToMany { junction, source, target, .. } => {
                let q = qualified(s, &rel.ftable);
                let j = qualified(s, junction);
                let mut conds: Vec<String> = target
                    .iter()
                    .map(|(fc, jc)| eq(format!("{j}.{}", ident(jc)), format!("{q}.{}", ident(fc))))
                    .collect();
                conds.extend(
                    source.iter().map(|(c, jc)| eq(format!("{j}.{}", ident(jc)), format!("{parent}.{}", ident(c)))),
                );
                (q.clone(), format!("{q}, {j}"), conds)
            }
            Cardinality::Computed { function, .. } => {
                let q = ident(&alias);
                let from = format!("{}({parent}::{}) AS {q}", qualified(s, function), qualified(s, origin));
                (q, from, Vec::new())
            }
        };
        let mut node = Node {
            alias: r.alias.clone(),
            join_conds,
            join_alias: format!("{origin}_{}_{depth}", r.alias.as_deref().unwrap_or(&r.name)),
            rel: Some(rel),
            inner: r.inner == Some(true),
            spread: r.spread,
            ..Node::new(table, r.name.clone(), qual, from)
        };
        node.add_items(schema, &r.children, depth)?;
        Ok(node)
    }

    /// After everything is attached: null filters on embeds, related orders, max-rows.
    fn resolve(&mut self, max_rows: Option<u64>) -> Result<(), ApiError> {
        let labels: Vec<(String, String)> =
            self.children.iter().map(|c| (c.label().to_owned(), c.join_alias.clone())).collect();
        for c in &mut self.conditions {
            null_embed_filters(c, &labels);
        }
        for term in &mut self.order {
            if let Some(rel) = &term.relation {
                let child = self.children.iter().find(|c| c.label() == rel).ok_or_else(|| not_embedded(rel))?;
                if !child.to_one() {
                    let origin = self.table.map_or(self.name.as_str(), |t| t.name.as_str());
                    return Err(ApiError::pgrst(
                        400,
                        "PGRST118",
                        format!("A related order on '{rel}' is not possible"),
                    )
                    .with_details(format!(
                        "'{origin}' and '{rel}' do not form a many-to-one or one-to-one relationship"
                    )));
                }
                term.relation = Some(child.join_alias.clone());
            }
        }
        if self.rel.is_some()
            && let Some(m) = max_rows
        {
            self.limit = Some(self.limit.map_or(m, |l| l.min(m)));
        }
        for c in &mut self.children {
            c.resolve(max_rows)?;
        }
        Ok(())
    }

    fn empty_embed(&self) -> bool {
        self.select.is_empty() && self.children.iter().all(Node::empty_embed)
    }

    /// The names a spread of this node lifts into its parent (Plan.hs
    /// `generateSpreadSelectFields`); a to-many spread lists the table's columns for `*`.
    fn spread_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for item in &self.select {
            match item {
                SelectItem::Star if !self.to_one() => {
                    out.extend(self.table.into_iter().flat_map(|t| t.columns.iter().map(|c| c.name.clone())))
                }
                SelectItem::Star => out.push("*".into()),
                SelectItem::Field { field, alias, .. } => {
                    out.push(alias.clone().unwrap_or_else(|| field.output_name().to_owned()))
                }
                SelectItem::Relation(_) => {}
            }
        }
        for c in &self.children {
            if c.spread {
                out.extend(c.spread_names());
            } else if !c.empty_embed() {
                out.push(c.label().to_owned());
            }
        }
        out
    }

    /// This node's SELECT. `count` drops the select list, order and range (the count query
    /// keeps the joins so `!inner` and null-embed filters still count).
    pub fn sql(&self, count: bool, root_window: Option<(Option<u64>, u64)>) -> Result<String, ApiError> {
        let mut selects: Vec<String> = Vec::new();
        let to_many_spread = self.spread && !self.to_one();
        let star_only = self.select.is_empty() && self.children.is_empty();
        if count {
            selects.push("1".into());
        } else {
            if star_only {
                selects.push(format!("{}.*", self.qual));
            }
            let items: Vec<SelectItem> = if to_many_spread && self.select.iter().any(|i| matches!(i, SelectItem::Star))
            {
                // A to-many spread aggregates each column separately, so `*` is spelled out.
                self.table
                    .map(|t| {
                        t.columns
                            .iter()
                            .map(|c| SelectItem::Field {
                                field: Field { column: c.name.clone(), path: Vec::new() },
                                alias: None,
                                cast: None,
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            } else {
                self.select.clone()
            };
            selects.extend(items.iter().filter_map(|i| select_item(&self.qual, self.table, i)));
            if to_many_spread {
                // Its order moves into the parent's json_agg: select the ordering values.
                for (i, t) in self.order.iter().enumerate() {
                    let expr = match &t.relation {
                        Some(join_alias) => field_expr(&ident(join_alias), &t.field, None),
                        None => field_expr(&self.qual, &t.field, self.table),
                    };
                    selects.push(format!("{expr} AS {}", ident(&self.order_alias(t, i))));
                }
            }
        }
        let mut joins = String::new();
        for c in &self.children {
            let j = ident(&c.join_alias);
            let kind = if c.inner { "INNER" } else { "LEFT" };
            let sub = c.sql(false, None)?;
            if c.to_one() {
                joins.push_str(&format!(" {kind} JOIN LATERAL ( {sub} ) AS {j} ON TRUE"));
                if !count {
                    if c.spread {
                        selects.extend(c.spread_names().iter().map(|n| spread_ref(&j, n)));
                    } else if !c.empty_embed() {
                        selects.push(format!("row_to_json({j}.*)::jsonb AS {}", ident(c.label())));
                    }
                }
            } else {
                let on = if c.inner { format!("{j} IS NOT NULL") } else { "TRUE".into() };
                let mut agg = vec![format!("json_agg({j})::jsonb AS {j}")];
                if c.spread {
                    let order: Vec<String> = c
                        .order
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            let term = OrderTerm {
                                relation: None,
                                field: Field { column: c.order_alias(t, i), path: Vec::new() },
                                ..t.clone()
                            };
                            order_term(&j, None, &term)
                        })
                        .collect();
                    let order =
                        if order.is_empty() { String::new() } else { format!(" ORDER BY {}", order.join(", ")) };
                    for n in c.spread_names() {
                        agg.push(format!("COALESCE(json_agg({j}.{}{order}), '[]')::jsonb AS {}", ident(&n), ident(&n)));
                        if !count {
                            selects.push(format!("{j}.{}", ident(&n)));
                        }
                    }
                } else if !count && !c.empty_embed() {
                    selects.push(format!("COALESCE({j}.{j}, '[]') AS {}", ident(c.label())));
                }
                joins.push_str(&format!(
                    " {kind} JOIN LATERAL ( SELECT {} FROM ( {sub} ) AS {j} ) AS {j} ON {on}",
                    agg.join(", ")
                ));
            }
        }
        let mut wheres = conditions_sql(&self.qual, self.table, &self.conditions)?;
        wheres.extend(self.join_conds.iter().cloned());
        let mut sql = format!("SELECT {} FROM {}{joins}", selects.join(", "), self.from);
        if !wheres.is_empty() {
            sql.push_str(&format!(" WHERE {}", wheres.join(" AND ")));
        }
        if count {
            return Ok(sql);
        }
        if !self.order.is_empty() && !to_many_spread {
            let terms: Vec<String> = self.order.iter().map(|t| order_term(&self.qual, self.table, t)).collect();
            sql.push_str(&format!(" ORDER BY {}", terms.join(", ")));
        }
        match root_window {
            Some((limit, offset)) => sql.push_str(&limit_offset(limit, Some(offset))),
            None => sql.push_str(&limit_offset(self.limit, self.offset)),
        }
        Ok(sql)
    }

    fn order_alias(&self, t: &OrderTerm, i: usize) -> String {
        format!("{}_{}_{}", self.join_alias, t.field.column, i + 1)
    }
}

fn spread_ref(join: &str, name: &str) -> String {
    if name == "*" { format!("{join}.*") } else { format!("{join}.{}", ident(name)) }
}

fn not_embedded(name: &str) -> ApiError {
    ApiError::pgrst(400, "PGRST108", format!("'{name}' is not an embedded resource in this request"))
        .with_hint(format!("Verify that '{name}' is included in the 'select' query parameter."))
}

/// `rel=is.null` / `rel=not.is.null` where `rel` is an embedded resource of this node.
fn null_embed_filters(c: &mut Condition, labels: &[(String, String)]) {
    match c {
        Condition::Filter(f)
            if f.field.path.is_empty() && f.op == Op::Is && f.operand == Operand::Is(IsValue::Null) =>
        {
            if let Some((_, join_alias)) = labels.iter().find(|(l, _)| *l == f.field.column) {
                *c = Condition::NullEmbed { join_alias: join_alias.clone(), is_null: !f.negated };
            }
        }
        Condition::Logic { children, .. } => children.iter_mut().for_each(|c| null_embed_filters(c, labels)),
        _ => {}
    }
}

/// Plan.hs `findRel`: the target names a table, a foreign key or (for a to-one) a column;
/// a hint names the foreign key, a column of either side, or the junction.
pub fn find_rel(
    schema: &SchemaCache,
    origin: &str,
    target: &str,
    hint: Option<&str>,
) -> Result<Relationship, ApiError> {
    let all = schema.relationships.get(origin).map(Vec::as_slice).unwrap_or_default();
    let matches: Vec<&Relationship> = all
        .iter()
        .filter(|r| {
            if let Cardinality::Computed { function, .. } = &r.cardinality {
                return function == target;
            }
            let o2m = matches!(r.cardinality, Cardinality::OneToMany { .. });
            let m2o = matches!(r.cardinality, Cardinality::ManyToOne { .. });
            let fk_col = |h: &str| r.single_col().is_some_and(|(c, _)| c == h);
            let fk_ref_col = |h: &str| r.single_col().is_some_and(|(_, fc)| fc == h);
            let junction =
                |h: &str| matches!(&r.cardinality, Cardinality::ManyToMany { junction, .. } if junction == h);
            if r.is_self() {
                match hint {
                    None => (target == r.ftable && o2m) || (fk_col(target) && m2o),
                    Some(h) => target == r.ftable && o2m && fk_ref_col(h),
                }
            } else {
                match hint {
                    None => target == r.ftable || r.constraint() == Some(target) || fk_col(target),
                    Some(h) => {
                        target == r.ftable && (r.constraint() == Some(h) || fk_col(h) || fk_ref_col(h) || junction(h))
                    }
                }
            }
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            let s = &schema.schema;
            let mut e = ApiError::pgrst(
                400,
                "PGRST200",
                format!("Could not find a relationship between '{origin}' and '{target}' in the schema cache"),
            )
            .with_details(format!(
                "Searched for a foreign key relationship between '{origin}' and '{target}'{} in the schema '{s}', but no matches were found.",
                hint.map(|h| format!(" using the hint '{h}'")).unwrap_or_default()
            ));
            e.hint = no_rel_hint(schema, origin, target);
            Err(e)
        }
        many => {
            let details: Vec<serde_json::Value> = many.iter().map(|r| compressed(r)).collect();
            let hints: Vec<String> = many
                .iter()
                .map(|r| {
                    let by = match &r.cardinality {
                        Cardinality::ManyToMany { junction, .. } => junction.clone(),
                        _ => r.constraint().unwrap_or_default().to_owned(),
                    };
                    format!("'{}!{by}'", r.ftable)
                })
                .collect();
            let mut e = ApiError::pgrst(
                300,
                "PGRST201",
                format!("Could not embed because more than one relationship was found for '{origin}' and '{target}'"),
            )
            .with_hint(format!(
                "Try changing '{target}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                hints.join(", ")
            ));
            e.details = Some(serde_json::Value::Array(details));
            Err(e)
        }
    }
}

/// Error.hs `compressedRel`.
fn compressed(r: &Relationship) -> serde_json::Value {
    let cols = |v: &[(String, String)], first: bool| {
        let names: Vec<&str> = v.iter().map(|(a, b)| if first { a.as_str() } else { b.as_str() }).collect();
        format!("({})", names.join(", "))
    };
    let (cardinality, relationship) = match &r.cardinality {
        Cardinality::ManyToMany { junction, constraint1, constraint2, source, target } => (
            "many-to-many",
            format!("{junction} using {constraint1}{} and {constraint2}{}", cols(source, false), cols(target, false)),
        ),
        Cardinality::ManyToOne { constraint, cols: c } => (
            "many-to-one",
            format!("{constraint} using {}{} and {}{}", r.table, cols(c, true), r.ftable, cols(c, false)),
        ),
        Cardinality::OneToOne { constraint, cols: c } => (
            "one-to-one",
            format!("{constraint} using {}{} and {}{}", r.table, cols(c, true), r.ftable, cols(c, false)),
        ),
        Cardinality::OneToMany { constraint, cols: c } => (
            "one-to-many",
            format!("{constraint} using {}{} and {}{}", r.table, cols(c, true), r.ftable, cols(c, false)),
        ),
        Cardinality::Computed { .. } => return serde_json::json!({}),
    };
    serde_json::json!({"cardinality": cardinality, "embedding": format!("{} with {}", r.table, r.ftable), "relationship": relationship})
}

/// Error.hs `noRelBetweenHint`: suggest a parent when the origin has no relationships,
/// else a child that is not an exact match.
fn no_rel_hint(schema: &SchemaCache, origin: &str, target: &str) -> Option<String> {
    match schema.relationships.get(origin) {
        Some(rels) => {
            let children: Vec<&str> = rels.iter().map(|r| r.ftable.as_str()).collect();
            fuzzy::best(&children, target, 0.0)
                .filter(|(_, score)| *score < 1.0)
                .map(|(c, _)| format!("Perhaps you meant '{c}' instead of '{target}'."))
        }
        None => {
            let parents: Vec<&str> = schema.relationships.keys().map(String::as_str).collect();
            fuzzy::best(&parents, origin, 0.33).map(|(p, _)| format!("Perhaps you meant '{p}' instead of '{origin}'."))
        }
    }
}
