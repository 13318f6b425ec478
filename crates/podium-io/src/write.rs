//! Writes matches as long CSV (`match,player,rank[,team][,time][,weight]`), the format the
//! dataset converters print and `podium rate` reads.

use std::io::Write;

use podium::{Finish, Match};

/// Writes matches as long CSV; the header is written before the first match.
pub struct LongCsvWriter<W: Write> {
    out: csv::Writer<W>,
    header: bool,
}

impl<W: Write> LongCsvWriter<W> {
    /// A writer on `out`.
    pub fn new(out: W) -> Self {
        LongCsvWriter {
            out: csv::Writer::from_writer(out),
            header: false,
        }
    }

    /// Writes one match: one row per player, ranks as places (`score` when the match was
    /// given by scores), teams, times and partial-play weights when present.
    ///
    /// # Errors
    /// Any I/O error of the output.
    pub fn write(&mut self, m: &Match) -> std::io::Result<()> {
        if !self.header {
            self.out
                .write_record(["match", "player", "rank", "score", "team", "time", "weight"])?;
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
                self.out.write_record([
                    m.id(),
                    &mem.player,
                    &rank,
                    &score,
                    e.team.as_deref().unwrap_or(""),
                    &time,
                    &weight,
                ])?;
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
}
