//! The long CSV format: one row per player per match, header required, columns
//! in any order, unknown columns ignored. The text is UTF-8 (a byte-order mark before the
//! header is not part of it); a file in UTF-16 or UTF-32 (a byte-order mark of either, or
//! NUL bytes in the header) is refused at its header, saying how to convert it.
//!
//! | column | required | meaning |
//! |---|---|---|
//! | `match` | yes | match id; the rows of one match are contiguous |
//! | `player` | yes | player id |
//! | `rank` or `score` | one of them | 1 = best, or higher = better; equal = tie |
//! | `team` | no | players with the same team in a match form one entry |
//! | `time` | no | RFC 3339 or `YYYY-MM-DD`; empty in the first matches only: once a match has a time, every later match needs one ([`crate::times_expected`]) |
//! | `weight` | no | partial play, from 1e-9 to 1 |
//! | factor columns | those named in [`ReadOptions::factors`] | the entry's factor of that kind (`car`: `ferrari` gives `car=ferrari`; [`podium::factor::check_value`]); empty = none |

use std::io::{self, Read};

use podium::{Factor, Finish, Match};

use crate::error::{escape_controls, ReadError, Wide};
use crate::group::{Grouper, RecentIds, Row};
use crate::records::{Record, Records};
use crate::time::parse_time;
use crate::ReadOptions;

/// The columns podium reads; each may appear once in a header.
pub(crate) const KNOWN_COLUMNS: [&str; 7] =
    ["match", "player", "rank", "score", "team", "time", "weight"];

#[derive(Debug, Clone, Copy)]
struct Columns {
    id: usize,
    player: usize,
    rank: Option<usize>,
    score: Option<usize>,
    team: Option<usize>,
    time: Option<usize>,
    weight: Option<usize>,
    /// The number of fields of the header: no row may have more.
    fields: usize,
}

/// Streams the matches of a long CSV source, one at a time, with line-numbered errors.
///
/// Memory holds one match at a time. After an error in one match the reader goes on with
/// the next (so callers can skip bad matches); an error of the file itself (no header, a
/// header without rows, a quote never closed, a line too long) ends it.
///
/// A row without a match id (its `match` field empty, or not UTF-8) belongs to no match
/// it names: it is refused with the match it comes after, whose rows it may be among
/// (the error says which), and the rows without an id before the file's first match
/// are a bad match of their own ([`ReadError::BadLine`]). A row with more fields than
/// the header refuses its match too: a comma inside a field that is not quoted
/// (`Smith, Jr`) shifts the fields after it.
pub struct CsvMatches<R: Read> {
    file: String,
    records: Records<R>,
    cols: Option<Columns>,
    grouper: Grouper,
    finished: bool,
    /// The line the rows after the header start on, when they are not line 2: the reader
    /// goes on where another one stopped (see [`CsvMatches::resume`]).
    rows_from: Option<u64>,
    /// The factor kinds read ([`ReadOptions::factors`]) and, once the header is read,
    /// their columns.
    factor_kinds: Vec<String>,
    factor_cols: Vec<usize>,
    /// The current row's factors.
    factors: Vec<Factor>,
    /// The header's column names, once read.
    names: Vec<String>,
    /// Whether a row was read after the header (or, going on where another reader
    /// stopped, whether that reader handed on a match): a file without one holds no
    /// matches.
    any_row: bool,
    /// The id of the last row that had one: the match a row without an id is refused
    /// with. Empty before the first such row.
    last_id: String,
    /// The first of the rows without a match id read before any row with one, while
    /// they last: one bad match, handed on when the first row with an id comes.
    nameless: Option<ReadError>,
}

impl<R: Read> CsvMatches<R> {
    /// Reads long CSV from `input`; `file` names it in errors.
    pub fn new(file: impl Into<String>, input: R) -> Self {
        Self::with_options(file, input, &ReadOptions::default())
    }

    /// Reads long CSV from `input` with the factor columns of `options`; `file` names it
    /// in errors.
    pub fn with_options(file: impl Into<String>, input: R, options: &ReadOptions) -> Self {
        // Fields are trimmed and checked as UTF-8 one by one, only those podium reads.
        let file = file.into();
        CsvMatches {
            grouper: Grouper::new(file.clone()),
            file,
            records: Records::new(input),
            cols: None,
            finished: false,
            rows_from: None,
            factor_kinds: options.factors.clone(),
            factor_cols: Vec::new(),
            factors: Vec::new(),
            names: Vec::new(),
            any_row: false,
            last_id: String::new(),
            nameless: None,
        }
    }

