//! The part of PostgREST's query-string grammar that names things — field names, JSON
//! paths, embed paths and column lists (QueryParams.hs `pTreePath`, `pFieldName`,
//! `pJsonPath`, `pField`, `pColumns`) — on a small model of Parsec, so the gateway accepts
//! exactly the names PostgREST accepts and refuses the others with PostgREST's PGRST100
//! message: `"failed to parse tree path (k)" (line 1, column 12)` and details such as
//! `unexpected "-" expecting digit`. Parsec's rules matter for both: what a failed branch
//! consumed decides whether the next one runs, and the error reported is the one that got
//! furthest, with what each branch expected there.

use crate::error::ApiError;
use crate::query::{Field, JsonStep};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Msg {
    /// What the input had (`"-"`, or empty at the end of input), from a token parser.
    SysUnExpect(String),
    /// From `unexpected` (`notFollowedBy`, `eof`), shown instead of the above.
    UnExpect(String),
    Expect(String),
}

impl Msg {
    fn kind(&self) -> u8 {
        match self {
            Msg::SysUnExpect(_) => 0,
            Msg::UnExpect(_) => 1,
            Msg::Expect(_) => 2,
        }
    }
}

/// A parse error: a position (index into the input's chars) and its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pos: usize,
    msgs: Vec<Msg>,
}

impl Fail {
    fn unknown(pos: usize) -> Fail {
        Fail { pos, msgs: Vec::new() }
    }

    /// Parsec's `mergeError`: a meaningful error wins over an empty one, then the one that
    /// got further; at the same position both count.
    fn merge(self, other: Fail) -> Fail {
        if other.msgs.is_empty() && !self.msgs.is_empty() {
            return self;
        }
        if self.msgs.is_empty() && !other.msgs.is_empty() {
            return other;
        }
        match self.pos.cmp(&other.pos) {
            std::cmp::Ordering::Equal => {
                let mut msgs = self.msgs;
                msgs.extend(other.msgs);
                Fail { pos: self.pos, msgs }
            }
            std::cmp::Ordering::Greater => self,
            std::cmp::Ordering::Less => other,
        }
    }

    /// `<?>`: the label replaces what the parser expected.
    fn expect(mut self, label: &str) -> Fail {
        self.msgs.retain(|m| !matches!(m, Msg::Expect(_)));
        self.msgs.insert(0, Msg::Expect(label.to_owned()));
        self
    }

