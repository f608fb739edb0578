//! Numbers as text, through serde_json's own float code (shortest round-trip digits and a
//! correctly rounded parser), which the module carries anyway. `core`'s `f64` `Display`
//! and `FromStr` would each add their own algorithms (~20 KB of .wasm between them).

use serde_json::Value;

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
    serde_json::from_str::<Value>(&json).ok()?.as_f64().filter(|x| x.is_finite())
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