    /// Goes on reading a file where another reader stopped: `header` is the file's header
    /// row (without its line break), `rest` the file from the first row not read, which
    /// is on line `line`, and `recent` the match ids the other reader saw, so that a match
    /// whose rows come back after other matches is still found. `handed_on` says whether
    /// that reader handed on a match (if not, and no row is left, the file holds none).
    pub(crate) fn resume(
        file: impl Into<String>,
        header: &[u8],
        rest: R,
        line: u64,
        recent: RecentIds,
        handed_on: bool,
    ) -> CsvMatches<io::Chain<io::Cursor<Vec<u8>>, R>> {
        let file = file.into();
        let mut head = header.to_vec();
        head.push(b'\n');
        CsvMatches {
            grouper: Grouper::with_recent(file.clone(), recent),
            file,
            records: Records::new(io::Cursor::new(head).chain(rest)),
            cols: None,
            finished: false,
            rows_from: Some(line),
            factor_kinds: Vec::new(),
            factor_cols: Vec::new(),
            factors: Vec::new(),
            names: Vec::new(),
            any_row: handed_on,
            last_id: String::new(),
            nameless: None,
        }
    }

    /// The first line of the match (or bad match) read last.
    #[must_use]
    pub fn line(&self) -> u64 {
        self.grouper.line()
    }

    /// Takes back a match read from this stream once the caller is done with it: a later
    /// match reuses its allocations (the reader then allocates next to nothing).
    pub fn recycle(&mut self, m: Match) {
        self.grouper.recycle(m);
    }

    fn header(&mut self) -> Result<Columns, ReadError> {
        let record = match self.records.next_record() {
            Ok(r) => r,
            Err(e) => return Err(e.read_error(&self.file, &[])),
        };
        let Some(record) = record else {
            return Err(ReadError::Format {
                file: self.file.clone(),
                line: 1,
                message: "empty file: expected a header row with match, player and rank or score"
                    .into(),
            });
        };
        // A header in UTF-16 or UTF-32 starts with its byte-order mark, or has NUL bytes
        // between its letters: no column would be found, and the names would show them.
        if let Some(wide) = Wide::of_header(record.iter()) {
            return Err(wide.error(&self.file, record.line));
        }
        let names = crate::records::header_names(&record);
        let find = |name: &str| {
            names
                .iter()
                .position(|h| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(name))
        };
        // A first line that is a JSON object: JSON Lines read as CSV, whose quotes the CSV
        // splitter takes as its own. Its first field is shown, as written (a field that
        // does not start with a quote keeps its quotes).
        let json = names
            .first()
            .filter(|first| first.starts_with('{'))
            .map(|first| {
                let shown =
                    escape_controls(&first.chars().take(60).collect::<String>()).into_owned();
                let more = if first.chars().nth(60).is_some() || names.len() > 1 {
                    "…"
                } else {
                    ""
                };
                format!("{shown}{more}")
            });
        let missing = |what: &str| {
            if let Some(shown) = &json {
                return ReadError::Format {
                    file: self.file.clone(),
                    line: 1,
                    message: format!(
                        "the first line is a JSON object (`{shown}`), not a header of match, player and rank or score: the file looks like JSON Lines, one match per line; read it as such with `--input-format jsonl` (in Python `format=\"jsonl\"`)"
                    ),
                };
            }
            ReadError::Format {
            file: self.file.clone(),
            line: 1,
            message: format!(
                "header has no `{what}` column (found: {}); expected match, player and rank or score{}",
                found(&names),
                separator_hint(&names)
            ),
        }
        };
        // A column podium reads may be named once: which of two would it read?
        for name in KNOWN_COLUMNS {
            let at: Vec<usize> = names
                .iter()
                .enumerate()
                .filter(|(_, h)| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(name))
                .map(|(i, _)| i + 1)
                .collect();
            if let [first, second, ..] = at[..] {
                return Err(ReadError::Format {
                    file: self.file.clone(),
                    line: 1,
                    message: format!(
                        "header names the column `{name}` twice (columns {first} and {second}); each column may appear once"
                    ),
                });
            }
        }
        let cols = Columns {
            id: find("match").ok_or_else(|| missing("match"))?,
            player: find("player").ok_or_else(|| missing("player"))?,
            rank: find("rank"),
            score: find("score"),
            team: find("team"),
            time: find("time"),
            weight: find("weight"),
            fields: names.len(),
        };
        if cols.rank.is_none() && cols.score.is_none() {
            return Err(missing("rank` or `score"));
        }
        self.factor_cols.clear();
        for kind in &self.factor_kinds {
            let at: Vec<usize> = names
                .iter()
                .enumerate()
                .filter(|(_, h)| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(kind))
                .map(|(i, _)| i)
                .collect();
            match at[..] {
                [i] => self.factor_cols.push(i),
                [] => {
                    return Err(ReadError::Format {
                        file: self.file.clone(),
                        line: 1,
                        message: format!(
                            "header has no `{kind}` column, named as a factor column (found: {})",
                            found(&names)
                        ),
                    })
                }
                [first, second, ..] => {
                    return Err(ReadError::Format {
                        file: self.file.clone(),
                        line: 1,
                        message: format!(
                            "header names the factor column `{kind}` twice (columns {} and {}); each column may appear once",
                            first + 1,
                            second + 1
                        ),
                    })
                }
            }
        }
        self.names = names;
        Ok(cols)
    }

