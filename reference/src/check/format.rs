//! The four checked formats (TC-CHECK-010), written out by hand: every other
//! format name is ignored (TC-CHECK-012).

use std::fmt;

/// A checked `format` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// RFC 3339 `date-time`.
    DateTime,
    /// RFC 3339 `full-date`.
    Date,
    /// A pragmatic address check: a non-empty domain after the last `@`,
    /// and a local part before it, with spaces and `@` only when quoted.
    Email,
    /// 8-4-4-4-12 hexadecimal digits.
    Uuid,
}

impl Format {
    /// The format a schema names, if it is one of the checked ones
    /// (TC-CHECK-010); any other name checks nothing (TC-CHECK-012).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "date-time" => Some(Format::DateTime),
            "date" => Some(Format::Date),
            "email" => Some(Format::Email),
            "uuid" => Some(Format::Uuid),
            _ => None,
        }
    }

    /// Whether `text` is a valid value of this format.
    pub fn accepts(self, text: &str) -> bool {
        match self {
            Format::DateTime => is_date_time(text),
            Format::Date => is_date(text.as_bytes()),
            Format::Email => is_email(text),
            Format::Uuid => is_uuid(text.as_bytes()),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let description = match self {
            Format::DateTime => "date-time (RFC 3339, e.g. 2024-02-29T13:45:00Z)",
            Format::Date => "date (RFC 3339, e.g. 2024-02-29)",
            Format::Email => "email address",
            Format::Uuid => "uuid (8-4-4-4-12 hexadecimal digits)",
        };
        f.write_str(description)
    }
}

