//! Splits CSV input into records: a fast path for the usual line without quotes, which is
//! split at its commas in one pass, and `csv_core` (the `csv` crate's own parser) for
//! any record with a quote or a lone carriage return.
//!
//! Records and fields are exactly those of `csv::Reader` with the settings podium uses (no
//! headers, flexible, default dialect): blank lines are skipped, and `\r`, `\n` and `\r\n`
//! end records. A record's line is the line of its first byte (`csv::Reader` reports the
//! line of a skipped terminator instead after blank lines and `\r\n`). A property test
//! checks both against `csv::Reader`'s records and byte positions.
//!
//! Two inputs `csv::Reader` reads are refused, with their line: a record longer than
//! [`crate::MAX_LINE`] bytes (the reader would hold it whole, however long), and a quoted
//! field whose closing quote never comes (`csv::Reader` makes the rest of the input that
//! field).

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

/// Why [`Records`] stopped: the input failed, or is not CSV podium reads.
#[derive(Debug)]
pub(crate) enum RecordError {
    /// Reading the input failed.
    Io(io::Error),
    /// A record longer than [`Records::limit`] bytes, starting on `line`; `quote_line` is
    /// the line of a quote still open at the limit.
    TooLong { line: u64, quote_line: Option<u64> },
    /// A quoted field whose closing quote never came before the end of the input: the
    /// quote is on `line`, in field `field` (0-based) of the record.
    Unterminated { line: u64, field: usize },
}

impl From<io::Error> for RecordError {
    fn from(e: io::Error) -> Self {
        RecordError::Io(e)
    }
}

impl RecordError {
    /// The reader's error for what stopped the splitter in `file`, whose columns are
    /// `names` (empty before the header: a field is then named by its column number).
    pub(crate) fn read_error(self, file: &str, names: &[String]) -> crate::error::ReadError {
        use crate::error::ReadError;
        let file = file.to_string();
        match self {
            RecordError::Io(source) => ReadError::Io { file, source },
            RecordError::TooLong { line, quote_line } => ReadError::LineTooLong {
                file,
                line,
                limit: crate::MAX_LINE,
                format: "CSV",
                quote_line,
            },
            RecordError::Unterminated { line, field } => ReadError::UnterminatedQuote {
                file,
                line,
                field: match names.get(field) {
                    Some(name) if !name.is_empty() => name.clone(),
                    _ => format!("column {}", field + 1),
                },
            },
        }
    }
}

/// A header record's column names: each field as text, trimmed, without the byte-order
/// mark a file may start with.
pub(crate) fn header_names(header: &Record<'_>) -> Vec<String> {
    header
        .iter()
        .map(|h| {
            String::from_utf8_lossy(h)
                .trim()
                .trim_start_matches('\u{feff}')
                .to_string()
        })
        .collect()
}

/// A row with more fields than its header's `fields`: a comma in a field that is not
/// quoted shifts every field after it, and the row would be read as something else. The
/// first extra field's name (`column N`), its value (cut to 60 characters) and what was
/// expected, as a bad field is reported; `None` for a row that fits.
pub(crate) fn extra_fields(record: &Record<'_>, fields: usize) -> Option<(String, String, String)> {
    if record.len() <= fields {
        return None;
    }
    let value: String = String::from_utf8_lossy(record.get(fields).unwrap_or_default())
        .trim()
        .chars()
        .take(60)
        .collect();
    Some((
        format!("column {}", fields + 1),
        value,
        format!(
            "a row of {fields} fields as the header has, found {} (a field that holds a comma is quoted: \"Smith, Jr\")",
            record.len()
        ),
    ))
}

/// Where a record read by `csv_core` is, byte by byte, by the rules of its default
/// dialect: a quote opens a quoted field only as the field's first byte; in a quoted
/// field a doubled quote is a quote and a single one closes it, after which the field
/// goes on unquoted. `csv_core` keeps this to itself; it is followed here to say where a
/// quote that never closes was opened.
#[derive(Debug, Clone, Copy)]
struct Quotes {
    state: QuoteState,
    /// The record's field being read (0-based).
    field: usize,
    /// The line of the byte being read, and that of the quote opening the field being
    /// read, if it is quoted.
    line: u64,
    opened: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuoteState {
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: a second one makes it a quote, anything else
    /// closes the field's quotes.
    QuoteInQuoted,
    /// The record's terminator was read.
    Ended,
}

impl Quotes {
    fn new(line: u64) -> Self {
        Quotes {
            state: QuoteState::FieldStart,
            field: 0,
            line,
            opened: line,
        }
    }

