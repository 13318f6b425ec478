//! Codeforces contest standings, as in the Elo-MMR repository's early `Standings/<id>.txt`
//! files: line 1 holds the number N of ranked contestants, then N lines
//! `handle rankLo rankHi`, best first. `rankLo < rankHi` is a tie shared over the places
//! `rankLo..=rankHi`: every contestant of it gets place `rankLo`, so they form one tie
//! group. The files have no dates; contests are ordered by their numeric id.
//!
//! Ties are recognised by equal `rankLo`, which is also the place. A few files have rows
//! whose `rankHi` is below `rankLo` (contest 589 has 1,286 such rows, `rankHi = rankLo − 1`
//! while the order and `rankLo` stay consistent): they are read by `rankLo` and counted in
//! [`Contest::Match::reversed_ranges`] so that the converter can say so.
//!
//! An empty file, or one with N = 0, is a contest without results and is skipped; so is a
//! contest with a single contestant, which is not a match. Anything else that does not
//! fit the format is an error naming file, line and field.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use podium::{Finish, Match};

use crate::error::ReadError;

/// What reading one contest file gave.
#[derive(Debug)]
pub enum Contest {
    /// A contest with at least two contestants.
    Match {
        /// The contest as a match.
        game: Match,
        /// Rows whose `rankHi` was below their `rankLo` (read by `rankLo`).
        reversed_ranges: u64,
    },
    /// A file without a match in it, and why.
    Skipped {
        /// The file.
        file: String,
        /// Why it holds no match.
        reason: &'static str,
    },
}

/// Reads one standings file; `id` becomes the match id.
///
/// # Errors
/// [`ReadError`] naming the file and line when the count, a row or a rank is malformed,
/// or when the number of rows differs from the count on line 1.
pub fn read_contest(file: &str, id: &str, input: impl BufRead) -> Result<Contest, ReadError> {
    let format = |line: u64, message: String| ReadError::Format {
        file: file.to_string(),
        line,
        message,
    };
    let field = |line: u64, field: &str, value: &str, expected: &str| ReadError::Field {
        file: file.to_string(),
        line,
        match_id: Some(id.to_string()),
        field: field.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    };
    let mut lines = super::numbered_lines(file, input);
    let declared: usize = match lines.next() {
        None => {
            return Ok(Contest::Skipped {
                file: file.to_string(),
                reason: "empty file",
            })
        }
        Some(first) => {
            let (_, first) = first?;
            let t = first.trim();
            t.parse()
                .map_err(|_| field(1, "count", t, "the number of contestants"))?
        }
    };
    let mut builder = Match::builder(id);
    let mut rows = 0usize;
    let mut last_lo = 0u64;
    let mut reversed = 0u64;
    for item in lines {
        let (line_no, line) = item?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(handle), Some(lo), Some(hi), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format(
                line_no,
                format!("expected `handle rankLo rankHi`, found {line:?}"),
            ));
        };
        let lo: u64 = lo
            .parse()
            .ok()
            .filter(|v| *v >= 1)
            .ok_or_else(|| field(line_no, "rankLo", lo, "a place ≥ 1"))?;
        let hi_v: u64 = hi
            .parse()
            .map_err(|_| field(line_no, "rankHi", hi, "a place"))?;
        if hi_v < lo {
            reversed += 1;
        }
        if lo < last_lo {
            return Err(field(
                line_no,
                "rankLo",
                &lo.to_string(),
                "standings best first (rankLo not below the previous row's)",
            ));
        }
        last_lo = lo;
        builder = builder.player(handle, Finish::Rank(lo as f64));
        rows += 1;
    }
    if rows != declared {
        return Err(format(
            1,
            format!("line 1 declares {declared} contestants but the file lists {rows}"),
        ));
    }
    if rows == 0 {
        return Ok(Contest::Skipped {
            file: file.to_string(),
            reason: "no contestants",
        });
    }
    if rows == 1 {
        return Ok(Contest::Skipped {
            file: file.to_string(),
            reason: "a single contestant is not a match",
        });
    }
    builder
        .build()
        .map(|game| Contest::Match {
            game,
            reversed_ranges: reversed,
        })
        .map_err(|e| ReadError::Match {
            file: file.to_string(),
            line: 2,
            match_id: id.to_string(),
            field: "handle",
            source: Box::new(e),
        })
}