    /// Reads the factor columns of a row into `out`: one factor per non-empty field.
    fn factors_of(
        file: &str,
        rec: &Record<'_>,
        kinds: &[String],
        cols: &[usize],
        match_id: &str,
        out: &mut Vec<Factor>,
    ) -> Result<(), ReadError> {
        out.clear();
        for (kind, &i) in kinds.iter().zip(cols) {
            let raw = rec.get(i).unwrap_or(b"");
            let value = field_str(raw).map_err(|_| ReadError::Field {
                file: file.to_string(),
                line: rec.line,
                match_id: Some(match_id.to_string()),
                field: kind.clone(),
                value: String::from_utf8_lossy(raw).into_owned(),
                expected: "valid UTF-8 text".into(),
            })?;
            if !value.is_empty() {
                podium::factor::check_value(kind, value).map_err(|e| ReadError::Field {
                    file: file.to_string(),
                    line: rec.line,
                    match_id: Some(match_id.to_string()),
                    field: kind.clone(),
                    value: e.given().chars().take(60).collect(),
                    expected: e.expected(),
                })?;
                out.push(Factor::new(kind.as_str(), value));
            }
        }
        Ok(())
    }

    /// Parses the current record into a row that borrows the record.
    fn row<'r>(file: &str, rec: &Record<'r>, cols: Columns) -> Result<Row<'r>, ReadError> {
        let line = rec.line;
        let raw = |i: usize| rec.get(i).unwrap_or(b"");
        let whole = rec.text();
        let field_text = |i: usize| match whole.and_then(|t| t.get(i)) {
            Some(text) => Ok(trim(text)),
            None => field_str(raw(i)),
        };
        // The id is read first so that every other error can name its match.
        let id = field_text(cols.id);
        let bad = |field: &str, value: &str, expected: &str| ReadError::Field {
            file: file.to_string(),
            line,
            match_id: id.ok().filter(|id| !id.is_empty()).map(str::to_string),
            field: field.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        };
        let text = |field: &str, i: usize| -> Result<&str, ReadError> {
            field_text(i)
                .map_err(|_| bad(field, &String::from_utf8_lossy(raw(i)), "valid UTF-8 text"))
        };
        let id = text("match", cols.id)?;
        if rec.len() == 1 && id.is_empty() {
            return Err(bad("match", "", "a row of match,player,... (blank line)"));
        }
        if id.is_empty() {
            return Err(bad("match", id, "a match id"));
        }
        if let Some((field, value, expected)) = crate::records::extra_fields(rec, cols.fields) {
            return Err(bad(&field, &value, &expected));
        }
        let player = text("player", cols.player)?;
        if player.is_empty() {
            return Err(bad("player", player, "a player id"));
        }
        let number = |field: &str, i: usize| -> Result<Option<f64>, ReadError> {
            let v = text(field, i)?;
            if v.is_empty() {
                return Ok(None);
            }
            parse_number(v)
                .map(Some)
                .ok_or_else(|| bad(field, v, "a finite number"))
        };
        let rank = cols.rank.map(|i| number("rank", i)).transpose()?.flatten();
        let score = cols
            .score
            .map(|i| number("score", i))
            .transpose()?
            .flatten();
        let finish = match (rank, score) {
            (Some(_), Some(_)) => {
                let score = cols.score.map_or("", |i| field_text(i).unwrap_or(""));
                return Err(bad(
                    "score",
                    score,
                    "no score on a row that gives a rank (a row gives one of them)",
                ));
            }
            (Some(r), None) => Finish::Rank(r),
            (None, Some(s)) => Finish::Score(s),
            (None, None) => {
                let field = if cols.rank.is_some() { "rank" } else { "score" };
                return Err(bad(
                    field,
                    "",
                    "a number (rank 1 = best, or score higher = better)",
                ));
            }
        };
        let weight = match cols.weight.map(|i| text("weight", i)).transpose()? {
            None | Some("") => 1.0,
            Some(v) => parse_number(v)
                .filter(|w| (podium::model::MIN_WEIGHT..=1.0).contains(w))
                .ok_or_else(|| {
                    bad(
                        "weight",
                        v,
                        "a number from 1e-9 to 1, the share of the match played",
                    )
                })?,
        };
        let time = match cols.time.map(|i| text("time", i)).transpose()? {
            None | Some("") => None,
            Some(v) => Some(
                parse_time(v)
                    .ok_or_else(|| bad("time", v, "an RFC 3339 time or a YYYY-MM-DD date"))?,
            ),
        };
        let team = match cols.team.map(|i| text("team", i)).transpose()? {
            None | Some("") => None,
            Some(v) => Some(v),
        };
        Ok(Row {
            id,
            line,
            time,
            player,
            team,
            finish,
            weight,
            factors: &[],
        })
    }
}

