//! Numbers and their text. serde_json keeps every JSON number as the text it came in
//! (feature `arbitrary_precision`), so a number from a caller or from Postgres is written
//! back byte for byte, and the module carries no float parser: serde_json's correctly
//! rounded one and `core`'s `f64::from_str` and `Display` each bring an algorithm and
//! tables of their own, while the host already has a correctly rounded parser. Where the
//! core needs a number's value, [`of`] converts it: in Rust when Clinger's fast path is
//! exact (what people and `JSON.stringify` write for most values), otherwise with the
//! host's correctly rounded parser ([`use_host_parser`]: the wasm boundary installs
//! JavaScript's; natively `str::parse`). Floats are written with serde_json's shortest
//! round-trip digits.

use std::sync::OnceLock;

use serde_json::Value;

static HOST_PARSER: OnceLock<fn(&str) -> Option<f64>> = OnceLock::new();

/// Installs the host's parser of JSON number text (correctly rounded) for the numbers
/// the fast path cannot convert exactly. The wasm boundary calls it when the module starts.
pub fn use_host_parser(parse: fn(&str) -> Option<f64>) {
    let _ = HOST_PARSER.set(parse);
}

/// The value of a JSON number, `None` for anything else and for numbers too large for a
/// double (JSON allows `1e400`).
pub fn of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => of_json_text(n.as_str()),
        _ => None,
    }
}

/// The double nearest to `text`, a number in JSON's grammar; `None` when it is not finite.
fn of_json_text(text: &str) -> Option<f64> {
    exact(text).or_else(|| host_parse(text)).filter(|x| x.is_finite())
}

#[cfg(not(target_arch = "wasm32"))]
fn host_parse(text: &str) -> Option<f64> {
    match HOST_PARSER.get() {
        Some(parse) => parse(text),
        None => text.parse().ok(),
    }
}

// No fallback in wasm: core's parser is the size this module avoids. Unset means a
// build without the boundary (it installs one at start), whose numbers then read as absent.
#[cfg(target_arch = "wasm32")]
fn host_parse(text: &str) -> Option<f64> {
    HOST_PARSER.get().and_then(|parse| parse(text))
}

/// Clinger's fast path: significant digits up to 2^53 and a power of ten up to 10^22 are
/// both exact doubles, so one IEEE multiplication or division rounds correctly. `None`
/// when that does not hold (or `text` is not a JSON number).
fn exact(text: &str) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.strip_prefix('+').unwrap_or(e).parse::<i32>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: u64 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        digits = digits.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    if whole.is_empty() || digits > 1 << 53 {
        return None;
    }
    let power = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    let x = digits as f64;
    let magnitude = match power {
        _ if digits == 0 => 0.0,
        0..=22 => x * POW10[power as usize],
        -22..=-1 => x / POW10[power.unsigned_abs() as usize],
        _ => return None,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `x` as JSON writes it (`1.5`, `1e+300`); `NaN`, `inf` and `-inf` for the values JSON
/// has no text for. For messages.
pub fn display(x: f64) -> String {
    match serde_json::Number::from_f64(x) {
        Some(n) => n.to_string(),
        None if x.is_nan() => "NaN".into(),
        None if x > 0.0 => "inf".into(),
        None => "-inf".into(),
    }
}

/// `x` as JavaScript's `String(x)` writes it for the numbers a message shows: whole numbers
/// without a fraction (`0`, not `0.0`), `NaN`, `Infinity`; others as [`display`].
pub fn js_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        (x as i64).to_string()
    } else {
        display(x)
    }
}

/// `x` in positional notation, with the digits serde_json writes for it (the shortest
/// that read back as `x`): `1e21` → `1000000000000000000000`, `1e-7` → `0.0000001`,
/// `2.0` → `2`. That is Postgres' `numeric` text of the JSON number serde_json wrote.
/// `x` must be finite.
pub fn positional(x: f64) -> String {
    let text = display(x);
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.trim_start_matches('+').parse::<i32>().unwrap_or(0)),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The value is 0.DIGITS × 10^point.
    let mut digits: String = whole.chars().chain(fraction.chars()).collect();
    let mut point = whole.len() as i32 + exponent;
    let leading = digits.len() - digits.trim_start_matches('0').len();
    digits.drain(..leading);
    point -= leading as i32;
    digits.truncate(digits.trim_end_matches('0').len());
    let sign = if negative { "-" } else { "" };
    if digits.is_empty() {
        return format!("{sign}0");
    }
    let len = digits.len() as i32;
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point >= len {
        format!("{sign}{digits}{}", "0".repeat((point - len) as usize))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{sign}{int}.{frac}")
    }
}

/// Postgres' `numeric` text of a JSON number's `text`, which is what `jsonb_each_text`
/// prints for it: the same digits in positional notation, with as many decimals as the
/// text has once its exponent is applied (`1.50` → `1.50`, `1e21` →
/// `1000000000000000000000`, `1.5e-7` → `0.00000015`, `-0` → `0`). Exponents beyond
/// ±1000 (which `numeric` refuses anyway) leave the text as it is.
pub fn numeric_text(text: &str) -> String {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => match e.strip_prefix('+').unwrap_or(e).parse::<i32>() {
            Ok(e) if e.abs() <= 1000 => (m, e),
            _ => return text.to_owned(),
        },
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The value is DIGITS × 10^shift.
    let mut digits = format!("{whole}{fraction}");
    let shift = exponent - fraction.len() as i32;
    let decimals = shift.min(0).unsigned_abs() as usize;
    if shift > 0 {
        digits.push_str(&"0".repeat(shift as usize));
    }
    if digits.len() <= decimals {
        digits.insert_str(0, &"0".repeat(decimals + 1 - digits.len()));
    }
    let (int, frac) = digits.split_at(digits.len() - decimals);
    let int = match int.trim_start_matches('0') {
        "" => "0",
        int => int,
    };
    let zero = digits.bytes().all(|b| b == b'0');
    let sign = if negative && !zero { "-" } else { "" };
    if frac.is_empty() { format!("{sign}{int}") } else { format!("{sign}{int}.{frac}") }
}