/// The standings files of a directory (`<id>.txt`), in numeric id order. Other files are
/// ignored.
///
/// # Errors
/// [`ReadError::Io`] when the directory cannot be listed, [`ReadError::Inputs`] when two
/// files name one contest (`01.txt` and `1.txt`).
pub fn contest_files(dir: &Path) -> Result<Vec<(u64, PathBuf)>, ReadError> {
    let io = |source| ReadError::Io {
        file: dir.display().to_string(),
        source,
    };
    let mut out: Vec<(u64, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("txt") {
            continue;
        }
        if let Some(id) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<u64>().ok())
        {
            out.push((id, path));
        }
    }
    out.sort();
    // `01.txt` and `1.txt` would be one contest read twice, or two merged into one id.
    if let Some(pair) = out.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(ReadError::Inputs {
            message: format!(
                "{} and {} both hold contest {}: keep one file per contest",
                pair[0].1.display(),
                pair[1].1.display(),
                pair[0].0
            ),
        });
    }
    Ok(out)
}

/// Reads every contest of a directory in id order (see [`contest_files`]).
///
/// # Errors
/// As [`contest_files`]; each item as [`read_contest`].
pub fn read_dir(dir: &Path) -> Result<impl Iterator<Item = Result<Contest, ReadError>>, ReadError> {
    let files = contest_files(dir)?;
    Ok(files.into_iter().map(|(id, path)| {
        let name = path.display().to_string();
        let f = File::open(&path).map_err(|source| ReadError::Io {
            file: name.clone(),
            source,
        })?;
        read_contest(&name, &id.to_string(), BufReader::new(f))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Contest, ReadError> {
        read_contest("7.txt", "7", text.as_bytes())
    }

    #[test]
    fn rank_ranges_are_ties() {
        let Contest::Match {
            game: m,
            reversed_ranges: 0,
        } = read("4\na 1 1\nb 2 3\nc 2 3\nd 4 4\n").unwrap()
        else {
            panic!("a match")
        };
        assert_eq!(m.id(), "7");
        assert_eq!(m.len(), 4);
        assert_eq!(m.place(1), 2);
        assert!(m.tied(1, 2));
        assert!(!m.tied(0, 1));
        assert_eq!(m.place(3), 4);
    }

    #[test]
    fn reversed_ranges_are_read_by_rank_lo_and_counted() {
        // As contest 589: rankHi one below rankLo.
        let Contest::Match {
            game,
            reversed_ranges,
        } = read("3\na 1 1\nb 3 2\nc 4 3\n").unwrap()
        else {
            panic!("a match")
        };
        assert_eq!(reversed_ranges, 2);
        assert_eq!((game.place(1), game.place(2)), (2, 3));
    }

    #[test]
    fn empty_and_single_contests_are_skipped() {
        for text in ["", "0\n", "1\nsolo 1 1\n"] {
            assert!(
                matches!(read(text).unwrap(), Contest::Skipped { .. }),
                "{text:?}"
            );
        }
    }

    #[test]
    fn malformed_files_name_the_line_and_field() {
        let e = read("2\na 1 1\nb x 2\n").unwrap_err().to_string();
        assert!(e.contains("7.txt:3") && e.contains("rankLo"), "{e}");
        let e = read("2\na 1 1\nb x\n").unwrap_err().to_string();
        assert!(e.contains("7.txt:3"), "{e}");
        let e = read("2\nb 2 2\na 1 1\n").unwrap_err().to_string();
        assert!(e.contains("7.txt:3") && e.contains("best first"), "{e}");
        let e = read("3\na 1 1\nb 2 2\n").unwrap_err().to_string();
        assert!(e.contains("declares 3"), "{e}");
        let e = read("two\n").unwrap_err().to_string();
        assert!(e.contains("7.txt:1") && e.contains("count"), "{e}");
        let e = read("2\na 1 1 extra\nb 2 2\n").unwrap_err().to_string();
        assert!(e.contains("7.txt:2"), "{e}");
        let e = read("2\na 1 1\na 2 2\n").unwrap_err().to_string();
        assert!(e.contains("more than once"), "{e}");
    }

    #[test]
    fn regression_text_that_is_not_utf8_names_its_line() {
        let err = read_contest("7.txt", "7", &b"2\nann 1 1\nb\xe9 2 2\n"[..]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "7.txt:3: not UTF-8 text: byte 2 of the line cannot start a character"
        );
    }

    #[test]
    fn regression_two_files_of_one_contest_are_refused() {
        // `01.txt` and `1.txt` were merged into one contest.
        let dir = std::env::temp_dir().join(format!("podium-cf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("1.txt"), "2\nann 1 1\nbo 2 2\n").unwrap();
        std::fs::write(dir.join("01.txt"), "2\nann 1 1\nbo 2 2\n").unwrap();
        std::fs::write(dir.join("2.txt"), "2\nann 1 1\nbo 2 2\n").unwrap();
        let err = contest_files(&dir).unwrap_err().to_string();
        let (a, b) = (dir.join("01.txt"), dir.join("1.txt"));
        assert_eq!(
            err,
            format!(
                "{} and {} both hold contest 1: keep one file per contest",
                a.display(),
                b.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