/// The header's column names as a message shows them: as written, joined by commas,
/// control characters escaped (a tab as `\t`).
fn found(names: &[String]) -> String {
    escape_controls(&names.join(",")).into_owned()
}

/// When a header read as one column holds a `;` or a tab, a hint that the file is
/// separated by that character and not by commas; nothing otherwise.
fn separator_hint(names: &[String]) -> String {
    let [only] = names else {
        return String::new();
    };
    let by = [(';', "`;`"), ('\t', "tabs")]
        .into_iter()
        .filter(|(c, _)| only.contains(*c))
        .max_by_key(|(c, _)| only.matches(*c).count());
    match by {
        Some((_, name)) => format!(
            " (podium reads comma-separated files, and this one looks separated by {name}: write it with commas)"
        ),
        None => String::new(),
    }
}

/// A field as trimmed UTF-8 text.
fn field_str(raw: &[u8]) -> Result<&str, std::str::Utf8Error> {
    std::str::from_utf8(raw).map(trim)
}

/// `str::trim`, with a shortcut for the usual field that starts and ends with an ASCII
/// character other than white space.
fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(&a), Some(&z)) if is_plain(a) && is_plain(z) => text,
        _ => text.trim(),
    }
}

/// An ASCII byte that `char::is_whitespace` rejects: one load from a table, as it is
/// asked of both ends of every field.
#[inline]
pub(crate) fn is_plain(b: u8) -> bool {
    PLAIN[usize::from(b)]
}

/// [`is_plain`] of every byte: ASCII and not white space (tab, line feed, vertical tab,
/// form feed, carriage return, space).
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = !matches!(b, 0x09..=0x0d | 0x20);
        b += 1;
    }
    table
};

/// A finite number; small whole numbers (ranks, most scores) skip the float parser.
pub(crate) fn parse_number(v: &str) -> Option<f64> {
    small_whole(v.as_bytes()).or_else(|| parse_float(v))
}

/// [`parse_number`] of a field's bytes; bytes that are not UTF-8 are not a number.
#[inline]
pub(crate) fn parse_number_bytes(b: &[u8]) -> Option<f64> {
    small_whole(b).or_else(|| parse_float(std::str::from_utf8(b).ok()?))
}

/// A number of one to nine digits, in one pass: the digits' value, and whether they all
/// were digits. Nine digits stay below 10^9 < 2^32, so 32-bit arithmetic is exact for
/// them (other bytes may wrap it: their value is not used), and a `u32` converts to
/// `f64` in one instruction where a `u64` takes several.
#[inline]
fn small_whole(b: &[u8]) -> Option<f64> {
    if b.is_empty() || b.len() > 9 {
        return None;
    }
    let (n, digits) = b.iter().fold((0u32, true), |(n, digits), &d| {
        let v = d.wrapping_sub(b'0');
        (
            n.wrapping_mul(10).wrapping_add(u32::from(v)),
            digits && v < 10,
        )
    });
    digits.then_some(f64::from(n))
}

/// A finite number by the float parser.
fn parse_float(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite())
}

impl<R: Read> Iterator for CsvMatches<R> {
    type Item = Result<Match, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        let cols = match self.cols {
            Some(c) => c,
            None => match self.header() {
                Ok(c) => {
                    self.cols = Some(c);
                    if let Some(line) = self.rows_from {
                        self.records.set_line(line);
                    }
                    c
                }
                Err(e) => {
                    self.finished = true;
                    return Some(Err(e));
                }
            },
        };
        loop {
            match self.records.next_record() {
                Ok(Some(record)) => {
                    self.any_row = true;
                    let mut row = Self::row(&self.file, &record, cols);
                    if let (Ok(r), false) = (&mut row, self.factor_cols.is_empty()) {
                        match Self::factors_of(
                            &self.file,
                            &record,
                            &self.factor_kinds,
                            &self.factor_cols,
                            r.id,
                            &mut self.factors,
                        ) {
                            Ok(()) => r.factors = &self.factors,
                            Err(e) => row = Err(e),
                        }
                    }
                    let id = match &row {
                        Ok(r) => Some(r.id),
                        Err(e) => e.match_id(),
                    };
                    match id {
                        Some(id) => {
                            if id != self.last_id {
                                self.last_id.clear();
                                self.last_id.push_str(id);
                            }
                        }
                        None => {
                            let Err(e) = row else {
                                unreachable!("a row read has its match id")
                            };
                            match self.nameless(e) {
                                Some(e) => row = Err(e),
                                None => continue,
                            }
                        }
                    }
                    let done = self.grouper.push(row);
                    // The rows without an id before the first match come first (the
                    // grouper held no match before this row: it hands on none now).
                    if let Some(bad) = self.nameless.take() {
                        return Some(Err(bad));
                    }
                    if let Some(done) = done {
                        return Some(done);
                    }
                }
                Ok(None) => {
                    self.finished = true;
                    if let Some(bad) = self.nameless.take() {
                        return Some(Err(bad));
                    }
                    if !self.any_row {
                        return Some(Err(ReadError::Format {
                            file: self.file.clone(),
                            line: self.rows_from.unwrap_or(2),
                            message: "the file holds no matches: it has a header and no rows \
                                      (expected one row per player per match after it)"
                                .into(),
                        }));
                    }
                    return self.grouper.finish();
                }
                Err(e) => {
                    self.finished = true;
                    return Some(Err(e.read_error(&self.file, &self.names)));
                }
            }
        }
    }
}