/// A decimal number in the text forms Rust's `f64::from_str` reads (`12`, `+1.5`, `.5`,
/// `5.`, `007`, `1e3`), correctly rounded; `None` for anything else, and for infinities
/// and NaN, which no caller accepts.
pub fn parse(text: &str) -> Option<f64> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'-' => ("-", &text[1..]),
        b'+' => ("", &text[1..]),
        _ => ("", text),
    };
    let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (rest, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) || !exponent_ok {
        return None;
    }
    // The same number in JSON's grammar: no leading zeros, digits on both sides of a point.
    let whole = whole.trim_start_matches('0');
    let mut json = format!("{sign}{}", if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        json.push('.');
        json.push_str(fraction);
    }
    if let Some(e) = exponent {
        json.push('e');
        json.push_str(e);
    }
    of_json_text(&json)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The doubles of every magnitude, by a fixed-seed generator.
    fn doubles() -> impl Iterator<Item = f64> {
        let mut g = crate::testgen::Gen::new(1);
        std::iter::from_fn(move || Some(f64::from_bits(g.next()))).filter(|x| x.is_finite()).take(200_000)
    }

    /// The significant digits of a number's text, without sign, point or exponent.
    fn significand(text: &str) -> String {
        let mantissa = text.trim_start_matches('-').split(['e', 'E']).next().unwrap_or("");
        mantissa.replace('.', "").trim_matches('0').to_owned()
    }

    #[test]
    fn positional_is_the_json_digits_without_an_exponent() {
        for x in doubles().chain([0.0, 1.0, 2.0, 100.0, 1e21, 1e-7, 0.1, 1.5, -3.25, 5e-324, f64::MAX, f64::MIN]) {
            let text = positional(x);
            assert_eq!(parse(&text), Some(x), "{x:e} → {text}");
            assert!(!text.contains(['e', 'E']) && !text.ends_with(".0"), "{text}");
            // The digits serde_json writes into the checkpoint's JSON, which Postgres reads.
            // (Rust's Display agrees but for ties: 1658206780088562.25 is …562.3 there.)
            assert_eq!(significand(&text), significand(&display(x)), "{x:e}");
        }
        for (x, text) in
            [(1e21, "1000000000000000000000"), (1e-7, "0.0000001"), (2.0, "2"), (-0.0, "-0"), (-1.5e-3, "-0.0015")]
        {
            assert_eq!(positional(x), text);
        }
    }

    #[test]
    fn numeric_text_is_postgres_numeric_output() {
        for (json, numeric) in [
            ("5", "5"),
            ("-0", "0"),
            ("-0.00", "0.00"),
            ("1.50", "1.50"),
            ("1e21", "1000000000000000000000"),
            ("1E+2", "100"),
            ("1.5e-7", "0.00000015"),
            ("1e-7", "0.0000001"),
            ("100e-2", "1.00"),
            ("12.5e1", "125"),
            ("12.25e1", "122.5"),
            ("-3.25", "-3.25"),
            ("0.1", "0.1"),
            ("5.123456789012345", "5.123456789012345"),
            ("1e99999", "1e99999"),
        ] {
            assert_eq!(numeric_text(json), numeric, "{json}");
        }
    }

    #[test]
    fn of_converts_exactly_with_or_without_the_fast_path() {
        for x in doubles() {
            for text in [display(x), format!("{x:e}"), format!("{x}")] {
                let v: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(of(&v), Some(x), "{text}");
            }
        }
        // The fast path alone, against Rust's parser: integers, decimals, exponents at its edges.
        for text in ["0", "-0", "1", "9007199254740992", "0.1", "0.3", "123.456", "1e22", "1e-22", "4.35", "-17.5e3"] {
            assert_eq!(exact(text), Some(text.parse::<f64>().unwrap()), "{text}");
        }
        for beyond in ["9007199254740993", "1e23", "1e-23", "0.30000000000000004", "18446744073709551616"] {
            assert_eq!(exact(beyond), None, "{beyond}");
        }
        assert_eq!(of(&serde_json::from_str("1e400").unwrap()), None);
        assert_eq!(of(&Value::from("1")), None);
    }

    #[test]
    fn parse_matches_rusts_from_str() {
        for x in doubles() {
            for text in [format!("{x}"), format!("{x:e}"), format!("{x:E}")] {
                assert_eq!(parse(&text), Some(x), "{text}");
            }
        }
        for text in ["12", "+1.5", "-.5", "5.", "007", "1e3", "1E+3", "2.5e-3", "0", "-0", "00.100"] {
            assert_eq!(parse(text), text.parse::<f64>().ok(), "{text}");
        }
        for bad in ["", ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "0x10", "1_000", " 1", "inf", "NaN", "1e999", "--1"]
        {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn display_names_what_json_cannot_say() {
        assert_eq!((display(1.5), display(1e300)), ("1.5".into(), "1e+300".into()));
        assert_eq!(
            (display(f64::NAN), display(f64::INFINITY), display(f64::NEG_INFINITY)),
            ("NaN".into(), "inf".into(), "-inf".into())
        );
    }
}