    /// Parsec's `showErrorMessages "or" "unknown parse error" "expecting" "unexpected" "end of input"`,
    /// with PostgREST's newlines turned into spaces.
    pub fn details(&self) -> String {
        if self.msgs.is_empty() {
            return "unknown parse error".into();
        }
        let mut sorted = self.msgs.clone();
        sorted.sort_by_key(Msg::kind);
        let of = |k: u8| -> Vec<String> {
            sorted
                .iter()
                .filter(|m| m.kind() == k)
                .map(|m| match m {
                    Msg::SysUnExpect(s) | Msg::UnExpect(s) | Msg::Expect(s) => s.clone(),
                })
                .collect()
        };
        let (sys, un, exp) = (of(0), of(1), of(2));
        let clean = |v: Vec<String>| {
            let mut out: Vec<String> = Vec::new();
            for s in v.into_iter().filter(|s| !s.is_empty()) {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
            out
        };
        let commas_or = |ms: Vec<String>| match ms.len() {
            0 => String::new(),
            1 => ms[0].clone(),
            n => format!("{} or {}", ms[..n - 1].join(", "), ms[n - 1]),
        };
        let many = |pre: &str, v: Vec<String>| {
            let ms = clean(v);
            if ms.is_empty() { String::new() } else { format!("{pre} {}", commas_or(ms)) }
        };
        let sys_line = match sys.first() {
            _ if !un.is_empty() => String::new(),
            None => String::new(),
            Some(s) if s.is_empty() => "unexpected end of input".into(),
            Some(s) => format!("unexpected {s}"),
        };
        let lines = [sys_line, many("unexpected", un), many("expecting", exp)];
        let mut out: Vec<String> = Vec::new();
        for l in lines.into_iter().filter(|l| !l.is_empty()) {
            if !out.contains(&l) {
                out.push(l);
            }
        }
        out.join(" ")
    }

    /// Parsec's `SourcePos` after the input's first `pos` characters (tabs to the next
    /// multiple of 8, plus one).
    fn line_column(&self, input: &[char]) -> (usize, usize) {
        let (mut line, mut col) = (1, 1);
        for c in input.iter().take(self.pos) {
            match c {
                '\n' => (line, col) = (line + 1, 1),
                '\t' => col = col + 8 - ((col - 1) % 8),
                _ => col += 1,
            }
        }
        (line, col)
    }

    /// PostgREST's PGRST100 for this failure: `"<source>" (line l, column c)` and the details.
    pub fn to_api_error(&self, source: &str, input: &str) -> ApiError {
        let chars: Vec<char> = input.chars().collect();
        let (line, col) = self.line_column(&chars);
        ApiError::pgrst(400, "PGRST100", format!("\"{source}\" (line {line}, column {col})"))
            .with_details(self.details())
    }

    /// The same failure `offset` characters further into a longer input.
    pub fn shifted(mut self, offset: usize) -> Fail {
        self.pos += offset;
        self
    }
}

/// Haskell's `show` of a String, as Parsec quotes tokens.
fn show_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        show_char_into(&mut out, c, '"');
    }
    out.push('"');
    out
}

/// Haskell's `show` of a Char (`notFollowedBy` and `eof` report the character this way).
fn show_char(c: char) -> String {
    let mut out = String::from("'");
    show_char_into(&mut out, c, '\'');
    out.push('\'');
    out
}

fn show_char_into(out: &mut String, c: char, quote: char) {
    const ASCII: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO", "SI", "DLE", "DC1",
        "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
    ];
    match c {
        '\\' => out.push_str("\\\\"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if (c as u32) < 32 => {
            out.push('\\');
            out.push_str(ASCII[c as usize]);
        }
        '\u{7f}' => out.push_str("\\DEL"),
        c if (c as u32) > 127 => out.push_str(&format!("\\{}", c as u32)),
        c => out.push(c),
    }
}

/// A parser's answer, in Parsec's four shapes: whether it consumed input, and its value
/// with the position after it and the error it would have given had it gone on.
struct Reply<T> {
    consumed: bool,
    result: Result<(T, usize, Fail), Fail>,
}

type P<'a, T> = Box<dyn Fn(&[char], usize) -> Reply<T> + 'a>;

fn satisfy<'a>(pred: impl Fn(char) -> bool + 'a) -> P<'a, char> {
    Box::new(move |s, pos| match s.get(pos) {
        Some(&c) if pred(c) => Reply { consumed: true, result: Ok((c, pos + 1, Fail::unknown(pos + 1))) },
        Some(&c) => {
            Reply { consumed: false, result: Err(Fail { pos, msgs: vec![Msg::SysUnExpect(show_str(&c.to_string()))] }) }
        }
        None => Reply { consumed: false, result: Err(Fail { pos, msgs: vec![Msg::SysUnExpect(String::new())] }) },
    })
}

fn label<'a, T: 'a>(p: P<'a, T>, name: &'a str) -> P<'a, T> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        if r.consumed {
            return r;
        }
        let result = match r.result {
            Err(e) => Err(e.expect(name)),
            Ok((v, at, e)) if !e.msgs.is_empty() => Ok((v, at, e.expect(name))),
            ok => ok,
        };
        Reply { consumed: false, result }
    })
}

fn char_<'a>(c: char) -> P<'a, char> {
    label_owned(satisfy(move |x| x == c), show_str(&c.to_string()))
}