/// Reads a fixed-width run of ASCII digits as a number.
fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        bytes
            .iter()
            .fold(0, |total, digit| total * 10 + u32::from(digit - b'0')),
    )
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DD` naming a day that exists.
fn is_date(bytes: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = bytes else {
        return false;
    };
    let (Some(year), Some(month), Some(day)) = (
        digits(&[*y0, *y1, *y2, *y3]),
        digits(&[*m0, *m1]),
        digits(&[*d0, *d1]),
    ) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// `HH:MM:SS`, optional fraction, then `Z` or `±HH:MM`.
fn is_time(bytes: &[u8]) -> bool {
    let [h0, h1, b':', m0, m1, b':', s0, s1, rest @ ..] = bytes else {
        return false;
    };
    let (Some(hour), Some(minute), Some(second)) = (
        digits(&[*h0, *h1]),
        digits(&[*m0, *m1]),
        digits(&[*s0, *s1]),
    ) else {
        return false;
    };
    // A second of 60 is a leap second, which RFC 3339 allows.
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let offset = match rest {
        [b'.', fraction @ ..] => {
            let fraction_length = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if fraction_length == 0 {
                return false;
            }
            &fraction[fraction_length..]
        }
        _ => rest,
    };
    match offset {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h0, h1, b':', m0, m1] => matches!(
            (digits(&[*h0, *h1]), digits(&[*m0, *m1])),
            (Some(hour), Some(minute)) if hour <= 23 && minute <= 59
        ),
        _ => false,
    }
}

fn is_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.get(10) {
        Some(b'T' | b't') => is_date(&bytes[..10]) && is_time(&bytes[11..]),
        _ => false,
    }
}

fn is_email(text: &str) -> bool {
    // The domain follows the last `@`: a quoted local part (RFC 5321) may hold
    // `@` and spaces, so the check only refuses what is plainly not an address.
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let quoted = local.len() >= 2 && local.starts_with('"') && local.ends_with('"');
    let local_fits = if quoted {
        !local.chars().any(char::is_control)
    } else {
        !local.is_empty() && !local.contains('@') && !has_space_or_control(local)
    };
    local_fits
        && !domain.is_empty()
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !has_space_or_control(domain)
}

fn has_space_or_control(text: &str) -> bool {
    text.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn is_uuid(bytes: &[u8]) -> bool {
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            8 | 13 | 18 | 23 => *byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::Format;

    #[rstest]
    #[case::utc("2024-02-29T13:45:00Z", true)]
    #[case::lower_case_separators("2024-02-29t13:45:00z", true)]
    #[case::fraction("2024-01-01T00:00:00.123456Z", true)]
    #[case::positive_offset("2024-01-01T00:00:00+05:30", true)]
    #[case::negative_offset("2024-01-01T23:59:59-08:00", true)]
    #[case::leap_second("2016-12-31T23:59:60Z", true)]
    #[case::no_leap_day("2023-02-29T00:00:00Z", false)]
    #[case::century_without_leap_day("1900-02-29T00:00:00Z", false)]
    #[case::leap_century("2000-02-29T00:00:00Z", true)]
    #[case::april_31("2024-04-31T00:00:00Z", false)]
    #[case::month_13("2024-13-01T00:00:00Z", false)]
    #[case::day_0("2024-01-00T00:00:00Z", false)]
    #[case::hour_24("2024-01-01T24:00:00Z", false)]
    #[case::minute_60("2024-01-01T00:60:00Z", false)]
    #[case::no_offset("2024-01-01T00:00:00", false)]
    #[case::empty_fraction("2024-01-01T00:00:00.Z", false)]
    #[case::offset_without_colon("2024-01-01T00:00:00+0530", false)]
    #[case::offset_hour_24("2024-01-01T00:00:00+24:00", false)]
    #[case::space_separator("2024-01-01 00:00:00Z", false)]
    #[case::date_only("2024-01-01", false)]
    #[case::trailing_garbage("2024-01-01T00:00:00Zx", false)]
    #[case::multi_byte_at_separator("2024-01-01é00:00:00Z", false)]
    fn date_time(#[case] text: &str, #[case] valid: bool) {
        assert_eq!(Format::DateTime.accepts(text), valid, "{text}");
    }

    #[rstest]
    #[case::plain("2024-12-31", true)]
    #[case::leap_day("2024-02-29", true)]
    #[case::no_leap_day("2025-02-29", false)]
    #[case::june_31("2024-06-31", false)]
    #[case::short_month("2024-1-01", false)]
    #[case::with_time("2024-01-01T00:00:00Z", false)]
    #[case::letters("abcd-ef-gh", false)]
    #[case::signed_digits("+024-01-01", false)]
    fn date(#[case] text: &str, #[case] valid: bool) {
        assert_eq!(Format::Date.accepts(text), valid, "{text}");
    }

    #[rstest]
    #[case::plain("ada@example.com", true)]
    #[case::plus_and_sub_domain("a.b+c@mail.example.org", true)]
    #[case::no_at("ada.example.com", false)]
    #[case::two_ats("a@b@example.com", false)]
    #[case::empty_local("@example.com", false)]
    #[case::empty_domain("ada@", false)]
    #[case::space("ada lovelace@example.com", false)]
    #[case::dot_ended_domain("ada@example.", false)]
    #[case::quoted_space(r#""ada lovelace"@example.com"#, true)]
    #[case::quoted_at(r#""ada@home"@example.com"#, true)]
    #[case::space_in_domain("ada@exa mple.com", false)]
    fn email(#[case] text: &str, #[case] valid: bool) {
        assert_eq!(Format::Email.accepts(text), valid, "{text}");
    }

    #[rstest]
    #[case::lower("123e4567-e89b-12d3-a456-426614174000", true)]
    #[case::upper("123E4567-E89B-12D3-A456-426614174000", true)]
    #[case::no_hyphens("123e4567e89b12d3a456426614174000", false)]
    #[case::not_hex("123e4567-e89b-12d3-a456-42661417400g", false)]
    #[case::hyphen_misplaced("123e456-7e89b-12d3-a456-426614174000", false)]
    #[case::too_long("123e4567-e89b-12d3-a456-4266141740000", false)]
    fn uuid(#[case] text: &str, #[case] valid: bool) {
        assert_eq!(Format::Uuid.accepts(text), valid, "{text}");
    }

    #[test]
    fn other_formats_are_not_checked() {
        assert_eq!(Format::from_name("ipv4"), None);
        assert_eq!(Format::from_name("uri"), None);
    }
}
