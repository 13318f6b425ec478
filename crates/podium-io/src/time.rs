//! Match times: RFC 3339 timestamps or plain `YYYY-MM-DD` dates (midnight UTC).

/// Parses a match time into seconds since the Unix epoch (UTC).
///
/// ```
/// assert_eq!(podium_io::parse_time("1970-01-02"), Some(86_400));
/// assert_eq!(podium_io::parse_time("1970-01-01T00:01:00Z"), Some(60));
/// assert_eq!(podium_io::parse_time("1970-01-01T01:00:00+01:00"), Some(0));
/// assert_eq!(podium_io::parse_time("yesterday"), None);
/// ```
#[must_use]
pub fn parse_time(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.len() == 10 {
        let date: jiff::civil::Date = s.parse().ok()?;
        return date
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().as_second());
    }
    s.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

/// Formats seconds since the epoch as a date (`YYYY-MM-DD`) when at midnight UTC, else RFC 3339.
#[must_use]
pub fn format_time(t: i64) -> String {
    match jiff::Timestamp::from_second(t) {
        Ok(ts) if t % 86_400 == 0 => ts.to_zoned(jiff::tz::TimeZone::UTC).date().to_string(),
        Ok(ts) => ts.to_string(),
        Err(_) => t.to_string(),
    }
}
