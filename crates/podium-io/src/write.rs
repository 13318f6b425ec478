//! Writes matches as long CSV (`match,player,rank[,team][,time][,weight]`, then one column
//! per factor kind), the format the dataset converters print and `podium rate` reads
//! (factor columns with `--factor KIND`).

use std::io::{self, Write};

use podium::{Finish, Match};

use crate::csv_long::KNOWN_COLUMNS;

/// Writes matches as long CSV; the header is written before the first match.
///
/// The entries' factors ([`podium::factor`]) go in one column per kind, after the
/// format's columns: the kinds declared with [`LongCsvWriter::factor_kinds`], then those
/// of the first match in order of appearance. A file so written reads back the same with
/// those columns named as factor columns ([`crate::ReadOptions`]).
pub struct LongCsvWriter<W: Write> {
    out: csv::Writer<W>,
    header: bool,
    kinds: Vec<String>,
    row: Vec<String>,
}

impl<W: Write> LongCsvWriter<W> {
    /// A writer on `out`.
    pub fn new(out: W) -> Self {
        LongCsvWriter {
            out: csv::Writer::from_writer(out),
            header: false,
            kinds: Vec::new(),
            row: Vec::new(),
        }
    }

    /// Declares factor columns before the first match is written (for kinds that the
    /// first match lacks but later ones have).
    #[must_use]
    pub fn factor_kinds<I: IntoIterator<Item = S>, S: Into<String>>(mut self, kinds: I) -> Self {
        for k in kinds {
            let k = k.into();
            if !self.kinds.contains(&k) {
                self.kinds.push(k);
            }
        }
        self
    }

    /// Writes one match: one row per player, ranks as places (`score` when the match was
    /// given by scores), teams, times, partial-play weights and factors when present.
    ///
    /// # Errors
    /// Any I/O error of the output; [`io::ErrorKind::InvalidInput`] for a factor kind
    /// that has no column (not declared, and not in the first match) or is named as a
    /// column of the format.
    pub fn write(&mut self, m: &Match) -> io::Result<()> {
        if !self.header {
            for e in m.entries() {
                for f in &e.factors {
                    if !self.kinds.contains(&f.kind) {
                        self.kinds.push(f.kind.clone());
                    }
                }
            }
            if let Some(k) = self
                .kinds
                .iter()
                .find(|k| KNOWN_COLUMNS.iter().any(|c| c.eq_ignore_ascii_case(k)))
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("factor kind {k:?} is the name of a column of the format"),
                ));
            }
            let mut header = vec!["match", "player", "rank", "score", "team", "time", "weight"];
            header.extend(self.kinds.iter().map(String::as_str));
            self.out.write_record(header).map_err(io_error)?;
            self.header = true;
        }
        let time = m.time().map(crate::time::format_time).unwrap_or_default();
        for e in m.entries() {
            let (rank, score) = match e.finish {
                Finish::Rank(v) => (fmt_num(v), String::new()),
                Finish::Score(v) => (String::new(), fmt_num(v)),
            };
            for mem in &e.members {
                let weight = if mem.weight == 1.0 {
                    String::new()
                } else {
                    fmt_num(mem.weight)
                };
                self.row.clear();
                self.row.extend(
                    [
                        m.id(),
                        &mem.player,
                        &rank,
                        &score,
                        e.team.as_deref().unwrap_or(""),
                        &time,
                        &weight,
                    ]
                    .map(str::to_string),
                );
                self.row.resize(7 + self.kinds.len(), String::new());
                for f in &e.factors {
                    let Some(k) = self.kinds.iter().position(|k| *k == f.kind) else {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!(
                                "match {:?}: factor kind {:?} has no column (declare it before the first match)",
                                m.id(),
                                f.kind
                            ),
                        ));
                    };
                    self.row[7 + k].clone_from(&f.value);
                }
                self.out.write_record(&self.row).map_err(io_error)?;
            }
        }
        Ok(())
    }

    /// Flushes the output.
    ///
    /// # Errors
    /// Any I/O error of the output.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// An error of the CSV writer as an I/O error of its kind: a closed standard output stays
/// [`io::ErrorKind::BrokenPipe`], for the caller to stop quietly as on any other.
fn io_error(e: csv::Error) -> io::Error {
    let kind = match e.kind() {
        csv::ErrorKind::Io(io) => io.kind(),
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e)
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsvMatches;

    /// An output that is closed: every write fails as on a pipe whose reader left.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn regression_a_closed_output_is_said_to_be_one() {
        // The error was of kind `Other`, so `podium import … | head` failed with
        // `error: Broken pipe (os error 32)` where `podium rate … | head` stops quietly.
        let m = Match::with_places("g1", &[("a", 1), ("b", 2)]).unwrap();
        let mut out = LongCsvWriter::new(Closed);
        let mut first = Ok(());
        // The CSV writer buffers: the error comes when its buffer is full.
        for _ in 0..10_000 {
            first = out.write(&m);
            if first.is_err() {
                break;
            }
        }
        assert_eq!(first.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(out.flush().unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn written_csv_reads_back_the_same() {
        let a = Match::with_places("g1", &[("a", 1), ("b", 2), ("c", 2)]).unwrap();
        let b = Match::builder("g2")
            .team("red", ["a", "b"], Finish::Score(3.5))
            .weighted_player("c", Finish::Score(4.0), 0.25)
            .build()
            .unwrap();
        let mut w = LongCsvWriter::new(Vec::new());
        w.write(&a).unwrap();
        w.write(&b).unwrap();
        w.flush().unwrap();
        let text = String::from_utf8(w.out.into_inner().unwrap()).unwrap();
        let back: Vec<Match> = CsvMatches::new("x", text.as_bytes())
            .map(Result::unwrap)
            .collect();
        assert_eq!(back, [a, b]);
    }

    #[test]
    fn factors_are_written_as_columns_that_read_back() {
        let a = Match::builder("r1")
            .player("ann", Finish::Rank(1.0))
            .factor("car", "red")
            .player("bo", Finish::Rank(2.0))
            .factor("car", "blue, old")
            .build()
            .unwrap();
        let b = Match::builder("r2")
            .player("ann", Finish::Rank(1.0))
            .factor("seat", "1")
            .player("bo", Finish::Rank(2.0))
            .factor("car", "red")
            .build()
            .unwrap();
        let mut w = LongCsvWriter::new(Vec::new()).factor_kinds(["seat"]);
        w.write(&a).unwrap();
        w.write(&b).unwrap();
        w.flush().unwrap();
        let text = String::from_utf8(w.out.into_inner().unwrap()).unwrap();
        assert!(
            text.starts_with("match,player,rank,score,team,time,weight,seat,car\n"),
            "{text}"
        );
        let options = crate::ReadOptions::with_factors(["seat", "car"]);
        let back: Vec<Match> = CsvMatches::with_options("x", text.as_bytes(), &options)
            .map(Result::unwrap)
            .collect();
        assert_eq!(back, [a, b.clone()]);
        // A kind with no column is refused, not dropped.
        let mut w = LongCsvWriter::new(Vec::new());
        w.write(&Match::with_places("g", &[("a", 1), ("b", 2)]).unwrap())
            .unwrap();
        let err = w.write(&b).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }
}
