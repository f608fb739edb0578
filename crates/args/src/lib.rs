//! How agentmem reads a caller's arguments and words what is wrong with them.
//!
//! - On every target: `Invalid` (the field at fault and a sentence), and how messages name
//!   the value a caller gave (`Given`, `Quoted`). The core's input readers use them for JSON
//!   values, the readers below for JavaScript ones, so a caller reads one wording.
//! - On wasm32, [`js`]: the argument checks of the two WebAssembly modules (the main one,
//!   src/wasm, and agentmem-supabase/ids, crates/ids-wasm), so that whichever entry a caller
//!   imported, the same argument gets the same answer.
//!
//! A crate of its own because both modules need it and the ids module must not link the
//! core's JSON machinery; the core depends on it, not the other way round.

use std::fmt::{self, Write as _};

#[cfg(target_arch = "wasm32")]
pub mod js;

/// The `code` an [`Invalid`] carries across the boundary: the core's
/// `ErrorCode::InvalidInput` (a core test keeps the two equal).
pub const INVALID_INPUT: &str = "invalid_input";

/// Input a caller passed that cannot be used, caught before anything was sent: the field
/// at fault, by its path (`state.conversations[3].role`, `headers.x-n`), and a sentence
/// saying what is wrong. Every capability's error type has it as its `InvalidInput`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

impl Invalid {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Invalid {}

/// What a caller gave, as every message names it (`{field} must be {what}, got {given}`):
/// `the string "5000"`, `the number 1`, `true`, `null`, `undefined`, `an object`,
/// `an array`, `a function`, `a bigint`, `a symbol`. The one wording, for JSON values
/// (`input::describe`) and JavaScript values (the two modules' argument readers).
pub enum Given<'a> {
    String(&'a str),
    /// A number, as its text (JSON's, or JavaScript's `String(x)`): no float formatting
    /// is compiled into the modules for messages.
    NumberText(&'a str),
    Bool(bool),
    Null,
    Undefined,
    Array,
    Object,
    Function,
    /// Another `typeof` (`bigint`, `symbol`).
    Other(&'a str),
}

impl fmt::Display for Given<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Given::String(s) => write!(f, "the string {}", Quoted(s)),
            Given::NumberText(t) => write!(f, "the number {t}"),
            Given::Bool(b) => write!(f, "{b}"),
            Given::Null => f.write_str("null"),
            Given::Undefined => f.write_str("undefined"),
            Given::Array => f.write_str("an array"),
            Given::Object => f.write_str("an object"),
            Given::Function => f.write_str("a function"),
            Given::Other(t) => write!(f, "a {t}"),
        }
    }
}

/// Quotes user input in a message the way `{:?}` does for quotes, backslashes and
/// control characters; every other character is written as it is. `{:?}` would also
/// escape the rarer non-printable ones (U+200B, unassigned code points, ...), and the
/// Unicode tables that takes are a fifth of the agentmem/ids module. Messages use this,
/// never `{:?}`: release builds compile Debug formatting to nothing (`-Zfmt-debug=none`,
/// scripts/build.sh; a test below keeps it out of shipped code).
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' | '\\' => write!(f, "\\{c}")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                '\0' => f.write_str("\\0")?,
                c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}