fn label_owned<'a, T: 'a>(p: P<'a, T>, name: String) -> P<'a, T> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        if r.consumed {
            return r;
        }
        let result = match r.result {
            Err(e) => Err(e.expect(&name)),
            Ok((v, at, e)) if !e.msgs.is_empty() => Ok((v, at, e.expect(&name))),
            ok => ok,
        };
        Reply { consumed: false, result }
    })
}

fn letter<'a>() -> P<'a, char> {
    label(satisfy(char::is_alphabetic), "letter")
}

fn digit<'a>() -> P<'a, char> {
    label(satisfy(|c| c.is_ascii_digit()), "digit")
}

/// Parsec's `string`: every error is reported where the string began.
fn string<'a>(lit: &'static str) -> P<'a, &'static str> {
    Box::new(move |s, pos| {
        let want: Vec<char> = lit.chars().collect();
        for (i, w) in want.iter().enumerate() {
            let fail = |found: Option<char>| Fail {
                pos,
                msgs: vec![
                    Msg::SysUnExpect(found.map(|c| show_str(&c.to_string())).unwrap_or_default()),
                    Msg::Expect(show_str(lit)),
                ],
            };
            match s.get(pos + i) {
                Some(c) if c == w => {}
                other => return Reply { consumed: i > 0, result: Err(fail(other.copied())) },
            }
        }
        let end = pos + want.len();
        Reply { consumed: true, result: Ok((lit, end, Fail::unknown(end))) }
    })
}

fn attempt<'a, T: 'a>(p: P<'a, T>) -> P<'a, T> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        match r.result {
            Err(e) => Reply { consumed: false, result: Err(e) },
            ok => Reply { consumed: r.consumed, result: ok },
        }
    })
}

fn alt<'a, T: 'a>(p: P<'a, T>, q: P<'a, T>) -> P<'a, T> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        let e = match (r.consumed, r.result) {
            (false, Err(e)) => e,
            (consumed, result) => return Reply { consumed, result },
        };
        let r2 = q(s, pos);
        if r2.consumed {
            return r2;
        }
        let result = match r2.result {
            Ok((v, at, e2)) => Ok((v, at, e.merge(e2))),
            Err(e2) => Err(e.merge(e2)),
        };
        Reply { consumed: false, result }
    })
}

fn bind<'a, A: 'a, B: 'a>(p: P<'a, A>, f: impl Fn(A) -> P<'a, B> + 'a) -> P<'a, B> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        let (a, at, e1) = match r.result {
            Ok(ok) => ok,
            Err(e) => return Reply { consumed: r.consumed, result: Err(e) },
        };
        let r2 = f(a)(s, at);
        if r2.consumed {
            return r2;
        }
        let result = match r2.result {
            Ok((b, at2, e2)) => Ok((b, at2, e1.merge(e2))),
            Err(e2) => Err(e1.merge(e2)),
        };
        Reply { consumed: r.consumed, result }
    })
}

fn map<'a, A: 'a, B: 'a>(p: P<'a, A>, f: impl Fn(A) -> B + 'a) -> P<'a, B> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        Reply { consumed: r.consumed, result: r.result.map(|(a, at, e)| (f(a), at, e)) }
    })
}

fn pure<'a, T: Clone + 'a>(v: T) -> P<'a, T> {
    Box::new(move |_, pos| Reply { consumed: false, result: Ok((v.clone(), pos, Fail::unknown(pos))) })
}

