//! An operation's parameters, declared once: `operations!` names each operation of a
//! capability with its parameters (each a Rust type and the name errors give it) and its
//! result, beside the code that plans it. From that one declaration come the enum of the
//! operation names, the enum of the calls with their typed arguments, the reader that
//! builds a call from what a facade passed, and the signatures `crates/generate` writes as
//! the JavaScript types the facades are checked against (`pkg-template/names.js`).
//!
//! Every argument is read through [`Arguments`], which the boundary implements over the JS
//! array of a call (`src/wasm/args.rs`): one reader for every capability, and the core
//! stays free of `wasm_bindgen`.

use serde_json::Value;

use crate::checkpoint::TypedBytes;
use crate::error::Invalid;

/// The arguments of one call, read in the order its declaration lists them. `None` is an
/// argument not given (`undefined` or `null`). An argument that cannot be read reads as
/// its type's default and is kept as the call's error, which [`Arguments::finish`]
/// answers: so a declaration's reader is a plain sequence of reads, without the code that
/// would drop the arguments read before each failure.
pub trait Arguments {
    /// JSON text the facade made of a caller's value, parsed.
    fn json(&mut self, field: &str) -> Value;
    /// A string that is valid Unicode, which must be given.
    fn string(&mut self, field: &str) -> String;
    /// A string that is valid Unicode.
    fn text(&mut self, field: &str) -> Option<String>;
    /// A non-negative integer that a JS number represents exactly.
    fn integer(&mut self, field: &str) -> Option<u64>;
    /// Any JS number.
    fn number(&mut self, field: &str) -> f64;
    /// A serializer's `[type, Uint8Array]`.
    fn typed_bytes(&mut self, field: &str) -> TypedBytes;
    /// `[[name, [type, Uint8Array]], …]`.
    fn named_typed_bytes(&mut self, field: &str) -> Vec<(String, TypedBytes)>;
    /// The first argument that could not be read, if one could not.
    fn finish(&mut self) -> Result<(), Invalid>;
}

/// The value of `read`, or its type's default with its error kept in `error` (the first
/// one only): how an [`Arguments`] reads each argument.
pub fn keep<T: Default>(error: &mut Option<Invalid>, read: Result<T, Invalid>) -> T {
    read.unwrap_or_else(|e| {
        error.get_or_insert(e);
        T::default()
    })
}

/// A parameter's type: how it is read, and what a facade passes for it, as TypeScript
/// writes it (in the generated types; `unknown` where the module itself checks the
/// JavaScript type, as for every caller value a facade hands on untouched).
pub trait Param: Sized {
    const TS: &'static str;
    /// Whether the argument may be left out (`undefined`).
    const OPTIONAL: bool;
    fn read(args: &mut dyn Arguments, field: &str) -> Self;
}

/// JSON text (not given: JSON `null`).
impl Param for Value {
    const TS: &'static str = "JsonText | undefined";
    const OPTIONAL: bool = true;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        args.json(field)
    }
}

/// JSON text, kept boxed where a call's other variants are small.
impl Param for Box<Value> {
    const TS: &'static str = "JsonText | undefined";
    const OPTIONAL: bool = true;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        Box::new(args.json(field))
    }
}

/// A string that must be given.
impl Param for String {
    const TS: &'static str = "unknown";
    const OPTIONAL: bool = false;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        args.string(field)
    }
}

impl Param for Option<String> {
    const TS: &'static str = "unknown";
    const OPTIONAL: bool = true;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        args.text(field)
    }
}

/// A count or an offset: not given is none (0).
impl Param for u64 {
    const TS: &'static str = "unknown";
    const OPTIONAL: bool = true;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        args.integer(field).unwrap_or(0)
    }
}

/// A number the operation checks the range of.
impl Param for f64 {
    const TS: &'static str = "unknown";
    const OPTIONAL: bool = false;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        args.number(field)
    }
}

/// JSON text that the code it is for parses itself (with its own rule for "not given").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonText(pub String);

impl JsonText {
    /// The text of an argument that may be left out.
    pub fn of(given: &Option<JsonText>) -> Option<&str> {
        given.as_ref().map(|t| t.0.as_str())
    }
}

impl Param for Option<JsonText> {
    const TS: &'static str = "JsonText | undefined";
    const OPTIONAL: bool = true;
    fn read(args: &mut dyn Arguments, field: &str) -> Self {
        args.text(field).map(JsonText)
    }
}

/// One operation as `operations!` declares it, for the generated JavaScript types: its
/// name, its parameters (`(name, TypeScript type, may be left out)`, in order) and its
/// result's type.
#[derive(Clone)]
pub struct Signature {
    pub name: &'static str,
    pub params: &'static [(&'static str, &'static str, bool)],
    pub result: &'static str,
}