impl<R: Read> CsvMatches<R> {
    /// The error of a row without a match id (`e`, of its `match` field): the error of
    /// the match it comes after, saying so, to go to the grouper; or, before the first
    /// row with an id, `None`: the first such row is kept as a bad match of its own
    /// ([`CsvMatches::nameless`]) and the others go with it.
    fn nameless(&mut self, e: ReadError) -> Option<ReadError> {
        let ReadError::Field {
            file,
            line,
            field,
            value,
            expected,
            ..
        } = e
        else {
            return Some(e);
        };
        if self.last_id.is_empty() {
            self.nameless.get_or_insert(ReadError::BadLine {
                file,
                line,
                field,
                value,
                expected,
            });
            return None;
        }
        Some(ReadError::Field {
            expected: format!(
                "{expected} (the row comes after match {:?}, which is refused with it: the row may be one of its own)",
                self.last_id
            ),
            match_id: Some(self.last_id.clone()),
            file,
            line,
            field,
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Result<Match, ReadError>> {
        CsvMatches::new("t.csv", text.as_bytes()).collect()
    }

    /// JSON Lines read as CSV (standard input without `--input-format jsonl`): the
    /// first line is named a JSON object, as written, with the way to read it.
    #[test]
    fn a_json_lines_file_read_as_csv_says_how_to_read_it() {
        let hint = "not a header of match, player and rank or score: the file looks like JSON Lines, one match per line; read it as such with `--input-format jsonl` (in Python `format=\"jsonl\"`)";
        let line =
            r#"{"match":"g1","results":[{"player":"ann","rank":1},{"player":"bo","rank":2}]}"#;
        for (text, shown) in [
            (format!("{line}\n{line}\n"), r#"{"match":"g1"…"#.to_string()),
            // Behind a byte-order mark and spaces; one field, shown whole.
            (
                "\u{feff} {\"match\":\"g1\"}\n".to_string(),
                r#"{"match":"g1"}"#.to_string(),
            ),
            // A long first field is cut at 60 characters.
            (
                format!("{{\"match\":\"{}\"}}\n", "m".repeat(70)),
                format!("{{\"match\":\"{}…", "m".repeat(50)),
            ),
        ] {
            let got = read(&text);
            assert_eq!(got.len(), 1);
            assert_eq!(
                got[0].as_ref().unwrap_err().to_string(),
                format!("t.csv:1: the first line is a JSON object (`{shown}`), {hint}")
            );
        }
        // A header that merely lacks a column is named as before.
        assert_eq!(
            read("game,player,rank\n")[0].as_ref().unwrap_err().to_string(),
            "t.csv:1: header has no `match` column (found: game,player,rank); expected match, player and rank or score"
        );
    }

    #[test]
    fn plain_bytes_are_ascii_that_is_not_white_space() {
        for b in 0..=255u8 {
            let want = b.is_ascii() && !char::from(b).is_whitespace();
            assert_eq!(is_plain(b), want, "byte {b:#04x}");
        }
    }

    #[test]
    fn reads_matches_with_ties_teams_and_times() {
        let got = read(
            "time,match,player,rank,team,extra\n\
             2024-05-01,g1,ann,1,,x\n2024-05-01,g1,bo,2,,x\n2024-05-01,g1,cy,2,,x\n\
             2024-05-02,g2,ann,2,red,\n2024-05-02,g2,bo,1,blue,\n2024-05-02,g2,cy,2,red,\n",
        );
        assert_eq!(got.len(), 2);
        let g1 = got[0].as_ref().unwrap();
        assert_eq!(g1.id(), "g1");
        assert_eq!(g1.time(), Some(1_714_521_600));
        assert_eq!(g1.place(2), 2);
        let g2 = got[1].as_ref().unwrap();
        assert_eq!(g2.len(), 2);
        assert_eq!(g2.entries()[1].members.len(), 2);
    }

    #[test]
    fn player_id_longer_than_the_limit_is_refused() {
        let long = "p".repeat(201);
        let got = read(&format!("match,player,rank\ng,a,1\ng,{long},2\n"));
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            format!(
                "t.csv:3: match \"g\", field `player`: player id {:?}… (201 bytes) is not valid, expected 1 to 200 bytes without surrounding spaces or control characters",
                "p".repeat(60)
            )
        );
        let longest = "p".repeat(200);
        assert!(read(&format!("match,player,rank\ng,a,1\ng,{longest},2\n"))[0].is_ok());
    }

    #[test]
    fn match_id_longer_than_the_limit_is_refused() {
        let long = "m".repeat(201);
        let got = read(&format!(
            "match,player,rank\n{long},a,1\n{long},b,2\nh,a,1\nh,b,2\n"
        ));
        let e = got[0].as_ref().unwrap_err();
        assert!(
            e.to_string().ends_with("(201 bytes) is not valid, expected at most 200 bytes without surrounding spaces or control characters"),
            "{e}"
        );
        assert!(e.to_string().starts_with("t.csv:2: match"), "{e}");
        // The next match is read.
        assert_eq!(got[1].as_ref().unwrap().id(), "h");
    }

    #[test]
    fn player_id_with_a_control_character_is_refused() {
        let got = read("match,player,rank\ng,a\u{0}b,1\ng,b,2\nh,\"c\nd\",1\nh,b,2\n");
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.csv:2: match \"g\", field `player`: player id \"a\\0b\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
        );
        assert_eq!(
            got[1].as_ref().unwrap_err().to_string(),
            "t.csv:4: match \"h\", field `player`: player id \"c\\nd\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
        );
        let got = read("match,player,rank,team\ng,a,1,red\tside\ng,b,2,\n");
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.csv:2: match \"g\", field `team`: team name \"red\\tside\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
        );
    }

    #[test]
    fn factor_values_with_control_characters_or_too_long_are_refused() {
        let got = with_factors("match,player,rank,car\ng,a,1,re\td\ng,b,2,x\n", &["car"]);
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.csv:2: field `car`: \"re\\td\" is not valid, expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615"
        );
        let long = "v".repeat(201);
        let got = with_factors(
            &format!("match,player,rank,car\ng,a,1,{long}\ng,b,2,x\n"),
            &["car"],
        );
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("t.csv:2: field `car`: \"vvv"));
    }

    fn with_factors(text: &str, kinds: &[&str]) -> Vec<Result<Match, ReadError>> {
        let options = ReadOptions::with_factors(kinds.iter().copied());
        CsvMatches::with_options("t.csv", text.as_bytes(), &options).collect()
    }

    fn factors_of(m: &Match) -> Vec<String> {
        m.entries()
            .iter()
            .map(|e| {
                e.factors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn factor_columns_give_entries_factors_and_empty_values_none() {
        let text = "match,player,rank,Car,seat\n\
            r1,ann,1,red,1\nr1,bo,2,,2\nr1,cy,3,red,\n";
        let got = with_factors(text, &["car", "seat"]);
        let m = got[0].as_ref().unwrap();
        assert_eq!(factors_of(m), ["car=red seat=1", "seat=2", "car=red"]);
        // car=red is on two entries of three, so it tells them apart; seats each on one.
        assert_eq!(m.factors().len(), 3);
        // Without the option the column is ignored, as any unknown column.
        let plain = read(text);
        assert!(!plain[0].as_ref().unwrap().has_factors());
    }

    #[test]
    fn a_factor_value_that_is_a_player_name_is_no_clash() {
        let text = "match,player,rank,team,owner\nr1,ann,1,a,bo\nr1,bo,2,b,ann\n";
        let got = with_factors(text, &["owner"]);
        let m = got[0].as_ref().unwrap();
        assert_eq!(factors_of(m), ["owner=bo", "owner=ann"]);
        assert_eq!(m.player_count(), 2);
    }

    #[test]
    fn a_missing_factor_column_is_named() {
        let got = with_factors("match,player,rank\nr1,a,1\nr1,b,2\n", &["car"]);
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.csv:1: header has no `car` column, named as a factor column (found: match,player,rank)"
        );
    }

    #[test]
    fn rows_of_one_team_that_disagree_on_a_factor_name_the_line_and_field() {
        let text = "match,player,rank,team,side\n\
            g1,a,1,red,north\ng1,b,1,red,south\ng1,c,2,blue,\n\
            g2,a,1,red,north\ng2,b,1,red,\ng2,c,2,blue,south\n";
        let got = with_factors(text, &["side"]);
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.csv:3: field `side`: \"south\" is not valid, expected side=north, as another row of the same entry gives (an entry has one value of each factor kind)"
        );
        // A teammate without a value takes the team's: one factor per entry.
        let g2 = got[1].as_ref().unwrap();
        assert_eq!(factors_of(g2), ["side=north", "side=south"]);
    }

    #[test]
    fn scores_and_weights() {
        let got = read("match,player,score,weight\nm,a,10,0.5\nm,b,12,\n");
        let m = got[0].as_ref().unwrap();
        assert_eq!(m.entries()[0].members[0].player, "b");
        assert_eq!(m.entries()[1].members[0].weight, 0.5);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let got = read("match,player,rank\ng1,a,1\ng1,b,x\ng2,a,1\ng2,b,2\n");
        let err = got[0].as_ref().unwrap_err().to_string();
        assert_eq!(
            err,
            "t.csv:3: field `rank`: \"x\" is not valid, expected a finite number"
        );
        assert!(got[1].is_ok(), "reading goes on with the next match");

        let got = read("match,player,rank\ng1,a,1\ng1,a,2\n");
        let err = got[0].as_ref().unwrap_err().to_string();
        assert!(
            err.starts_with("t.csv:3: match \"g1\", field `player`"),
            "{err}"
        );

        let got = read("match,player,rank\ng1,a,1\n");
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("at least 2 entries"));

        let got = read("match,player\ng1,a\n");
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("no `rank` or `score` column"));

        let got = read("match,player,rank,weight\ng1,a,1,1.5\ng1,b,2,\n");
        assert!(got[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("field `weight`"));
    }

    #[test]
    fn a_semicolon_csv_is_told_it_is_not_comma_separated() {
        let err = |text: &str| read(text)[0].as_ref().unwrap_err().to_string();
        assert_eq!(
            err("match;player;rank\ng1;a;1\ng1;b;2\n"),
            "t.csv:1: header has no `match` column (found: match;player;rank); expected match, player and rank or score (podium reads comma-separated files, and this one looks separated by `;`: write it with commas)"
        );
        assert!(err("match\tplayer\trank\n")
            .ends_with("this one looks separated by tabs: write it with commas)"));
        // Commas in the header: a column is missing, the separator is not at fault.
        assert_eq!(
            err("game;x,player,rank\ng1,a,1\n"),
            "t.csv:1: header has no `match` column (found: game;x,player,rank); expected match, player and rank or score"
        );
    }

    #[test]
    fn non_contiguous_match_is_an_error() {
        let got = read("match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,b,2\ng1,c,3\ng1,d,4\n");
        assert_eq!(got.len(), 3);
        let err = got[2].as_ref().unwrap_err();
        assert!(
            matches!(
                err,
                ReadError::NotContiguous {
                    line: 6,
                    first_line: 2,
                    ..
                }
            ),
            "{err}"
        );
    }

    /// A file may begin with matches without a time; from its first match with a time
    /// on, every match needs one (the league server's rule): one without is refused,
    /// naming its line, the field and the match with a time before it. Both ways of
    /// reading records say it alike.
    #[test]
    fn matches_without_a_time_may_only_come_first() {
        let text = "match,player,rank,time\n\
            u1,a,1,\nu1,b,2,\nu2,b,1,\nu2,c,2,\n\
            d1,a,1,2024-05-03\nd1,c,2,2024-05-03\nd2,c,1,2024-05-01\nd2,b,2,2024-05-01\n";
        for general in [false, true] {
            let got = outcomes(text.as_bytes(), general);
            let times: Vec<_> = got.iter().map(|m| m.as_ref().unwrap().time()).collect();
            assert_eq!(
                times,
                [None, None, Some(1_714_694_400), Some(1_714_521_600)]
            );
        }
        let text = "match,player,rank,time\n\
            u1,a,1,\nu1,b,2,\nd1,a,1,2024-05-01\nd1,b,2,2024-05-01\n\
            u2,a,1,\nu2,b,2,\nd2,a,1,2024-05-02\nd2,b,2,2024-05-02\n";
        for general in [false, true] {
            let got = outcomes(text.as_bytes(), general);
            assert_eq!(got.len(), 4);
            assert!(got[0].is_ok() && got[1].is_ok() && got[3].is_ok());
            assert_eq!(
                got[2].as_ref().unwrap_err(),
                "t.csv:6: field `time`: \"\" is not valid, expected a time: once a match has a time, every later match needs one (only the matches before the first with a time may have none); match \"u2\" comes after match \"d1\" (line 4), which has one"
            );
        }
        let e = read(text).remove(2).unwrap_err();
        assert!(e.is_recoverable());
        assert_eq!(e.match_id(), Some("u2"));
        // A bad match with a time is not one of the history: the next may have none, as
        // the league server, which refuses the bad match, takes it.
        let got = read(
            "match,player,rank,time\nd1,a,1,2024-05-01\nd1,a,2,2024-05-01\nu1,a,1,\nu1,b,2,\n",
        );
        assert!(got[0].is_err());
        assert_eq!(got[1].as_ref().unwrap().time(), None);
    }

    /// A row whose time is not its match's quotes the row's time.
    #[test]
    fn a_row_whose_time_is_not_its_matchs_quotes_it() {
        let got = read("match,player,rank,time\nm1,a,1,\nm1,b,2,2024-01-01\n");
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.csv:3: field `time`: \"2024-01-01\" is not valid, expected the time of the match's first row (line 2): none"
        );
    }

    #[test]
    fn team_members_with_different_ranks() {
        let got = read("match,player,rank,team\ng,a,1,x\ng,b,2,y\ng,c,2,x\n");
        let err = got[0].as_ref().unwrap_err().to_string();
        assert!(
            err.starts_with("t.csv:4: match \"g\", field `team`"),
            "{err}"
        );
    }

    #[test]
    fn invalid_utf8_names_its_field_and_spares_the_other_matches() {
        let mut text = b"match,player,rank\ng1,a,1\ng1,".to_vec();
        text.extend_from_slice(&[0xff, 0xfe]);
        text.extend_from_slice(b",2\ng2,a,1\ng2,b,2\n");
        let got: Vec<_> = CsvMatches::new("t.csv", &text[..]).collect();
        let err = got[0].as_ref().unwrap_err();
        assert!(err.is_recoverable(), "{err}");
        assert_eq!(err.match_id(), Some("g1"));
        assert!(
            err.to_string()
                .starts_with("t.csv:3: field `player`: \"\u{fffd}\u{fffd}\" is not valid, expected valid UTF-8 text"),
            "{err}"
        );
        assert!(got[1].is_ok());
    }

    proptest::proptest! {
        /// The shortcut for whole numbers reads what the float parser reads: digits with
        /// leading zeros, nine of them at most, and anything else it passes on.
        #[test]
        fn numbers_read_as_the_float_parser_reads_them(
            b in proptest::prop_oneof![
                proptest::collection::vec(proptest::sample::select(b"0123456789".to_vec()), 1..12),
                proptest::collection::vec(
                    proptest::sample::select(b"0123456789.-e+ x\xff".to_vec()),
                    0..13,
                ),
            ],
        ) {
            let parsed = std::str::from_utf8(&b).ok().and_then(parse_float);
            proptest::prop_assert_eq!(
                parse_number_bytes(&b).map(f64::to_bits),
                parsed.map(f64::to_bits)
            );
        }
    }

    /// Every match or error message, read through the fast path or through csv_core only.
    fn outcomes(text: &[u8], general: bool) -> Vec<Result<Match, String>> {
        let mut r = CsvMatches::new("t.csv", text);
        r.records.force_general = general;
        r.map(|m| m.map_err(|e| e.to_string())).collect()
    }

    proptest::proptest! {
        #[test]
        fn fast_and_general_paths_read_the_same_matches_and_errors(
            rows in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["g1", "g2", " g3", "\"g,4\"", "", "\"\""]),
                    proptest::sample::select(vec!["a", "b", "c ", "\"d\"", "\"e\nf\"", "", "é"]),
                    proptest::sample::select(vec!["1", "2", " 2", "x", "", "\"3\""]),
                    proptest::sample::select(vec!["\n", "\r\n", "\n\n", "\r", " \n"]),
                ),
                0..12,
            ),
            bom in proptest::bool::ANY,
        ) {
            let mut text = String::new();
            if bom {
                text.push('\u{feff}');
            }
            text.push_str("match,player,rank\n");
            for (m, p, r, end) in rows {
                text.push_str(&format!("{m},{p},{r}{end}"));
            }
            proptest::prop_assert_eq!(
                outcomes(text.as_bytes(), false),
                outcomes(text.as_bytes(), true)
            );
        }
    }

    #[test]
    fn numbers_and_spaces() {
        assert_eq!(parse_number("7"), Some(7.0));
        assert_eq!(parse_number("007"), Some(7.0));
        assert_eq!(parse_number("1234567890"), Some(1_234_567_890.0));
        assert_eq!(parse_number("-2.5"), Some(-2.5));
        assert_eq!(parse_number("1e3"), Some(1000.0));
        assert_eq!(parse_number("NaN"), None);
        assert_eq!(parse_number("inf"), None);
        assert_eq!(parse_number("1 2"), None);
        for text in [
            "",
            "a",
            " a",
            "a ",
            "\u{b}a\u{b}",
            "\u{85}a",
            "a\u{a0}",
            "é",
            " é ",
            "a b",
        ] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
        // Fields and headers are trimmed, a byte-order mark is ignored.
        let got = read("\u{feff} Match , Player ,Rank\n g1 , ann ,  1\ng1,bo,2 \n");
        let m = got[0].as_ref().unwrap();
        assert_eq!(m.id(), "g1");
        assert_eq!(m.entries()[0].members[0].player, "ann");
        assert_eq!(m.place(1), 2);
    }
}