    /// Follows the record over `bytes`, the next ones `csv_core` consumed.
    fn read(&mut self, bytes: &[u8]) {
        use QuoteState::{Ended, FieldStart, QuoteInQuoted, Quoted, Unquoted};
        for &b in bytes {
            self.state = match (self.state, b) {
                (Ended, _) => Ended,
                (FieldStart, b'"') => {
                    self.opened = self.line;
                    Quoted
                }
                (Quoted, b'"') => QuoteInQuoted,
                (Quoted, _) => Quoted,
                (QuoteInQuoted, b'"') => Quoted,
                (FieldStart | Unquoted | QuoteInQuoted, b',') => {
                    self.field += 1;
                    FieldStart
                }
                (FieldStart | Unquoted | QuoteInQuoted, b'\r' | b'\n') => Ended,
                (FieldStart | Unquoted | QuoteInQuoted, _) => Unquoted,
            };
            if b == b'\n' {
                self.line += 1;
            }
        }
    }

    /// The line of the quote still open, if the record is inside a quoted field.
    fn open_quote(&self) -> Option<u64> {
        (self.state == QuoteState::Quoted).then_some(self.opened)
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
    /// The longest record read, in bytes ([`crate::MAX_LINE`]).
    pub limit: usize,
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
            limit: crate::MAX_LINE,
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
    ///
    /// # Errors
    /// The input fails, a record is longer than [`Records::limit`], or a quoted field
    /// is never closed.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, RecordError> {
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
                            if i - self.pos > self.limit {
                                return Err(self.too_long(line, None));
                            }
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
                            if i - self.pos > self.limit {
                                return Err(self.too_long(line, None));
                            }
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
                if self.end - self.pos > self.limit {
                    return Err(self.too_long(line, None));
                }
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

    /// The error of a record longer than the limit, starting on `line`.
    fn too_long(&mut self, line: u64, quote_line: Option<u64>) -> RecordError {
        // Nothing more is read: the rest of the input is not records podium reads.
        self.eof = true;
        self.pos = self.end;
        RecordError::TooLong { line, quote_line }
    }

    /// A record through csv_core, fed from the buffer (refilled as needed).
    fn general_record(&mut self, line: u64) -> Result<Option<Record<'_>>, RecordError> {
        use csv_core::ReadRecordResult::{End, InputEmpty, OutputEndsFull, OutputFull, Record};
        let (mut nout, mut nend) = (0, 0);
        // The record's bytes read so far (its terminator too, once read; at most one past
        // the limit), and where its quotes stand.
        let mut length = 0;
        let mut quotes = Quotes::new(line);
        loop {
            let (res, nin, o, e) = self.core.read_record(
                &self.buf[self.pos..self.end],
                &mut self.out[nout..],
                &mut self.ends[nend..],
            );
            // The record's bytes are followed up to the first past the limit (which ends
            // the record if it is its terminator): where the quotes stand there does not
            // depend on how the input came in.
            let upto = (self.limit + 1 - length).min(nin);
            quotes.read(&self.buf[self.pos..self.pos + upto]);
            length += upto;
            if length > self.limit && quotes.state != QuoteState::Ended {
                return Err(self.too_long(line, quotes.open_quote()));
            }
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
        if let Some(quote) = quotes.open_quote() {
            // Only the end of the input ends a record inside a quoted field.
            return Err(RecordError::Unterminated {
                line: quote,
                field: quotes.field,
            });
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

    /// A reader of `.0`, `.1` bytes at a time. The first read gives at least 3 bytes:
    /// csv_core strips a byte-order mark only when the first bytes it is given hold all
    /// of it.
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

    /// Records with their lines, and the line and field of a quote never closed.
    type ReadBack = (Vec<(u64, Vec<Vec<u8>>)>, Option<(u64, usize)>);

    /// The records of `text` as [`Records`] reads them, `chunk` bytes at a time, and
    /// at the end the line and field of a quote never closed, if any (its record is not
    /// one of them).
    fn by_records(text: &[u8], chunk: usize, general: bool) -> ReadBack {
        let mut r = Records::new(Trickle(text, chunk, false));
        r.force_general = general;
        let mut out = Vec::new();
        loop {
            match r.next_record() {
                Ok(Some(rec)) => out.push((rec.line, rec.iter().map(<[u8]>::to_vec).collect())),
                Ok(None) => return (out, None),
                Err(RecordError::Unterminated { line, field }) => {
                    assert!(r.next_record().unwrap().is_none(), "nothing after it");
                    return (out, Some((line, field)));
                }
                Err(e) => panic!("{e:?}"),
            }
        }
    }

    /// [`by_csv`], with the last record left out when [`Records`] found its quote never
    /// closed: the csv crate reads such a field to the end of the input.
    fn agrees(text: &[u8], (records, open): &ReadBack) -> bool {
        let mut want = by_csv(text);
        if let Some((line, _)) = open {
            match want.pop() {
                Some((start, _)) if start <= *line => {}
                _ => return false,
            }
        }
        *records == want
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
            assert_eq!(
                by_records(text, 1 << 20, false),
                (by_csv(text), None),
                "{text:?}"
            );
            assert_eq!(by_records(text, 3, false), (by_csv(text), None), "{text:?}");
            assert_eq!(by_records(text, 1, true), (by_csv(text), None), "{text:?}");
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
            let got = by_records(text.as_bytes(), chunk, false);
            prop_assert!(agrees(text.as_bytes(), &got), "{:?}", got);
            prop_assert_eq!(&by_records(text.as_bytes(), 1 << 20, false), &got);
            prop_assert_eq!(&by_records(text.as_bytes(), chunk, true), &got);
        }
    }

    #[test]
    fn an_unterminated_quote_is_found_where_it_opens() {
        for (text, open) in [
            (&b"a,b\nc,\"d\n"[..], Some((2, 1))),
            (b"a,b\nc,\"d\ne\nf", Some((2, 1))),
            (b"\"a\"\"b", Some((1, 0))),
            (b"x,y,\"z\"\"\"", None),
            (b"a,b\"c\n", None),
            (b"\"a\"b,\"\n", Some((1, 1))),
            (b"\"a\"\r\n\"b", Some((2, 0))),
        ] {
            for (chunk, general) in [(1 << 20, false), (1, false), (2, true)] {
                let got = by_records(text, chunk, general);
                assert_eq!(got.1, open, "{:?}", String::from_utf8_lossy(text));
                assert!(agrees(text, &got), "{:?}", String::from_utf8_lossy(text));
            }
        }
    }

    #[test]
    fn a_record_longer_than_the_limit_stops_the_reading_at_its_line() {
        // Lines of 3, 7, 3 and 9 bytes (the last quoted over two lines), then one of 5.
        let text = b"a,b\nccccc,d\ne,f\n\"ggg\nggg\"\nh,i,j\n";
        for (chunk, general) in [(1 << 20, false), (1, false), (4, true)] {
            let read = |limit: usize| {
                let mut r = Records::new(Trickle(text, chunk, false));
                r.force_general = general;
                r.limit = limit;
                let mut lines = Vec::new();
                loop {
                    match r.next_record() {
                        Ok(Some(rec)) => lines.push(rec.line),
                        Ok(None) => return (lines, None),
                        Err(RecordError::TooLong { line, quote_line }) => {
                            assert!(r.next_record().unwrap().is_none(), "nothing after it");
                            return (lines, Some((line, quote_line)));
                        }
                        Err(e) => panic!("{e:?}"),
                    }
                }
            };
            assert_eq!(read(9), (vec![1, 2, 3, 4, 6], None));
            // Its ninth byte closes the quote; at its eighth, the quote is open.
            assert_eq!(read(8), (vec![1, 2, 3], Some((4, None))));
            assert_eq!(read(7), (vec![1, 2, 3], Some((4, Some(4)))));
            assert_eq!(read(6), (vec![1], Some((2, None))));
            assert_eq!(read(3), (vec![1], Some((2, None))));
            assert_eq!(read(2), (vec![], Some((1, None))));
        }
    }
}
