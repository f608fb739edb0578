//! Closed sets of names: `string_enum!` writes an enum whose variants are names
//! (`Exact = "exact"`), and [`choose`] reads one from JSON.

use serde_json::Value;

use super::expected;
use crate::error::Invalid;

/// An enum of names (`Exact = "exact"`), with `ALL`, `as_str` and [`Choice`], which reads
/// it from JSON with the one wording of a name not in the set.
macro_rules! string_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $crate::input::Choice for $name {
            const ALL: &'static [$name] = $name::ALL;
            const NAMES: &'static [&'static str] = &[$($text),+];
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }
    };
}

/// A closed set of names (an enum written with `crate::string_enum!`). The lookups work on
/// `NAMES`, so their code exists once rather than once per enum.
pub trait Choice: Copy + 'static {
    const ALL: &'static [Self];
    /// The names, in the order of `ALL`.
    const NAMES: &'static [&'static str];
    fn as_str(self) -> &'static str;

    /// The member named `name`, if there is one.
    fn named(name: &str) -> Option<Self> {
        position(Self::NAMES, name).map(|i| Self::ALL[i])
    }

    /// The names, comma-separated, for messages.
    fn names() -> String {
        Self::NAMES.join(", ")
    }
}

fn position(names: &[&str], name: &str) -> Option<usize> {
    names.iter().position(|n| *n == name)
}

/// `v` as one of `T`'s names: `{field} must be one of a, b, c, got the string "d"`.
pub fn choose<T: Choice>(field: &str, v: &Value) -> Result<T, Invalid> {
    choose_index(field, v, T::NAMES).map(|i| T::ALL[i])
}

/// [`choose`] for a name given as a string (an argument rather than a JSON field).
pub fn choose_str<T: Choice>(field: &str, name: &str) -> Result<T, Invalid> {
    choose(field, &Value::String(name.to_owned()))
}

/// The index in `names` of the name `v`, or the error of [`choose`].
pub fn choose_index(field: &str, v: &Value, names: &[&str]) -> Result<usize, Invalid> {
    v.as_str()
        .and_then(|s| position(names, s))
        .ok_or_else(|| expected(field, &format!("one of {}", names.join(", ")), v))
}