fn many<'a, T: 'a>(p: P<'a, T>) -> P<'a, Vec<T>> {
    Box::new(move |s, pos| {
        let (mut out, mut at, mut consumed) = (Vec::new(), pos, false);
        loop {
            let r = p(s, at);
            match (r.consumed, r.result) {
                (true, Ok((v, next, _))) => {
                    out.push(v);
                    at = next;
                    consumed = true;
                }
                (false, Ok(_)) => unreachable!("many applied to a parser that accepts an empty string"),
                (true, Err(e)) => return Reply { consumed: true, result: Err(e) },
                (false, Err(e)) => return Reply { consumed, result: Ok((out, at, e)) },
            }
        }
    })
}

fn many1<'a, T: Clone + 'a>(p: impl Fn() -> P<'a, T> + 'a) -> P<'a, Vec<T>> {
    let first = p();
    many1_then(first, p)
}

fn sep_by1<'a, T: Clone + 'a, S: 'a>(p: impl Fn() -> P<'a, T> + 'a, sep: impl Fn() -> P<'a, S> + 'a) -> P<'a, Vec<T>> {
    let p = std::rc::Rc::new(p);
    let first = p();
    many1_then(first, move || {
        let p = p.clone();
        bind(sep(), move |_| (*p)())
    })
}

