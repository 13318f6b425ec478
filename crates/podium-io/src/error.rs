//! Errors of the readers: every one names the file, the line and, where there is one, the
//! field, and says what was expected.

use podium::MatchError;

/// A problem found while reading an input file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read {file}")]
    Io {
        /// The file.
        file: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The header row is missing a required column, or the file is not of the format.
    #[error("{file}:{line}: {message}")]
    Format {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A field that does not hold what its column should.
    #[error("{file}:{line}: field `{field}`: {value:?} is not valid, expected {expected}")]
    Field {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// The match the row belongs to, if its id was read.
        match_id: Option<String>,
        /// The column.
        field: String,
        /// The text found.
        value: String,
        /// What the column accepts.
        expected: String,
    },
    /// A line of a file where a line is one match (JSON Lines) that is not a readable
    /// match, and whose match id could not be read: not JSON, not a match object, no
    /// `match`, a byte that is not UTF-8. The next line is the next match, so the error
    /// is confined to its line: a bad match, as one with an id is (with `--skip-bad` the
    /// line is skipped), and reading goes on. A line whose match id was read is a
    /// [`ReadError::Field`] of that match.
    ///
    /// In CSV, the rows without a match id before a file's first match (its first row
    /// with one): they belong to no match, and are one bad match of their own, named by
    /// the first of them. A row without a match id after that is refused with the
    /// match it comes after ([`ReadError::Field`] of that match).
    #[error("{file}:{line}: field `{field}`: {value:?} is not valid, expected {expected}")]
    BadLine {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// The field at fault (`json` for the line as a whole).
        field: String,
        /// The text found.
        value: String,
        /// What the field (or the line) should hold.
        expected: String,
    },
    /// The rows of a match do not form a valid match.
    #[error("{file}:{line}: match {match_id:?}, field `{field}`: {source}")]
    Match {
        /// The file.
        file: String,
        /// 1-based line of the row at fault (or the match's first row).
        line: u64,
        /// The match id.
        match_id: String,
        /// The field at fault.
        field: &'static str,
        /// What is wrong.
        #[source]
        source: Box<MatchError>,
    },
    /// The inputs cannot be read together (two files that name one contest).
    #[error("{message}")]
    Inputs {
        /// What is wrong, naming the files.
        message: String,
    },
    /// A match id that the resumed league rated already (a league saved after rating
    /// files and read back to go on): rating it again would count it twice.
    #[error("{file}:{line}: match {match_id:?} was rated already by the league resumed from {saved}: go on with new matches only (a match id names one match across the saved league and the files after it)")]
    RatedBefore {
        /// The file.
        file: String,
        /// 1-based line of the match's first row.
        line: u64,
        /// The match id.
        match_id: String,
        /// The saved league's file.
        saved: String,
    },
    /// A match id that an earlier input used already: an id names one match across all
    /// the inputs read together.
    #[error("{file}:{line}: match {match_id:?} was read already from {first_file}:{first_line} (a match id names one match across all the files)")]
    Repeated {
        /// The file.
        file: String,
        /// 1-based line of the match's first row here.
        line: u64,
        /// The match id.
        match_id: String,
        /// The earlier file.
        first_file: String,
        /// 1-based line of the match's first row there.
        first_line: u64,
    },
    /// A line longer than the readers read ([`crate::MAX_LINE`] in CSV, where the line
    /// breaks inside quoted fields count; [`crate::MAX_JSON_LINE`] in JSON Lines): no
    /// match file has one, and reading on would take memory without bound (a file
    /// without line breaks, such as `/dev/zero`). Reading stops here, in JSON Lines too,
    /// where other bad lines are skipped ([`ReadError::BadLine`]): to skip this one would
    /// be to read on to a line break that such a file never gives.
    #[error("{file}:{line}: a line longer than {}, the most a {format} line may hold{}", size(*limit), quote_line.map(|q| format!(" (the quote opened on line {q} is still open there: a quoted field runs on to its closing quote)")).unwrap_or_default())]
    LineTooLong {
        /// The file.
        file: String,
        /// 1-based line where the line (the CSV record) starts.
        line: u64,
        /// The longest line read, in bytes.
        limit: usize,
        /// The file's format: `CSV` or `JSON Lines`.
        format: &'static str,
        /// In CSV, the line of a quote still open at the limit, if any.
        quote_line: Option<u64>,
    },
    /// A quoted CSV field whose closing quote never comes: the field would run to the
    /// end of the file. Reading stops here.
    #[error("{file}:{line}: field `{field}`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")")]
    UnterminatedQuote {
        /// The file.
        file: String,
        /// 1-based line of the opening quote.
        line: u64,
        /// The column (its name in the header, or its 1-based number).
        field: String,
    },
    /// A match whose rows are not contiguous: the id reappears after other matches (the
    /// rows of one match apart, or two matches of one id).
    #[error("{file}:{line}: match {match_id:?} appears again after other matches: its rows on line {first_line} and on line {line} are apart, and a match's rows must be together (sort the file by match), or two matches share the id (give one of them an id of its own)")]
    NotContiguous {
        /// The file.
        file: String,
        /// 1-based line where it reappears.
        line: u64,
        /// The match id.
        match_id: String,
        /// 1-based line where the match's earlier rows start.
        first_line: u64,
    },
}

impl ReadError {
    /// The match the error belongs to, when known: with `--skip-bad` that match is skipped
    /// (as is a [`ReadError::BadLine`], whose id is not known).
    #[must_use]
    pub fn match_id(&self) -> Option<&str> {
        match self {
            ReadError::Field { match_id, .. } => match_id.as_deref(),
            ReadError::Match { match_id, .. }
            | ReadError::NotContiguous { match_id, .. }
            | ReadError::Repeated { match_id, .. }
            | ReadError::RatedBefore { match_id, .. } => Some(match_id),
            _ => None,
        }
    }

    /// Whether reading can go on after this error (a bad match, not a broken file): an
    /// error of a match whose id is known, or of a line that is one match
    /// ([`ReadError::BadLine`]).
    #[must_use]
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            ReadError::Field {
                match_id: Some(_),
                ..
            } | ReadError::BadLine { .. }
                | ReadError::Match { .. }
                | ReadError::NotContiguous { .. }
                | ReadError::Repeated { .. }
                | ReadError::RatedBefore { .. }
        )
    }

    /// The error of `field` on `line`, a line that is one match (JSON Lines): a
    /// [`ReadError::Field`] of the match when its id was read, else a
    /// [`ReadError::BadLine`]; either way a bad match, skipped with `--skip-bad`.
    pub(crate) fn of_line(
        file: &str,
        line: u64,
        match_id: Option<String>,
        field: String,
        value: String,
        expected: String,
    ) -> Self {
        let file = file.to_string();
        match match_id {
            Some(id) => ReadError::Field {
                file,
                line,
                match_id: Some(id),
                field,
                value,
                expected,
            },
            None => ReadError::BadLine {
                file,
                line,
                field,
                value,
                expected,
            },
        }
    }
}

