//! Lines of a growing byte stream, without allocating per line.

use std::io::{self, Read};

use super::MAX_LINE;
use crate::error::{ReadError, Wide};

/// The UTF-8 byte-order mark: before the first line, it is not part of it.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// What a [`LineReader`] whose input is in UTF-16 or UTF-32 rather than UTF-8 text
/// fails with (as its first line shows: a byte-order mark of either, or NUL bytes between
/// the characters), held in an [`io::Error`] of kind [`io::ErrorKind::InvalidData`]. It
/// says what the text is and the `iconv` command that converts it, as every reader of
/// podium does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8(Wide);

impl NotUtf8 {
    /// The [`NotUtf8`] that `error`, an error of a [`LineReader`], holds, if any.
    #[must_use]
    pub fn of(error: &io::Error) -> Option<&NotUtf8> {
        error.get_ref().and_then(|e| e.downcast_ref())
    }

    /// The error naming the input, `file`, and its first line:
    /// `games.log:1: the file is not UTF-8 text: …`.
    #[must_use]
    pub fn in_file(&self, file: &str) -> ReadError {
        self.0.error(file, 1)
    }

    fn error(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message())
    }
}

impl std::error::Error for NotUtf8 {}

/// The first bytes of a line longer than [`MAX_LINE`] that [`Line::Overlong`] hands out.
pub const OVERLONG_HEAD: usize = 320;

/// Splits a byte stream into lines without allocating per line. Lines longer than
/// [`MAX_LINE`] are skipped whole: their first [`OVERLONG_HEAD`] bytes and their length
/// are handed out once their newline arrives. After the end of the input it can be
/// asked again (a file that grows): a last line without newline stays buffered until its
/// newline arrives, or until [`take_partial`](LineReader::take_partial).
///
/// The input is UTF-8 text: a byte-order mark before its first line is not part of the
/// line, and an input in UTF-16 or UTF-32 is refused at its first line ([`NotUtf8`]).
/// After [`reset`](LineReader::reset) the input starts again, and so does its first line.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    skipping: bool,
    /// The first bytes of the line being skipped.
    head: Vec<u8>,
    /// Bytes of the line being skipped so far.
    skipped: u64,
    consumed: u64,
    /// No line handed out yet: the next is the input's first.
    at_start: bool,
    /// The input is not UTF-8 text: every call says so.
    refused: Option<NotUtf8>,
}

/// What [`LineReader::next_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A complete line, without its newline.
    Full(&'a [u8]),
    /// A line longer than [`MAX_LINE`] was skipped whole.
    Overlong {
        /// Its first [`OVERLONG_HEAD`] bytes.
        head: &'a [u8],
        /// Its length in bytes, without its newline.
        len: u64,
    },
    /// No complete line is available (the input ended, perhaps for now).
    End,
}