/// A capability's operations, each with its parameters and result:
///
/// ```ignore
/// operations!(
///     /// docs of the names' enum
///     CheckpointOp,
///     /// docs of the calls' enum
///     Call {
///         /// docs of the operation
///         GetTuple = "getTuple" { configurable: Value = "config.configurable" } -> "ReadAnswer",
///     }
/// );
/// ```
///
/// writes `CheckpointOp` (a `string_enum!` of the names), `Call` (a variant per operation,
/// a field per parameter), `Call::read(op, args)`, which reads a call's arguments in the
/// declared order with each type's [`Param::read`], and `CheckpointOp::SIGNATURES`.
macro_rules! operations {
    (
        $(#[$names_doc:meta])* $names:ident,
        $(#[$calls_doc:meta])* $calls:ident {
            $(
                $(#[$doc:meta])*
                $variant:ident = $name:literal {
                    $( $(#[$field_doc:meta])* $field:ident : $ty:ty = $js:literal ),* $(,)?
                } -> $result:literal
            ),+ $(,)?
        }
    ) => {
        string_enum!($(#[$names_doc])* $names { $($variant = $name),+ });

        $(#[$calls_doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum $calls {
            $( $(#[$doc])* $variant { $( $(#[$field_doc])* $field: $ty ),* } ),+
        }

        impl $calls {
            /// The call of `op`, its arguments read from `args` in the declared order.
            pub fn read(
                op: $names,
                args: &mut dyn $crate::arguments::Arguments,
            ) -> Result<$calls, $crate::error::Invalid> {
                let call = match op {
                    $( $names::$variant => $calls::$variant {
                        $( $field: <$ty as $crate::arguments::Param>::read(args, $js) ),*
                    } ),+
                };
                args.finish()?;
                Ok(call)
            }
        }

        impl $calls {
            /// The operation this is a call of.
            pub fn op(&self) -> $names {
                match self {
                    $( $calls::$variant { .. } => $names::$variant ),+
                }
            }
        }

        impl $names {
            /// Each operation's parameters and result, for the generated JavaScript types.
            pub const SIGNATURES: &'static [$crate::arguments::Signature] = &[
                $( $crate::arguments::Signature {
                    name: $name,
                    params: &[ $( (
                        $js,
                        <$ty as $crate::arguments::Param>::TS,
                        <$ty as $crate::arguments::Param>::OPTIONAL,
                    ) ),* ],
                    result: $result,
                } ),+
            ];
        }
    };
}

/// The parameters every operation of a capability shares, as one struct: the same reader,
/// check and generated types as `operations!`, for one signature.
macro_rules! parameters {
    (
        $(#[$doc:meta])* $name:ident {
            $( $(#[$field_doc:meta])* $field:ident : $ty:ty = $js:literal ),* $(,)?
        } -> $result:literal
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$field_doc])* pub $field: $ty ),*
        }

        impl $name {
            /// The arguments read from `args` in the declared order.
            pub fn read(args: &mut dyn $crate::arguments::Arguments) -> Result<$name, $crate::error::Invalid> {
                let read = $name { $( $field: <$ty as $crate::arguments::Param>::read(args, $js) ),* };
                args.finish()?;
                Ok(read)
            }

            /// The parameters and the result, for the generated JavaScript types.
            pub const SIGNATURE: $crate::arguments::Signature = $crate::arguments::Signature {
                name: stringify!($name),
                params: &[ $( (
                    $js,
                    <$ty as $crate::arguments::Param>::TS,
                    <$ty as $crate::arguments::Param>::OPTIONAL,
                ) ),* ],
                result: $result,
            };
        }
    };
}

/// Arguments given as JSON values (a JSON string for a string argument), for planning a
/// call without JavaScript: the tests of the planners (not in the module JavaScript loads).
#[cfg(any(test, not(feature = "bindings")))]
pub struct Values<'a> {
    values: &'a [Value],
    next: usize,
    error: Option<Invalid>,
}

#[cfg(any(test, not(feature = "bindings")))]
impl<'a> Values<'a> {
    pub fn new(values: &'a [Value]) -> Self {
        Values { values, next: 0, error: None }
    }

    fn next(&mut self) -> Value {
        self.next += 1;
        self.values.get(self.next - 1).cloned().unwrap_or(Value::Null)
    }

    fn text_of(&mut self, field: &str) -> Result<Option<String>, Invalid> {
        match self.next() {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            _ => Err(Invalid::new(field, format!("{field} must be a string"))),
        }
    }
}

#[cfg(any(test, not(feature = "bindings")))]
impl Arguments for Values<'_> {
    fn json(&mut self, _: &str) -> Value {
        self.next()
    }

    fn string(&mut self, field: &str) -> String {
        let read = self.text_of(field).and_then(|t| t.ok_or_else(|| Invalid::new(field, "missing")));
        keep(&mut self.error, read)
    }

    fn text(&mut self, field: &str) -> Option<String> {
        let read = self.text_of(field);
        keep(&mut self.error, read)
    }

    fn integer(&mut self, field: &str) -> Option<u64> {
        let read = match self.next() {
            Value::Null => Ok(None),
            v => v.as_u64().map(Some).ok_or_else(|| Invalid::new(field, "must be an integer")),
        };
        keep(&mut self.error, read)
    }

    fn number(&mut self, field: &str) -> f64 {
        let read = self.next().as_f64().ok_or_else(|| Invalid::new(field, "must be a number"));
        keep(&mut self.error, read)
    }

    fn typed_bytes(&mut self, field: &str) -> TypedBytes {
        keep(&mut self.error, Err(Invalid::new(field, "bytes are not JSON")))
    }

    fn named_typed_bytes(&mut self, field: &str) -> Vec<(String, TypedBytes)> {
        keep(&mut self.error, Err(Invalid::new(field, "bytes are not JSON")))
    }

    fn finish(&mut self) -> Result<(), Invalid> {
        self.error.take().map_or(Ok(()), Err)
    }
}
