//! Match times: RFC 3339 timestamps or plain `YYYY-MM-DD` dates (midnight UTC), from the
//! year −9999 to the year 9999, its last day included.
//!
//! A time is kept to the second, everywhere (the ledger, the saved league, every output):
//! a fraction of a second is read and dropped, so a time is the second its text names
//! (`…T10:00:00.9Z` is `…T10:00:00Z`, and `1969-12-31T23:59:59.5Z` is
//! `1969-12-31T23:59:59Z`, not the second after). Matches within one second have equal
//! times and are rated in the order they are read.

use jiff::civil::{Date, Time};
use jiff::fmt::temporal::{Pieces, PiecesOffset};
use jiff::Timestamp;

/// Parses a match time into seconds since the Unix epoch (UTC): the second the text
/// names, a fraction of a second dropped (times are kept to the second, so matches within
/// one second are rated in the order they are read).
///
/// ```
/// assert_eq!(podium_io::parse_time("1970-01-02"), Some(86_400));
/// assert_eq!(podium_io::parse_time("1970-01-01T00:01:00Z"), Some(60));
/// assert_eq!(podium_io::parse_time("1970-01-01T00:01:00.999Z"), Some(60));
/// assert_eq!(podium_io::parse_time("1969-12-31T23:59:59.5Z"), Some(-1));
/// assert_eq!(podium_io::parse_time("1970-01-01T01:00:00+01:00"), Some(0));
/// assert_eq!(podium_io::parse_time("9999-12-31"), Some(253_402_214_400));
/// assert_eq!(podium_io::parse_time("yesterday"), None);
/// ```
#[must_use]
pub fn parse_time(s: &str) -> Option<i64> {
    // An offset may take a time at the very ends past them: from −009999-01-01T00:00:00Z
    // to 9999-12-31T23:59:59Z, as every time read is written back.
    seconds_named(s).filter(|t| (FIRST_SECOND..=LAST_SECOND).contains(t))
}

/// The instant a time's text names, in seconds since the Unix epoch, whether or not it
/// lies within the times [`parse_time`] takes: to tell a time out of range from text that
/// is no time at all. As in [`parse_time`], a fraction of a second is dropped: the
/// result is the second the text names, also before 1970 (rounded down, not towards
/// the epoch).
///
/// ```
/// let past = "9999-12-31T23:59:59-01:00";
/// assert_eq!(podium_io::parse_time(past), None);
/// assert_eq!(podium_io::seconds_named(past), Some(podium_io::LAST_SECOND + 3_600));
/// ```
#[must_use]
pub fn seconds_named(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.len() == 10 {
        let date: Date = s.parse().ok()?;
        return Some(days_since_epoch(date)? * 86_400);
    }
    match s.parse::<Timestamp>() {
        // `as_second` rounds towards the epoch: before it, a fraction would make the
        // time the second after the one named (`1969-12-31T23:59:59.5Z`, 1970-01-01).
        Ok(t) => Some(t.as_second() - i64::from(t.subsec_nanosecond() < 0)),
        Err(_) => beyond_timestamps(s),
    }
}

/// A time that `jiff::Timestamp` does not hold: it stops about a day short of the ends of
/// the years −9999 and 9999 (so that each of its instants is a civil time at every
/// offset), where civil dates go on to 9999-12-31. Such a time is worked out from its
/// date, time of day and offset; any other text `Timestamp` refused stays refused.
fn beyond_timestamps(s: &str) -> Option<i64> {
    let pieces = Pieces::parse(s).ok()?;
    if pieces.time_zone_annotation().is_some() {
        return None;
    }
    let offset = match pieces.offset()? {
        PiecesOffset::Zulu => 0,
        PiecesOffset::Numeric(n) => i64::from(n.offset().seconds()),
        _ => return None,
    };
    let time = pieces.time()?;
    let seconds = days_since_epoch(pieces.date())? * 86_400 + seconds_of_day(time) - offset;
    let within = Timestamp::MIN.as_second()..=Timestamp::MAX.as_second();
    (!within.contains(&seconds)).then_some(seconds)
}

/// −009999-01-01T00:00:00Z, the first second a match time may be.
pub const FIRST_SECOND: i64 = -377_705_116_800;

/// 9999-12-31T23:59:59Z, the last second a match time may be.
pub const LAST_SECOND: i64 = 253_402_300_799;

/// Whole days from 1970-01-01 to `date`.
fn days_since_epoch(date: Date) -> Option<i64> {
    let days = Date::constant(1970, 1, 1).until(date).ok()?.get_days();
    Some(i64::from(days))
}

fn seconds_of_day(t: Time) -> i64 {
    i64::from(t.hour()) * 3_600 + i64::from(t.minute()) * 60 + i64::from(t.second())
}

