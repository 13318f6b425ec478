//! Scanning the fields of a log line, byte by byte: numbers, white space, timestamps.

/// Parses leading ASCII digits; returns the value and the rest.
#[inline]
pub(crate) fn int(s: &[u8]) -> Option<(u32, &[u8])> {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 || n > 9 {
        return None;
    }
    let v = s[..n]
        .iter()
        .fold(0u32, |a, &b| a * 10 + u32::from(b - b'0'));
    Some((v, &s[n..]))
}

#[inline]
pub(crate) fn signed(s: &[u8]) -> Option<(i32, &[u8])> {
    match s.first() {
        Some(b'-') => int(&s[1..]).map(|(v, r)| (-(v as i32), r)),
        _ => int(s).map(|(v, r)| (v as i32, r)),
    }
}

#[inline]
pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

#[inline]
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let s = trim_start(s);
    let n = s
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    &s[..s.len() - n]
}

#[inline]
pub(crate) fn strip<'a>(s: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    s.strip_prefix(prefix)
}

/// A timestamp `M…M:SS` (ioq3) or `S…S.s` (OSP), in tenths of a second, and the rest.
#[inline]
pub(crate) fn timestamp(s: &[u8]) -> Option<(u32, &[u8])> {
    let (a, rest) = int(s)?;
    match rest.first() {
        Some(b':') => {
            let (sec, rest) = int(&rest[1..])?;
            Some((
                a.saturating_mul(600).saturating_add(sec.saturating_mul(10)),
                rest,
            ))
        }
        Some(b'.') => {
            let digits = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            let tenth = rest
                .get(1)
                .filter(|b| b.is_ascii_digit())
                .map_or(0, |b| b - b'0');
            Some((
                a.saturating_mul(10).saturating_add(u32::from(tenth)),
                &rest[1 + digits..],
            ))
        }
        _ => Some((a.saturating_mul(10), rest)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(b"20:37 X"), Some((20 * 600 + 370, &b" X"[..])));
        assert_eq!(timestamp(b"981:21 X").unwrap().0, 981 * 600 + 210);
        assert_eq!(timestamp(b"961.3 X").unwrap().0, 9613);
        assert_eq!(timestamp(b"0.0 X").unwrap().0, 0);
    }

    /// Found by the fuzz target: `6:999999999 Item:` overflowed the seconds.
    #[test]
    fn regression_timestamp_with_huge_seconds_saturates() {
        assert_eq!(timestamp(b"6:999999999 X").unwrap().0, u32::MAX);
        assert_eq!(timestamp(b"999999999:999999999 X").unwrap().0, u32::MAX);
    }
}
