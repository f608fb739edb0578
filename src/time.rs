//! ISO 8601 instants without a date-time crate: the memory tools parse what a model
//! writes as `expires_at` (and check it is in the future); the research store prints
//! millisecond timestamps in its summary.

/// Milliseconds since the epoch of `YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM[:SS[.fff]]` with
/// `Z` or `±HH:MM` (a space may replace `T`; no zone means UTC).
pub fn parse_iso8601_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok())?
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut ms = days_from_civil(year, month, day) as f64 * 86_400_000.0;
    if b.len() == 10 {
        return Some(ms);
    }
    if !(b[10] == b'T' || b[10] == b't' || b[10] == b' ') || b.len() < 16 || b[13] != b':' {
        return None;
    }
    let (hour, minute) = (num(11..13)?, num(14..16)?);
    let mut i = 16;
    let mut second = 0.0;
    if b.get(i) == Some(&b':') {
        let whole = num(i + 1..i + 3)?;
        i += 3;
        let mut frac = String::from("0");
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
            frac = format!("0.{}", &s[start..i]);
        }
        second = whole as f64 + crate::number::parse(&frac)?;
    }
    if hour > 23 || minute > 59 || second >= 60.0 {
        return None;
    }
    let offset_min = match &s[i..] {
        "" | "Z" | "z" => 0,
        zone if zone.len() == 6 && (zone.starts_with('+') || zone.starts_with('-')) && zone.as_bytes()[3] == b':' => {
            let (h, m) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if h > 23 || m > 59 {
                return None;
            }
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            sign * (h * 60 + m)
        }
        _ => return None,
    };
    ms += ((hour * 60 + minute - offset_min) * 60_000) as f64 + second * 1000.0;
    Some(ms)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_ms(ms: f64) -> String {
    let total = ms.floor() as i64;
    let days = total.div_euclid(86_400_000);
    let rem = total.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's algorithms (proleptic Gregorian, days since 1970-01-01).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_and_date_times_with_zones() {
        assert_eq!(parse_iso8601_ms("1970-01-01"), Some(0.0));
        assert_eq!(parse_iso8601_ms("2000-03-01T00:00:00Z"), Some(951_868_800_000.0));
        assert_eq!(parse_iso8601_ms("2000-03-01T01:30:00+01:30"), Some(951_868_800_000.0));
        assert_eq!(parse_iso8601_ms("2000-02-29 23:59:59.5-00:00"), Some(951_868_799_500.0));
        assert_eq!(parse_iso8601_ms("2027-01-31T12:00"), parse_iso8601_ms("2027-01-31T12:00:00.000Z"));
        for bad in [
            "",
            "2027",
            "2027-02-29",
            "2027-13-01",
            "2027-01-01T24:00",
            "2027-01-01T10:00:00+5",
            "tomorrow",
            "2027-01-01T10:00:00.Z",
            "２０２７-01-01",
        ] {
            assert_eq!(parse_iso8601_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_round_trip_over_four_centuries() {
        let mut ms = -12_219_292_800_000.0; // 1582-10-15
        while ms < 32_503_680_000_000.0 {
            // 3000-01-01
            assert_eq!(parse_iso8601_ms(&format_ms(ms)), Some(ms), "{}", format_ms(ms));
            ms += 86_400_000.0 * 37.0 + 3_723_456.0;
        }
        assert_eq!(format_ms(951_868_799_500.0), "2000-02-29T23:59:59.500Z");
    }
}
