//! Lines of a growing byte stream, without allocating per line.

use std::io::{self, Read};

use super::MAX_LINE;

/// Splits a byte stream into lines without allocating per line. Lines longer than
/// [`MAX_LINE`] are skipped whole and counted. After the end of the input it can be
/// asked again (a file that grows): a last line without newline stays buffered until its
/// newline arrives, or until [`take_partial`](LineReader::take_partial).
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    skipping: bool,
    consumed: u64,
}

/// What [`LineReader::next_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A complete line, without its newline.
    Full(&'a [u8]),
    /// A line longer than [`MAX_LINE`] was skipped.
    Overlong,
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
                    continue;
                }
                return Ok(Line::Full(&self.buf[a..b]));
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                // A full buffer without a newline: drop it and the rest of the line.
                self.consumed += self.end as u64;
                self.end = 0;
                if !self.skipping {
                    self.skipping = true;
                    return Ok(Line::Overlong);
                }
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

    /// The buffered last line without newline, if any (at the real end of the input).
    pub fn take_partial(&mut self) -> Option<&[u8]> {
        let skipping = std::mem::take(&mut self.skipping);
        self.consumed += (self.end - self.start) as u64;
        if self.end > self.start && !skipping {
            let r = self.start..self.end;
            self.start = self.end;
            Some(&self.buf[r])
        } else {
            self.start = self.end;
            None
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