/// `do { x <- first; xs <- many rest; return (x:xs) }`.
fn many1_then<'a, T: Clone + 'a>(first: P<'a, T>, rest: impl Fn() -> P<'a, T> + 'a) -> P<'a, Vec<T>> {
    bind(first, move |x| {
        map(many(rest()), move |more| {
            let mut v = vec![x.clone()];
            v.extend(more);
            v
        })
    })
}

fn option<'a, T: Clone + 'a>(default: T, p: P<'a, T>) -> P<'a, T> {
    alt(p, pure(default))
}

fn look_ahead<'a, T: 'a>(p: P<'a, T>) -> P<'a, T> {
    Box::new(move |s, pos| {
        let r = p(s, pos);
        match r.result {
            Ok((v, _, _)) => Reply { consumed: false, result: Ok((v, pos, Fail::unknown(pos))) },
            err => Reply { consumed: r.consumed, result: err },
        }
    })
}

/// `notFollowedBy (char c)`: fails, unconsumed, with `unexpected 'c'` where `c` is next.
fn not_followed_by_char<'a>(c: char) -> P<'a, ()> {
    Box::new(move |s, pos| match s.get(pos) {
        Some(&x) if x == c => {
            Reply { consumed: false, result: Err(Fail { pos, msgs: vec![Msg::UnExpect(show_char(x))] }) }
        }
        _ => Reply { consumed: false, result: Ok(((), pos, Fail::unknown(pos))) },
    })
}

/// `eof = notFollowedBy anyToken <?> "end of input"`.
fn eof<'a>() -> P<'a, ()> {
    Box::new(move |s, pos| match s.get(pos) {
        Some(&x) => Reply {
            consumed: false,
            result: Err(Fail { pos, msgs: vec![Msg::UnExpect(show_char(x)), Msg::Expect("end of input".into())] }),
        },
        None => Reply { consumed: false, result: Ok(((), pos, Fail::unknown(pos))) },
    })
}

fn strip(chars: Vec<char>) -> String {
    chars.into_iter().collect::<String>().trim().to_owned()
}

// --- PostgREST's parsers ---------------------------------------------------------------

/// `pQuotedValue`: `"…"` with `\` escaping the next character.
fn quoted_value<'a>() -> P<'a, String> {
    bind(char_('"'), |_| {
        let body = many(alt(satisfy(|c| c != '\\' && c != '"'), bind(char_('\\'), |_| satisfy(|_| true))));
        bind(body, |chars: Vec<char>| {
            let v: String = chars.into_iter().collect();
            map(char_('"'), move |_| v.clone())
        })
    })
}

/// `sepByDash`: pieces joined by `-` where the dash does not start an arrow `->`.
fn sep_by_dash<'a>(ident: impl Fn() -> P<'a, String> + 'a) -> P<'a, String> {
    let dash = || attempt(bind(char_('-'), |_| map(not_followed_by_char('>'), |_| '-')));
    map(sep_by1(ident, dash), |parts: Vec<String>| parts.join("-"))
}

/// `pIdentifier`: letters, digits, `_`, ` `, `$`, trimmed.
fn identifier<'a>() -> P<'a, String> {
    map(many1(|| alt(letter(), alt(digit(), satisfy(|c| matches!(c, '_' | ' ' | '$'))))), strip)
}

const FIELD_NAME: &str = "field name (* or [a..z0..9_$])";
const JSON_KEY: &str = "any non reserved character different from: .,>()";

fn field_name<'a>() -> P<'a, String> {
    label(alt(quoted_value(), sep_by_dash(identifier)), FIELD_NAME)
}

fn json_key_name<'a>() -> P<'a, String> {
    let key_ident = || map(many1(|| satisfy(|c| !"(-:.,>)".contains(c))), strip);
    label(alt(quoted_value(), sep_by_dash(key_ident)), JSON_KEY)
}

/// `pJsonPath`: `->`/`->>` steps; an operand of digits (an optional `-` first) followed by
/// `->`, `::`, `.`, `,` or the end is an array index, anything else a key.
fn json_path<'a>() -> P<'a, Vec<JsonStep>> {
    many(bind(alt(attempt(map(string("->>"), |_| true)), attempt(map(string("->"), |_| false))), |as_text| {
        let end = || {
            let la = |t: &'static str| attempt(map(look_ahead(string(t)), |_| ()));
            alt(la("->"), alt(la("::"), alt(la("."), alt(la(","), attempt(eof())))))
        };
        let index = bind(option('+', char_('-')), move |sign| {
            bind(many1(digit), move |digits: Vec<char>| {
                let v = format!("{sign}{}", digits.iter().collect::<String>());
                map(end(), move |_| JsonStep { as_text, key: v.clone(), index: true })
            })
        });
        let key = map(json_key_name(), move |k| JsonStep { as_text, key: k, index: false });
        alt(attempt(index), attempt(key))
    }))
}

fn ws<'a>() -> P<'a, ()> {
    map(many(satisfy(|c| c == ' ' || c == '\t')), |_| ())
}

/// `pField = lexeme $ (,) <$> pFieldName <*> option [] pJsonPath`.
fn field<'a>() -> P<'a, Field> {
    bind(ws(), |_| {
        bind(field_name(), |column| {
            bind(option(Vec::new(), json_path()), move |path| {
                let f = Field { column: column.clone(), path };
                map(ws(), move |_| f.clone())
            })
        })
    })
}

fn run<T>(p: P<'_, T>, input: &[char]) -> Result<(T, usize, Fail), Fail> {
    p(input, 0).result
}

/// `pTreePath` on a filter's key: embed names separated by `.`, then a field with its JSON
/// path. As in PostgREST (which never asks for the end of input here), what follows a
/// complete path is ignored.
pub fn tree_path(key: &str) -> Result<(Vec<String>, Field), ApiError> {
    let chars: Vec<char> = key.chars().collect();
    let p = bind(sep_by1(field_name, || label(char_('.'), "delimiter (.)")), |names: Vec<String>| {
        map(option(Vec::new(), json_path()), move |path| (names.clone(), path))
    });
    match run(p, &chars) {
        Ok(((mut names, path), _, _)) => {
            let column = names.pop().expect("sepBy1 gives one at least");
            Ok((names, Field { column, path }))
        }
        Err(e) => Err(e.to_api_error(&format!("failed to parse tree path ({key})"), key)),
    }
}

/// A field (`pField`) that must span `piece` entirely: a select item's field before its
/// cast, an order term before its modifiers, a logic tree filter before its operator.
/// The failure is placed `offset` characters into the parameter it came from.
pub fn whole_field(piece: &str) -> Result<Field, Fail> {
    let chars: Vec<char> = piece.chars().collect();
    let p = bind(field(), |f| map(eof(), move |_| f.clone()));
    run(p, &chars).map(|(f, _, _)| f)
}

/// A name (`pFieldName`) that must span `piece` entirely: a select item's alias, an
/// embedded relation's name or hint.
pub fn whole_name(piece: &str) -> Result<String, Fail> {
    let chars: Vec<char> = piece.chars().collect();
    let p = bind(field_name(), |n| map(eof(), move |_| n.clone()));
    run(p, &chars).map(|(n, _, _)| n)
}

/// A cast (`pIdentifier` after `::`) that must span `piece` entirely.
pub fn whole_identifier(piece: &str) -> Result<String, Fail> {
    let chars: Vec<char> = piece.chars().collect();
    let p = bind(identifier(), |n| map(eof(), move |_| n.clone()));
    run(p, &chars).map(|(n, _, _)| n)
}

/// `pColumns` (`columns=`, `on_conflict=`): field names separated by `,`; like PostgREST,
/// what follows the list is ignored.
pub fn columns(param: &str, value: &str) -> Result<Vec<String>, ApiError> {
    let chars: Vec<char> = value.chars().collect();
    let comma = || bind(ws(), |_| bind(char_(','), |_| ws()));
    match run(sep_by1(field_name, comma), &chars) {
        Ok((names, _, _)) => Ok(names),
        Err(e) => Err(e.to_api_error(&format!("failed to parse {param} parameter ({value})"), value)),
    }
}

/// The character offset of `part` inside `whole` when it is a slice of it (else 0).
pub fn offset_in(whole: &str, part: &str) -> usize {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    if p >= w && p <= w + whole.len() { whole[..p - w].chars().count() } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_err(key: &str) -> (String, String) {
        let e = tree_path(key).unwrap_err();
        assert_eq!((e.status, e.code.as_str()), (400, "PGRST100"));
        (e.message, e.details.unwrap().as_str().unwrap().to_owned())
    }

    fn json(s: &str) -> Result<Vec<JsonStep>, String> {
        let chars: Vec<char> = s.chars().collect();
        run(json_path(), &chars).map(|(v, _, _)| v).map_err(|e| {
            let (l, c) = e.line_column(&chars);
            format!("(line {l}, column {c}): {}", e.details())
        })
    }

    fn step(as_text: bool, key: &str, index: bool) -> JsonStep {
        JsonStep { as_text, key: key.into(), index }
    }

    /// QueryParams.hs's doctests for `pJsonPath`, answer for answer.
    #[test]
    fn json_paths_as_postgrest_doctests() {
        assert_eq!(json("->text").unwrap(), [step(false, "text", false)]);
        assert_eq!(json("->!@#$%^&*_a").unwrap(), [step(false, "!@#$%^&*_a", false)]);
        assert_eq!(json("->1").unwrap(), [step(false, "+1", true)]);
        assert_eq!(json("->>text").unwrap(), [step(true, "text", false)]);
        assert_eq!(json("->>1").unwrap(), [step(true, "+1", true)]);
        assert_eq!(json("->0,other").unwrap(), [step(false, "+0", true)]);
        assert_eq!(json("->0.desc").unwrap(), [step(false, "+0", true)]);
        assert_eq!(
            json("->>-78xy").unwrap_err(),
            r#"(line 1, column 7): unexpected 'x' expecting digit, "->", "::", ".", "," or end of input"#
        );
        assert_eq!(json("->>--34").unwrap_err(), r#"(line 1, column 5): unexpected "-" expecting digit"#);
        assert_eq!(json("->>-xy-4").unwrap_err(), r#"(line 1, column 5): unexpected "x" expecting digit"#);
    }

    /// QueryParams.hs's doctests for `pFieldName`.
    #[test]
    fn field_names_as_postgrest_doctests() {
        let name = |s: &str| {
            let chars: Vec<char> = s.chars().collect();
            run(field_name(), &chars).map(|(v, _, _)| v).map_err(|e| e.details())
        };
        assert_eq!(name("identifier").unwrap(), "identifier");
        assert_eq!(name("identifier with spaces").unwrap(), "identifier with spaces");
        assert_eq!(name("identifier-with-dashes").unwrap(), "identifier-with-dashes");
        assert_eq!(name("123").unwrap(), "123");
        assert_eq!(name("_").unwrap(), "_");
        assert_eq!(name("$").unwrap(), "$");
        assert_eq!(name(":").unwrap_err(), r#"unexpected ":" expecting field name (* or [a..z0..9_$])"#);
        assert_eq!(name("\":\"").unwrap(), ":");
        assert_eq!(name(" no leading or trailing spaces ").unwrap(), "no leading or trailing spaces");
        assert_eq!(name("\" leading and trailing spaces \"").unwrap(), " leading and trailing spaces ");
    }

    #[test]
    fn tree_paths_refuse_what_postgrest_refuses() {
        assert_eq!(
            path_err("metadata->--"),
            (
                r#""failed to parse tree path (metadata->--)" (line 1, column 12)"#.into(),
                r#"unexpected "-" expecting digit"#.into()
            )
        );
        assert_eq!(
            path_err("metadata->"),
            (
                r#""failed to parse tree path (metadata->)" (line 1, column 11)"#.into(),
                r#"unexpected end of input expecting "-", digit or any non reserved character different from: .,>()"#
                    .into()
            )
        );
        assert_eq!(path_err("a-").1, "unexpected end of input expecting letter or digit");
        assert_eq!(path_err("->x").1, r#"unexpected "-" expecting field name (* or [a..z0..9_$])"#);
        assert_eq!(path_err("a.").0, r#""failed to parse tree path (a.)" (line 1, column 3)"#);
    }

    #[test]
    fn tree_paths_accept_what_postgrest_accepts() {
        let ok = |k: &str| tree_path(k).unwrap();
        let (embeds, f) = ok("rel.sub.data->a-b->>-2");
        assert_eq!(embeds, ["rel", "sub"]);
        assert_eq!(
            (f.column.as_str(), f.path.clone()),
            ("data", vec![step(false, "a-b", false), step(true, "-2", true)])
        );
        assert_eq!(ok("data->1a").1.path, [step(false, "1a", false)], "digits then more: a key");
        assert_eq!(ok("data->\"--\"").1.path, [step(false, "--", false)], "quoted keys take anything");
        assert_eq!(ok("data-> spaced key ").1.path, [step(false, "spaced key", false)]);
        assert_eq!(ok("\"a.b\"").1.column, "a.b");
        // PostgREST stops at the first character that cannot continue the path.
        assert_eq!(ok("id!x").1.column, "id");
        assert_eq!(ok("data->a)").1.path, [step(false, "a", false)]);
    }

    #[test]
    fn whole_names_and_casts() {
        assert_eq!(whole_name("\"my alias\"").unwrap(), "my alias");
        assert_eq!(whole_name("some-name").unwrap(), "some-name");
        assert!(whole_name("a!b").is_err());
        assert!(whole_name("").is_err());
        assert_eq!(whole_identifier("text").unwrap(), "text");
        assert_eq!(whole_identifier("double precision").unwrap(), "double precision");
        assert!(whole_identifier("text[]").is_err());
        assert!(whole_identifier("").is_err());
    }

    #[test]
    fn whole_fields_and_column_lists() {
        assert_eq!(whole_field(" data->x ").unwrap().path, [step(false, "x", false)]);
        assert_eq!(whole_field("data->--").unwrap_err().pos, 7);
        assert!(whole_field("a!b").is_err());
        assert_eq!(columns("columns", "a, b ,\"c,d\"").unwrap(), ["a", "b", "c,d"]);
        let e = columns("columns", ",a").unwrap_err();
        assert_eq!(e.message, r#""failed to parse columns parameter (,a)" (line 1, column 1)"#);
    }
}