impl<R: Read> LineReader<R> {
    /// Reads from `inner` (unbuffered is fine: this reader buffers).
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: vec![0; MAX_LINE],
            start: 0,
            end: 0,
            skipping: false,
            head: Vec::new(),
            skipped: 0,
            consumed: 0,
            at_start: true,
            refused: None,
        }
    }

    /// Checks the input's first line, `line`, or its first bytes when it is too long, if
    /// it is the first (later lines are taken as they are): refused when it shows UTF-16 or
    /// UTF-32 text, else the length of the byte-order mark it starts with (0 or 3).
    fn first_line(&mut self, line: impl FnOnce(&Self) -> &[u8]) -> io::Result<usize> {
        if !std::mem::take(&mut self.at_start) {
            return Ok(0);
        }
        let line = line(self);
        if let Some(wide) = Wide::of(line, true) {
            self.refused = Some(NotUtf8(wide));
            return Err(NotUtf8(wide).error());
        }
        Ok(if line.starts_with(BOM) { BOM.len() } else { 0 })
    }

    /// The next line.
    ///
    /// # Errors
    /// Read errors of the input (interruptions are retried); [`NotUtf8`] for an input in
    /// UTF-16 or UTF-32, at its first line and at every call after.
    pub fn next_line(&mut self) -> io::Result<Line<'_>> {
        if let Some(refused) = self.refused {
            return Err(refused.error());
        }
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let (a, b) = (self.start, self.start + pos);
                self.start = b + 1;
                self.consumed += (pos + 1) as u64;
                if self.skipping {
                    self.skipping = false;
                    let mark = self.first_line(|r| &r.head)?;
                    return Ok(Line::Overlong {
                        head: &self.head[mark..],
                        len: self.skipped + pos as u64 - mark as u64,
                    });
                }
                let mark = self.first_line(|r| &r.buf[a..b])?;
                return Ok(Line::Full(&self.buf[a + mark..b]));
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                // A full buffer without a newline: keep its first bytes, drop it and the
                // rest of the line.
                if !self.skipping {
                    self.skipping = true;
                    self.skipped = 0;
                    self.head.clear();
                    self.head.extend_from_slice(&self.buf[..OVERLONG_HEAD]);
                }
                self.consumed += self.end as u64;
                self.skipped += self.end as u64;
                self.end = 0;
            }
            let n = match self.inner.read(&mut self.buf[self.end..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                return Ok(Line::End);
            }
            self.end += n;
        }
    }

    /// The buffered last line without newline, if any (at the real end of the input):
    /// [`Line::Full`], [`Line::Overlong`] when it is too long, or [`Line::End`].
    ///
    /// # Errors
    /// [`NotUtf8`], as [`next_line`](LineReader::next_line): that line may be the first.
    pub fn take_partial(&mut self) -> io::Result<Line<'_>> {
        if let Some(refused) = self.refused {
            return Err(refused.error());
        }
        let skipping = std::mem::take(&mut self.skipping);
        let rest = self.end - self.start;
        self.consumed += rest as u64;
        let r = self.start..self.end;
        self.start = self.end;
        if skipping {
            let mark = self.first_line(|r| &r.head)?;
            Ok(Line::Overlong {
                head: &self.head[mark..],
                len: self.skipped + rest as u64 - mark as u64,
            })
        } else if rest > 0 {
            let mark = self.first_line(|r2| &r2.buf[r.clone()])?;
            Ok(Line::Full(&self.buf[r.start + mark..r.end]))
        } else {
            Ok(Line::End)
        }
    }

    /// Bytes handed out as lines or skipped so far (newlines included).
    #[must_use]
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Drops anything buffered (the file was truncated or replaced) and restarts the
    /// byte count: the input starts again, with its first line.
    pub fn reset(&mut self) {
        self.consumed = 0;
        self.start = 0;
        self.end = 0;
        self.skipping = false;
        self.at_start = true;
        self.refused = None;
    }

    /// The input.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its bytes in pieces of at most `step`, as a file being written does.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn an_overlong_line_is_handed_out_with_its_head_and_length_when_it_ends() {
        let mut data = b"short\n".to_vec();
        data.extend(std::iter::repeat(b'x').take(MAX_LINE + 100));
        data.extend(b"\nnext\n");
        data.extend(std::iter::repeat(b'y').take(2 * MAX_LINE));
        for step in [7, 5000, MAX_LINE] {
            let mut lines = LineReader::new(Trickle { data: &data, step });
            assert_eq!(lines.next_line().unwrap(), Line::Full(b"short"));
            assert_eq!(
                lines.next_line().unwrap(),
                Line::Overlong {
                    head: &[b'x'; OVERLONG_HEAD],
                    len: (MAX_LINE + 100) as u64
                }
            );
            assert_eq!(lines.next_line().unwrap(), Line::Full(b"next"));
            // The last line, too long and without a newline: only the end of the input
            // hands it out.
            assert_eq!(lines.next_line().unwrap(), Line::End);
            assert_eq!(
                lines.take_partial().unwrap(),
                Line::Overlong {
                    head: &[b'y'; OVERLONG_HEAD],
                    len: (2 * MAX_LINE) as u64
                }
            );
            assert_eq!(lines.take_partial().unwrap(), Line::End);
            assert_eq!(lines.consumed(), data.len() as u64);
        }
    }

    /// The lines of `data` read in pieces of `step` bytes, the last without newline too.
    fn all_lines(data: &[u8], step: usize) -> io::Result<Vec<Vec<u8>>> {
        let mut lines = LineReader::new(Trickle { data, step });
        let mut out = Vec::new();
        loop {
            match lines.next_line()? {
                Line::Full(line) => out.push(line.to_vec()),
                Line::Overlong { head, len } => out.push(format!("{len}:{}", head.len()).into()),
                Line::End => break,
            }
        }
        match lines.take_partial()? {
            Line::Full(line) => out.push(line.to_vec()),
            Line::Overlong { head, len } => out.push(format!("{len}:{}", head.len()).into()),
            Line::End => {}
        }
        assert_eq!(lines.consumed(), data.len() as u64);
        Ok(out)
    }

    #[test]
    fn regression_a_byte_order_mark_before_the_first_line_is_not_part_of_it() {
        // The mark made the first line of a log (its `InitGame`) unrecognised.
        let text = b"\xef\xbb\xbf  0:00 InitGame: \\g_gametype\\0\nnext\xef\xbb\xbf\n";
        for step in [1, 2, 3, 5000] {
            assert_eq!(
                all_lines(text, step).unwrap(),
                vec![
                    b"  0:00 InitGame: \\g_gametype\\0".to_vec(),
                    // Only before the first line is the mark dropped.
                    b"next\xef\xbb\xbf".to_vec(),
                ]
            );
        }
        // A first line that is the last, without newline; one too long.
        assert_eq!(
            all_lines(b"\xef\xbb\xbfonly", 7).unwrap(),
            vec![b"only".to_vec()]
        );
        let mut long = BOM.to_vec();
        long.extend(std::iter::repeat(b'x').take(MAX_LINE + 10));
        long.push(b'\n');
        assert_eq!(
            all_lines(&long, 5000).unwrap(),
            vec![format!("{}:{}", MAX_LINE + 10, OVERLONG_HEAD - 3).into_bytes()]
        );
        // A mark of its own is an empty first line.
        assert_eq!(
            all_lines(b"\xef\xbb\xbf", 1).unwrap(),
            vec![Vec::<u8>::new()]
        );
    }

    /// `text` in UTF-16, little-endian, with its byte-order mark when `mark`.
    fn utf16(text: &str, mark: bool) -> Vec<u8> {
        let mut out = if mark { vec![0xff, 0xfe] } else { Vec::new() };
        out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        out
    }

    #[test]
    fn regression_a_log_in_utf16_is_refused_at_its_first_line() {
        // Every line of it was skipped as unrecognised, and the log read as empty.
        let log = "  0:00 InitGame: \\g_gametype\\0\n  0:04 ShutdownGame:\n";
        let said = |data: &[u8]| {
            let e = all_lines(data, 5000).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
            let refused = NotUtf8::of(&e).expect("a NotUtf8");
            assert_eq!(refused.to_string(), e.to_string());
            refused.in_file("games.log").to_string()
        };
        assert_eq!(
            said(&utf16(log, true)),
            "games.log:1: the file is not UTF-8 text: it starts with a UTF-16 (little-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)"
        );
        assert_eq!(
            said(&utf16(log, false)),
            "games.log:1: the file is not UTF-8 text: its first line has NUL bytes between its characters, so it is probably UTF-16 (little-endian); expected UTF-8 text (convert it with `iconv -f UTF-16LE -t UTF-8`)"
        );
        // Without newline (the last line is the first); too long.
        assert!(said(&utf16("  0:00 InitGame:", true))
            .contains("UTF-16 (little-endian) byte-order mark"));
        let long = utf16(&"x".repeat(MAX_LINE), true);
        assert!(said(&long).contains("UTF-16 (little-endian) byte-order mark"));
        let mut long_line = long;
        long_line.extend(utf16("\nnext\n", false));
        assert!(said(&long_line).contains("UTF-16 (little-endian) byte-order mark"));
        // Once refused, always: nothing of the input is handed out.
        let data = utf16(log, true);
        let mut lines = LineReader::new(&data[..]);
        assert!(lines.next_line().is_err());
        assert!(lines.next_line().is_err());
        assert!(lines.take_partial().is_err());
        // NUL bytes in a later line are that line's (the parser skips it).
        assert_eq!(
            all_lines(b"first\n\0\0\n", 5000).unwrap(),
            vec![b"first".to_vec(), b"\0\0".to_vec()]
        );
    }

    #[test]
    fn after_a_reset_the_input_starts_again_with_its_first_line() {
        // A log truncated and written anew, as `podium frags --follow` reads it.
        let mut file = io::Cursor::new(b"\xef\xbb\xbfone\ntwo\n".to_vec());
        let mut lines = LineReader::new(&mut file);
        assert_eq!(lines.next_line().unwrap(), Line::Full(b"one"));
        assert_eq!(lines.next_line().unwrap(), Line::Full(b"two"));
        assert_eq!(lines.next_line().unwrap(), Line::End);
        *lines.get_mut().get_mut() = b"\xef\xbb\xbfthree\n".to_vec();
        lines.get_mut().set_position(0);
        lines.reset();
        assert_eq!(lines.next_line().unwrap(), Line::Full(b"three"));
        let wide = utf16("four\n", true);
        *lines.get_mut().get_mut() = wide;
        lines.get_mut().set_position(0);
        lines.reset();
        assert!(NotUtf8::of(&lines.next_line().unwrap_err()).is_some());
        // A truncated file in UTF-8 again is read.
        *lines.get_mut().get_mut() = b"five\n".to_vec();
        lines.get_mut().set_position(0);
        lines.reset();
        assert_eq!(lines.next_line().unwrap(), Line::Full(b"five"));
    }
}
