//! Splits CSV input into records: a fast path for the usual line without quotes, which is
//! split at its commas in one pass, and `csv_core` (the `csv` crate's own parser) for
//! any record with a quote or a lone carriage return.
//!
//! Records and fields are exactly those of `csv::Reader` with the settings podium uses (no
//! headers, flexible, default dialect): blank lines are skipped, and `\r`, `\n` and `\r\n`
//! end records. A record's line is the line of its first byte (`csv::Reader` reports the
//! line of a skipped terminator instead after blank lines and `\r\n`). A property test
//! checks both against `csv::Reader`'s records and byte positions.

use std::io::{self, Read};

/// Bytes read from the input at a time (and the buffer's starting size; it grows for
/// records longer than this).
const CHUNK: usize = 1 << 18;

/// One record: its fields, borrowed from the splitter's buffers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    data: &'a [u8],
    bounds: &'a [(usize, usize)],
    /// 1-based line, as `csv::Reader`'s record position reports it.
    pub line: u64,
}

impl<'a> Record<'a> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Field `i`, if the record has it.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        self.bounds.get(i).map(|&(s, e)| &self.data[s..e])
    }

    /// The record's text from its first field to its last, if it is valid UTF-8: one
    /// check for the whole record instead of one per field.
    pub fn text(&self) -> Option<Text<'a>> {
        let (first, last) = (self.bounds.first()?.0, self.bounds.last()?.1);
        let text = std::str::from_utf8(&self.data[first..last]).ok()?;
        Some(Text {
            text,
            base: first,
            bounds: self.bounds,
        })
    }

    /// Every field in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A record known to be valid UTF-8 as a whole.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text<'a> {
    text: &'a str,
    base: usize,
    bounds: &'a [(usize, usize)],
}

impl<'a> Text<'a> {
    /// Field `i` as text: `None` when the record has no such field or the field is not
    /// valid UTF-8 on its own (a field of a quoted record may end inside a character
    /// that the next field completes).
    pub fn get(&self, i: usize) -> Option<&'a str> {
        let &(s, e) = self.bounds.get(i)?;
        self.text.get(s - self.base..e - self.base)
    }
}

/// Splits a byte stream into CSV records.
pub(crate) struct Records<R: Read> {
    input: R,
    buf: Vec<u8>,
    /// Unread bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
    /// The line of `buf[pos]`: 1 + the `\n` bytes consumed so far.
    line: u64,
    core: csv_core::Reader,
    /// Output of `csv_core` for a record on the general path.
    out: Vec<u8>,
    ends: Vec<usize>,
    bounds: Vec<(usize, usize)>,
    /// Whether a record was read already.
    started: bool,
    /// Sends every record through `csv_core` (for tests).
    #[cfg(test)]
    pub force_general: bool,
}

impl<R: Read> Records<R> {
    pub fn new(input: R) -> Self {
        // csv_core drops a byte-order mark from the first input it is given; it is given a
        // blank line first so that it never does (the mark is handled here, see
        // `next_record`), whichever record is the first to need it.
        let mut core = csv_core::Reader::new();
        let _ = core.read_record(b"\n", &mut [0; 1], &mut [0; 1]);
        Records {
            input,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            eof: false,
            line: 1,
            core,
            out: vec![0; 1024],
            ends: vec![0; 64],
            bounds: Vec::new(),
            started: false,
            #[cfg(test)]
            force_general: false,
        }
    }

    /// Numbers the next line `line`: the input goes on from a later point of a file
    /// whose earlier lines another reader read.
    pub fn set_line(&mut self, line: u64) {
        self.line = line;
    }

