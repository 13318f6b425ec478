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
//! An empty file, one with N = 0 and one of a single contestant (not a match) hold no
//! match: each is [`Contest::Skipped`] with its file and the reason, for the converter to
//! say. In a directory, a `.txt` file whose name is not a contest id (`notes.txt`,
//! `123 (1).txt`) is no standings file: [`ContestFiles::other`] lists it, for the
//! converter to say it is left out. Anything else that does not fit the format is an
//! error naming file, line and field.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use podium::{Finish, Match};

use crate::error::{player_of, ReadError};

/// What reading one contest file gave.
#[derive(Debug)]
pub enum Contest {
    /// A contest with at least two contestants.
    Match {
        /// The file.
        file: String,
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

/// Why a file holds no match: it is empty.
pub const EMPTY: &str = "empty";
/// Why a file holds no match: line 1 counts no contestant.
pub const NO_CONTESTANTS: &str = "line 1 counts 0 contestants";
/// Why a file holds no match: one contestant is not a match.
pub const SINGLE: &str = "a single contestant, which is not a match";

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
                reason: EMPTY,
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
    // Each handle's line, to name both lines of a handle listed twice.
    let mut lines_of: HashMap<String, u64> = HashMap::new();
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
        if let Some(first) = lines_of.insert(handle.to_string(), line_no) {
            return Err(field(
                line_no,
                "handle",
                handle,
                &format!("each handle once in the standings (also on line {first})"),
            ));
        }
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
            reason: NO_CONTESTANTS,
        });
    }
    if rows == 1 {
        return Ok(Contest::Skipped {
            file: file.to_string(),
            reason: SINGLE,
        });
    }
    builder
        .build()
        .map(|game| Contest::Match {
            file: file.to_string(),
            game,
            reversed_ranges: reversed,
        })
        .map_err(|e| ReadError::Match {
            file: file.to_string(),
            // The row of the handle the error names, else the first row.
            line: player_of(&e)
                .and_then(|handle| lines_of.get(handle).copied())
                .unwrap_or(2),
            match_id: id.to_string(),
            field: "handle",
            source: Box::new(e),
        })
}

/// The `.txt` files of a standings directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContestFiles {
    /// The standings files (`<id>.txt`), in numeric id order.
    pub contests: Vec<(u64, PathBuf)>,
    /// The other `.txt` files, whose name is not a contest id (`notes.txt`,
    /// `123 (1).txt`), by name: not read.
    pub other: Vec<PathBuf>,
}

/// The standings files of a directory (`<id>.txt`), in numeric id order, and the other
/// `.txt` files, which are not read. Files of other extensions are not listed.
///
/// # Errors
/// [`ReadError::Io`] when the directory cannot be listed, [`ReadError::Inputs`] when two
/// files name one contest (`01.txt` and `1.txt`).
pub fn contest_files(dir: &Path) -> Result<ContestFiles, ReadError> {
    let io = |source| ReadError::Io {
        file: dir.display().to_string(),
        source,
    };
    let mut out: Vec<(u64, PathBuf)> = Vec::new();
    let mut other: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("txt") {
            continue;
        }
        match path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<u64>().ok())
        {
            Some(id) => out.push((id, path)),
            None => other.push(path),
        }
    }
    out.sort();
    other.sort();
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
    Ok(ContestFiles {
        contests: out,
        other,
    })
}

/// Reads every contest of a directory in id order (see [`contest_files`]), with the
/// other `.txt` files, which are not read ([`ContestFiles::other`]).
///
/// # Errors
/// As [`contest_files`]; each item as [`read_contest`].
pub fn read_dir(
    dir: &Path,
) -> Result<
    (
        impl Iterator<Item = Result<Contest, ReadError>>,
        Vec<PathBuf>,
    ),
    ReadError,
> {
    let ContestFiles { contests, other } = contest_files(dir)?;
    let read = contests.into_iter().map(|(id, path)| {
        let name = path.display().to_string();
        let f = File::open(&path).map_err(|source| ReadError::Io {
            file: name.clone(),
            source,
        })?;
        read_contest(&name, &id.to_string(), BufReader::new(f))
    });
    Ok((read, other))
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
            ..
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
            ..
        } = read("3\na 1 1\nb 3 2\nc 4 3\n").unwrap()
        else {
            panic!("a match")
        };
        assert_eq!(reversed_ranges, 2);
        assert_eq!((game.place(1), game.place(2)), (2, 3));
    }

    #[test]
    fn empty_and_single_contests_are_skipped_saying_why() {
        for (text, why) in [
            ("", EMPTY),
            ("0\n", NO_CONTESTANTS),
            ("1\nsolo 1 1\n", SINGLE),
        ] {
            let Contest::Skipped { file, reason } = read(text).unwrap() else {
                panic!("{text:?} is skipped");
            };
            assert_eq!((file.as_str(), reason), ("7.txt", why), "{text:?}");
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
    }

    #[test]
    fn a_handle_listed_twice_names_both_of_its_lines() {
        assert_eq!(
            read("4\na 1 1\nb 2 2\nc 3 3\nb 4 4\n")
                .unwrap_err()
                .to_string(),
            "7.txt:5: field `handle`: \"b\" is not valid, expected each handle once in the standings (also on line 3)"
        );
        // Blank lines count.
        assert_eq!(
            read("2\n\nb 1 1\n\nb 2 2\n").unwrap_err().to_string(),
            "7.txt:5: field `handle`: \"b\" is not valid, expected each handle once in the standings (also on line 3)"
        );
    }

    #[test]
    fn a_handle_that_is_no_player_id_names_its_line() {
        let long = "h".repeat(201);
        let e = read(&format!("3\na 1 1\nb 2 2\n{long} 3 3\n")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("7.txt:4: match \"7\", field `handle`"),
            "{e}"
        );
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
    fn txt_files_not_named_by_a_contest_id_are_listed_apart() {
        let dir = std::env::temp_dir().join(format!("podium-cf-other-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["3.txt", "notes.txt", "3 (1).txt", "README.md"] {
            std::fs::write(dir.join(name), "2\nann 1 1\nbo 2 2\n").unwrap();
        }
        let files = contest_files(&dir).unwrap();
        assert_eq!(files.contests, [(3, dir.join("3.txt"))]);
        assert_eq!(files.other, [dir.join("3 (1).txt"), dir.join("notes.txt")]);
        std::fs::remove_dir_all(&dir).unwrap();
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