/// A size in bytes, in MiB when it is whole MiB.
fn size(bytes: usize) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The field of a result row that a [`MatchError`] is about.
pub(crate) fn field_of(err: &MatchError) -> &'static str {
    match err {
        MatchError::TooFewEntries { .. } => "match",
        MatchError::DuplicatePlayer { .. } | MatchError::InvalidPlayerId { .. } => "player",
        MatchError::EmptyTeam { .. }
        | MatchError::TeamFinishMismatch { .. }
        | MatchError::InvalidTeamName { .. } => "team",
        MatchError::NonFiniteFinish { .. } | MatchError::MixedFinishKinds { .. } => "rank/score",
        MatchError::InvalidWeight { .. } => "weight",
        MatchError::InvalidFactor { .. } | MatchError::FactorMismatch { .. } => "factor",
        _ => "match",
    }
}

/// The player a [`MatchError`] names, to find the row at fault.
pub(crate) fn player_of(err: &MatchError) -> Option<&str> {
    match err {
        MatchError::DuplicatePlayer { player }
        | MatchError::InvalidPlayerId { player }
        | MatchError::TeamFinishMismatch { player, .. }
        | MatchError::NonFiniteFinish { player, .. }
        | MatchError::MixedFinishKinds { player, .. }
        | MatchError::InvalidWeight { player, .. }
        | MatchError::InvalidFactor { player, .. }
        | MatchError::FactorMismatch { player, .. } => Some(player),
        _ => None,
    }
}

