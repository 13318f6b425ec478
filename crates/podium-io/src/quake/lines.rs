//! Lines of a growing byte stream, without allocating per line.

use std::io::{self, Read};

use super::MAX_LINE;

/// The first bytes of a line longer than [`MAX_LINE`] that [`Line::Overlong`] hands out.
pub const OVERLONG_HEAD: usize = 320;

/// Splits a byte stream into lines without allocating per line. Lines longer than
/// [`MAX_LINE`] are skipped whole: their first [`OVERLONG_HEAD`] bytes and their length
/// are handed out once their newline arrives. After the end of the input it can be
/// asked again (a file that grows): a last line without newline stays buffered until its
/// newline arrives, or until [`take_partial`](LineReader::take_partial).
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
        }
    }

    /// The next line.
    ///
    /// # Errors
    /// Read errors of the input (interruptions are retried).
    pub fn next_line(&mut self) -> io::Result<Line<'_>> {
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let (a, b) = (self.start, self.start + pos);
                self.start = b + 1;
                self.consumed += (pos + 1) as u64;
                if self.skipping {
                    self.skipping = false;
                    return Ok(Line::Overlong {
                        head: &self.head,
                        len: self.skipped + pos as u64,
                    });
                }
                return Ok(Line::Full(&self.buf[a..b]));
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
    pub fn take_partial(&mut self) -> Line<'_> {
        let skipping = std::mem::take(&mut self.skipping);
        let rest = self.end - self.start;
        self.consumed += rest as u64;
        let r = self.start..self.end;
        self.start = self.end;
        if skipping {
            Line::Overlong {
                head: &self.head,
                len: self.skipped + rest as u64,
            }
        } else if rest > 0 {
            Line::Full(&self.buf[r])
        } else {
            Line::End
        }
    }

    /// Bytes handed out as lines or skipped so far (newlines included).
    #[must_use]
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Drops anything buffered (the file was truncated or replaced) and restarts the
    /// byte count.
    pub fn reset(&mut self) {
        self.consumed = 0;
        self.start = 0;
        self.end = 0;
        self.skipping = false;
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
                lines.take_partial(),
                Line::Overlong {
                    head: &[b'y'; OVERLONG_HEAD],
                    len: (2 * MAX_LINE) as u64
                }
            );
            assert_eq!(lines.take_partial(), Line::End);
            assert_eq!(lines.consumed(), data.len() as u64);
        }
    }
}