    /// Moves the unread bytes to the front and reads more; false at the end of input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            let len = self.buf.len() * 2;
            self.buf.resize(len, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn consume(&mut self, n: usize) {
        let used = &self.buf[self.pos..self.pos + n];
        self.line += memchr::memchr_iter(b'\n', used).count() as u64;
        self.pos += n;
    }

    /// The next record, `None` at the end of the input.
    pub fn next_record(&mut self) -> io::Result<Option<Record<'_>>> {
        if !self.started {
            // A byte-order mark at the very start is dropped, as csv_core does when its
            // first input holds all three bytes.
            self.started = true;
            self.fill()?;
            if self.buf[..self.end].starts_with(b"\xef\xbb\xbf") {
                self.pos = 3;
            }
        }
        // Blank lines and the `\n` of a `\r\n` are skipped, as csv_core does.
        loop {
            let unread = &self.buf[self.pos..self.end];
            match unread.iter().position(|&b| b != b'\n' && b != b'\r') {
                Some(skip) => {
                    self.consume(skip);
                    break;
                }
                None => {
                    self.consume(unread.len());
                    if !self.fill()? {
                        return Ok(None);
                    }
                }
            }
        }
        // The line of the record's first byte.
        let line = self.line;
        #[cfg(test)]
        let forced = self.force_general;
        #[cfg(not(test))]
        let forced = false;
        // The fast path: a whole line in the buffer, without quotes or a lone `\r`, split
        // at its commas in one pass over its bytes (lines are short: a plain loop beats
        // vectorised searches that must start over at every comma).
        if !forced {
            'scan: loop {
                self.bounds.clear();
                let mut start = self.pos;
                let mut i = self.pos;
                while i < self.end {
                    match self.buf[i] {
                        b',' => {
                            self.bounds.push((start, i));
                            start = i + 1;
                        }
                        b'\n' => {
                            self.bounds.push((start, i));
                            self.line += 1;
                            self.pos = i + 1;
                            return Ok(Some(Record {
                                data: &self.buf,
                                bounds: &self.bounds,
                                line,
                            }));
                        }
                        b'\r' if i + 1 == self.end && !self.eof => {
                            // Whether a `\n` follows is in the next read.
                            self.fill()?;
                            continue 'scan;
                        }
                        b'\r' if i + 1 < self.end && self.buf[i + 1] == b'\n' => {
                            // A `\r\n` is consumed up to the `\r`: csv_core reads the `\n` with
                            // the next record, which is why that record reports the line before.
                            self.bounds.push((start, i));
                            self.pos = i + 1;
                            return Ok(Some(Record {
                                data: &self.buf,
                                bounds: &self.bounds,
                                line,
                            }));
                        }
                        b'"' | b'\r' => break 'scan,
                        _ => {}
                    }
                    i += 1;
                }
                // No end of line in the buffer: read on, or end the last record at the end
                // of the input.
                if !self.eof {
                    self.fill()?;
                    continue;
                }
                self.bounds.push((start, self.end));
                self.pos = self.end;
                return Ok(Some(Record {
                    data: &self.buf,
                    bounds: &self.bounds,
                    line,
                }));
            }
        }
        self.general_record(line)
    }

    /// A record through csv_core, fed from the buffer (refilled as needed).
    fn general_record(&mut self, line: u64) -> io::Result<Option<Record<'_>>> {
        use csv_core::ReadRecordResult::{End, InputEmpty, OutputEndsFull, OutputFull, Record};
        let (mut nout, mut nend) = (0, 0);
        loop {
            let (res, nin, o, e) = self.core.read_record(
                &self.buf[self.pos..self.end],
                &mut self.out[nout..],
                &mut self.ends[nend..],
            );
            self.consume(nin);
            nout += o;
            nend += e;
            match res {
                InputEmpty => {
                    // At the end of input csv_core is given an empty slice to finish on.
                    if self.pos == self.end {
                        self.fill()?;
                    }
                }
                OutputFull => {
                    let len = self.out.len() * 2;
                    self.out.resize(len, 0);
                }
                OutputEndsFull => {
                    let len = self.ends.len() * 2;
                    self.ends.resize(len, 0);
                }
                Record => break,
                End => return Ok(None),
            }
        }
        self.bounds.clear();
        let mut start = 0;
        for &end in &self.ends[..nend] {
            self.bounds.push((start, end));
            start = end;
        }
        Ok(Some(self::Record {
            data: &self.out,
            bounds: &self.bounds,
            line,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `(line, fields)` of every record, as `csv::Reader` reads them; the line is that of
    /// the record's first byte.
    fn by_csv(text: &[u8]) -> Vec<(u64, Vec<Vec<u8>>)> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text);
        let mut rec = csv::ByteRecord::new();
        let mut out = Vec::new();
        while r.read_byte_record(&mut rec).unwrap() {
            // The first record's position is taken before a leading byte-order mark.
            let bom = if text.starts_with(b"\xef\xbb\xbf") {
                3
            } else {
                0
            };
            let mut start = (rec.position().unwrap().byte() as usize).max(bom);
            while start < text.len() && matches!(text[start], b'\r' | b'\n') {
                start += 1;
            }
            let line = 1 + text[..start].iter().filter(|&&b| b == b'\n').count() as u64;
            out.push((line, rec.iter().map(<[u8]>::to_vec).collect()));
        }
        out
    }

    /// The same through [`Records`], read `chunk` bytes at a time.
    fn by_records(text: &[u8], chunk: usize, general: bool) -> Vec<(u64, Vec<Vec<u8>>)> {
        // The first read gives at least 3 bytes: csv_core strips a byte-order mark only
        // when the first bytes it is given hold all of it.
        struct Trickle<'a>(&'a [u8], usize, bool);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let want = if self.2 { self.1 } else { self.1.max(3) };
                self.2 = true;
                let n = want.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = Records::new(Trickle(text, chunk, false));
        r.force_general = general;
        let mut out = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            out.push((rec.line, rec.iter().map(<[u8]>::to_vec).collect()));
        }
        out
    }

    #[test]
    fn splits_like_the_csv_crate() {
        for text in [
            &b"match,player,rank\ng1,a,1\ng1,b,2\n"[..],
            b"a,b\r\nc,d\r\n\r\n\ne,f",
            b"\xef\xbb\xbfmatch,player\n\n\n g1 , a \n",
            b"a,\"b,c\"\nd,\"e\nf\",g\n\"h\"\"i\",j\r\nk\rl\n",
            b"",
            b"\n\n",
            b"x",
            b",,\n,\n",
        ] {
            assert_eq!(by_records(text, 1 << 20, false), by_csv(text), "{text:?}");
            assert_eq!(by_records(text, 3, false), by_csv(text), "{text:?}");
            assert_eq!(by_records(text, 1, true), by_csv(text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn fast_and_general_paths_agree_with_the_csv_crate(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "a", "bb", "g1", " ", "  x ", ",", ",", ",", "\n", "\n", "\r\n", "\r",
                    "\"", "\"q,\"", "\"\"", "1", "2.5", "\u{feff}", "é", "\t",
                ]),
                0..40,
            ),
            chunk in 1usize..40,
        ) {
            let text = parts.concat();
            let want = by_csv(text.as_bytes());
            prop_assert_eq!(&by_records(text.as_bytes(), chunk, false), &want);
            prop_assert_eq!(&by_records(text.as_bytes(), 1 << 20, false), &want);
            prop_assert_eq!(&by_records(text.as_bytes(), chunk, true), &want);
        }
    }
}