/// Two rows of one entry that give different values of one factor kind, as the error of
/// that kind's field (`field` is `prefix` then the kind) on `line`; `None` for any other
/// error.
pub(crate) fn factor_mismatch(
    file: &str,
    line: u64,
    match_id: &str,
    err: &MatchError,
    prefix: &str,
) -> Option<ReadError> {
    let MatchError::FactorMismatch {
        expected, found, ..
    } = err
    else {
        return None;
    };
    let (kind, value) = found.split_once('=').unwrap_or((found, ""));
    Some(ReadError::Field {
        file: file.to_string(),
        line,
        match_id: Some(match_id.to_string()),
        field: format!("{prefix}{kind}"),
        value: value.to_string(),
        expected: format!(
            "{expected}, as another row of the same entry gives (an entry has one value of each factor kind)"
        ),
    })
}

/// `text` with its control characters escaped (`\0`, `\t`, `\u{1b}`), the rest as
/// written: text from a file shown inside a message, where a raw control byte would act
/// on the terminal instead of being seen.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// Text in UTF-16 or UTF-32 rather than UTF-8, as a file's first bytes show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wide {
    /// 16 or 32.
    bits: u8,
    /// The byte order, when known.
    big_endian: Option<bool>,
    /// Whether the file starts with a byte-order mark (else its first line is largely NUL
    /// bytes).
    mark: bool,
}

impl Wide {
    /// What `line`, a line of a file (`at_start`: its first line), shows of a text in
    /// UTF-16 or UTF-32: a byte-order mark of either at the start of the file, or NUL
    /// bytes for a quarter of the line or more, as every ASCII character has in UTF-16
    /// and UTF-32 (a stray NUL byte in UTF-8 text is left to the reader to name where it
    /// is). `None` for any other bytes (text in UTF-8 or in a one-byte encoding such as
    /// Latin-1).
    pub(crate) fn of(line: &[u8], at_start: bool) -> Option<Wide> {
        let marked = |bits, big_endian| Wide {
            bits,
            big_endian: Some(big_endian),
            mark: true,
        };
        if at_start {
            // UTF-32's little-endian mark starts as UTF-16's does: it is looked for first.
            if line.starts_with(&[0, 0, 0xfe, 0xff]) {
                return Some(marked(32, true));
            }
            if line.starts_with(&[0xff, 0xfe, 0, 0]) {
                return Some(marked(32, false));
            }
            if line.starts_with(&[0xfe, 0xff]) {
                return Some(marked(16, true));
            }
            if line.starts_with(&[0xff, 0xfe]) {
                return Some(marked(16, false));
            }
        }
        let nuls = line.iter().filter(|&&b| b == 0).count();
        if nuls == 0 || nuls * 4 < line.len() {
            return None;
        }
        // An ASCII character is one byte and three NULs in UTF-32, one NUL in UTF-16;
        // at the start of the file the first byte says which end the NULs are.
        let bits = if line.windows(3).any(|w| w == [0, 0, 0]) {
            32
        } else {
            16
        };
        Some(Wide {
            bits,
            big_endian: at_start.then(|| line.first() == Some(&0)),
            mark: false,
        })
    }

    /// [`Wide::of`] a CSV header, `fields` its fields as read from the start of the
    /// file: the line again, its fields joined by the commas that split them.
    pub(crate) fn of_header<'a>(fields: impl Iterator<Item = &'a [u8]>) -> Option<Wide> {
        let line = fields.collect::<Vec<_>>().join(&b',');
        Wide::of(&line, true)
    }

    /// What is wrong and how to mend it, for an error naming the file: `the file is not
    /// UTF-8 text: …; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)`.
    pub(crate) fn message(self) -> String {
        let order = match self.big_endian {
            Some(true) => " (big-endian)",
            Some(false) => " (little-endian)",
            None => "",
        };
        let bits = self.bits;
        if self.mark {
            // iconv reads the byte order from the mark, and drops it.
            format!(
                "the file is not UTF-8 text: it starts with a UTF-{bits}{order} byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-{bits} -t UTF-8`)"
            )
        } else {
            let from = match self.big_endian {
                Some(true) => format!("UTF-{bits}BE"),
                Some(false) => format!("UTF-{bits}LE"),
                None => format!("UTF-{bits}"),
            };
            format!(
                "the file is not UTF-8 text: its first line has NUL bytes between its characters, so it is probably UTF-{bits}{order}; expected UTF-8 text (convert it with `iconv -f {from} -t UTF-8`)"
            )
        }
    }

    /// The error of a file in UTF-16 or UTF-32, on `line`.
    pub(crate) fn error(self, file: &str, line: u64) -> ReadError {
        ReadError::Format {
            file: file.to_string(),
            line,
            message: self.message(),
        }
    }
}