/// Formats seconds since the epoch as a date (`YYYY-MM-DD`) when at midnight UTC, else RFC
/// 3339 (`2024-05-01T18:30:00Z`); every time [`parse_time`] reads is written.
#[must_use]
pub fn format_time(t: i64) -> String {
    let (days, rest) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    match Timestamp::from_second(t) {
        Ok(ts) if rest == 0 => ts.to_zoned(jiff::tz::TimeZone::UTC).date().to_string(),
        Ok(ts) => ts.to_string(),
        Err(_) => {
            let date = i32::try_from(days).ok().and_then(|d| {
                Date::constant(1970, 1, 1)
                    .checked_add(jiff::Span::new().try_days(d).ok()?)
                    .ok()
            });
            match date {
                Some(date) if rest == 0 => date.to_string(),
                Some(date) => format!(
                    "{date}T{:02}:{:02}:{:02}Z",
                    rest / 3_600,
                    rest / 60 % 60,
                    rest % 60
                ),
                None => t.to_string(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_day_of_9999_is_a_valid_date() {
        let last = parse_time("9999-12-31").expect("9999-12-31 is read");
        assert_eq!(last, 253_402_214_400);
        assert_eq!(format_time(last), "9999-12-31");
        let end = parse_time("9999-12-31T23:59:59Z").expect("its last second is read");
        assert_eq!(end, 253_402_300_799);
        assert_eq!(format_time(end), "9999-12-31T23:59:59Z");
        assert_eq!(parse_time("9999-12-31T23:59:59+01:00"), Some(end - 3_600));
        assert_eq!(parse_time("9999-12-30"), Some(last - 86_400));
        assert_eq!(parse_time("-9999-01-01"), None, "not ten characters");
        assert_eq!(parse_time("10000-01-01"), None);
        assert_eq!(parse_time("9999-12-32"), None);
        assert_eq!(parse_time("9999-12-31T24:00:00Z"), None);
        // An offset that takes a time past either end is refused, not written as digits.
        assert_eq!(parse_time("9999-12-31T23:59:59-25:59"), None);
        assert_eq!(parse_time("9999-12-31T23:59:59-00:01"), None);
        assert_eq!(parse_time("-009999-01-01T00:00:00+25:59"), None);
        assert_eq!(parse_time("-009999-01-01T00:00:00Z"), Some(FIRST_SECOND));
        assert_eq!(format_time(FIRST_SECOND), "-009999-01-01");
        assert_eq!(
            parse_time("9999-12-31T23:59:59"),
            None,
            "a time needs its offset"
        );
    }

    #[test]
    fn regression_a_fraction_of_a_second_is_dropped_before_1970_too() {
        // Before 1970 a fraction made the time the second after the one named:
        // `1969-12-31T23:59:59.5Z` was read as 1970-01-01.
        for (text, second) in [
            ("2024-05-01T10:00:00.1Z", "2024-05-01T10:00:00Z"),
            ("2024-05-01T10:00:00.999999999Z", "2024-05-01T10:00:00Z"),
            ("2024-05-01T12:00:00.9+02:00", "2024-05-01T10:00:00Z"),
            ("1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59Z"),
            ("1969-12-31T23:59:58.000000001Z", "1969-12-31T23:59:58Z"),
            ("1900-01-01T00:00:00.5Z", "1900-01-01"),
            ("1970-01-01T00:00:00.5Z", "1970-01-01"),
            ("-000001-06-01T00:00:00.75Z", "-000001-06-01"),
            // Beyond the instants `Timestamp` holds, as within them.
            ("9999-12-31T23:59:59.9Z", "9999-12-31T23:59:59Z"),
            ("-009999-01-01T00:00:00.9Z", "-009999-01-01"),
        ] {
            let t = parse_time(text).unwrap_or_else(|| panic!("{text} is read"));
            assert_eq!(format_time(t), second, "{text}");
            assert_eq!(seconds_named(text), Some(t), "{text}");
        }
        // Two times of one second are equal; the second after is not.
        assert_eq!(
            parse_time("1969-12-31T23:59:59.1Z"),
            parse_time("1969-12-31T23:59:59.9Z")
        );
        assert_eq!(parse_time("1969-12-31T23:59:59.9Z"), Some(-1));
        assert_eq!(
            seconds_named("9999-12-31T23:59:59.9-01:00"),
            Some(LAST_SECOND + 3_600)
        );
    }

    #[test]
    fn times_within_the_timestamps_round_trip() {
        for text in [
            "1970-01-01",
            "2024-05-01",
            "2024-05-01T18:30:00Z",
            "1969-12-31T23:59:59Z",
            "0001-01-01",
        ] {
            let t = parse_time(text).unwrap();
            assert_eq!(format_time(t), text);
        }
    }
}
