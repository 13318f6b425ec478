//! The Catan game log of `acodcha/catan-leaderboard` (`games.txt`): one game per line,
//! newest first (each line dated no later than the line above it),
//!
//! ```text
//! YYYY-MM-DD : <victory points needed> : Name pts, Name pts, ...
//! ```
//!
//! with the players in finishing order. Spacing around `,` and `:` varies. A `*` after a
//! player's points (`Alex 10 * , Mic 10`) marks the winner among players with equal points,
//! on the first of them; equal points without one are ties.
//!
//! [`read`] returns the games oldest first, each with its date as time and an id
//! `DATE#N` (the N-th game of that day, counted in the order played). Games of one day keep the file's chronological
//! order (the reverse of the lines), so a stable sort by time rates them as played.
//! Finishes are places: equal points share a place, except that a starred player takes the
//! place above the others with the same points. [`read_scores`] gives the victory points
//! as scores instead (higher is better, a starred player half a point above the others
//! with the same points, so the places are the same), for the systems that read margins.
//!
//! ```
//! let log = "2020-10-16 : 10 : Alex 10 * , Mic 10 , Jess 9\n\
//!            2020-10-16 : 10 : Mic 10, Alex 7, Jess 7\n";
//! let games = podium_io::datasets::catan::read("games.txt", log.as_bytes()).unwrap();
//! assert_eq!(games[0].id(), "2020-10-16#1"); // the last line is the earlier game
//! assert_eq!(games[0].place(1), 2); // Alex and Jess tie for 2nd
//! assert_eq!(games[1].place(1), 2); // Mic 10 is 2nd behind the starred Alex 10
//! ```

use std::collections::HashMap;
use std::io::BufRead;

use podium::{Finish, Match, ResultRow};

use super::{field_error, match_error};
use crate::error::ReadError;
use crate::time::parse_time;

/// One parsed line, before ids are given.
struct Game {
    line: u64,
    date: String,
    time: i64,
    /// `(name, place, score)` in listed order; the score is the victory points, plus
    /// one half for a star.
    players: Vec<(String, u32, f64)>,
}

/// Reads a whole game log and returns its games oldest first.
///
/// Blank lines are ignored.
///
/// # Errors
/// [`ReadError`] naming `file`, the line and the field of the first line that is not a
/// game: a missing ` : ` part or one too many, a bad date, victory points or player
/// points, players not listed in finishing order, a misplaced `*` (one not on the first of
/// equal points, or after points no player below shares), a player listed twice or a game
/// of one player; a line dated later than the line above it (naming both), or a log
/// whose first line is older than its last; and a log without any game (empty, or blank
/// lines only).
pub fn read(file: &str, input: impl BufRead) -> Result<Vec<Match>, ReadError> {
    read_as(file, input, false)
}

/// Like [`read`], but each player's finish is a score, the victory points (a starred
/// player half a point above the others with the same points): the places are those of
/// [`read`], and the systems that read margins see them.
///
/// # Errors
/// As [`read`].
pub fn read_scores(file: &str, input: impl BufRead) -> Result<Vec<Match>, ReadError> {
    read_as(file, input, true)
}

fn read_as(file: &str, input: impl BufRead, scores: bool) -> Result<Vec<Match>, ReadError> {
    let mut games = Vec::new();
    for item in super::numbered_lines(file, input) {
        let (line, text) = item?;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        games.push(parse_line(file, line, text)?);
    }
    if games.is_empty() {
        // Most likely the wrong file; a log of no game would print nothing to rate.
        return Err(ReadError::Format {
            file: file.to_string(),
            line: 1,
            message: "no game in the log: expected one game per line, `YYYY-MM-DD : <victory points> : Name pts, Name pts, ...`".to_string(),
        });
    }
    // A log that runs oldest first would have the games of each day rated in reverse
    // (their order is read from the lines): refuse it rather than guess.
    if let (Some(first), Some(last)) = (games.first(), games.last()) {
        if first.time < last.time {
            return Err(ReadError::Format {
                file: file.to_string(),
                line: last.line,
                message: format!(
                    "the log runs oldest first ({} on line {}, {} on line {}): this log lists the newest game first, so that the games of a day are read in the order played; reverse the file's lines (e.g. `tac`)",
                    first.date, first.line, last.date, last.line
                ),
            });
        }
    }
    // Every game is no newer than the one above it: one out of place would be rated out
    // of turn, and its day's games numbered out of the order played.
    if let Some(w) = games.windows(2).find(|w| w[1].time > w[0].time) {
        let (above, below) = (&w[0], &w[1]);
        return Err(ReadError::Format {
            file: file.to_string(),
            line: below.line,
            message: format!(
                "a game dated {} below one dated {} on line {}: this log lists the newest game first, so each line is dated no later than the line above it (move the game to its place among the dates)",
                below.date, above.date, above.line
            ),
        });
    }
    // The file is newest first: reverse it so that games are oldest first, then number
    // the games of each day in the order they were played.
    games.reverse();
    let mut out = Vec::with_capacity(games.len());
    let mut per_day: HashMap<String, u32> = HashMap::new();
    for g in games {
        let n = per_day.entry(g.date.clone()).or_default();
        *n += 1;
        let id = format!("{}#{}", g.date, n);
        let rows = g
            .players
            .into_iter()
            .map(|(player, place, score)| ResultRow {
                player,
                team: None,
                finish: if scores {
                    Finish::Score(score)
                } else {
                    Finish::Rank(f64::from(place))
                },
                weight: 1.0,
                factors: Vec::new(),
            });
        let m = Match::from_rows(id.clone(), Some(g.time), rows)
            .map_err(|e| match_error(file, g.line, &id, e))?;
        out.push(m);
    }
    Ok(out)
}

fn parse_line(file: &str, line: u64, text: &str) -> Result<Game, ReadError> {
    let mut parts = text.splitn(3, ':');
    let (Some(date), Some(vp), Some(players)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(ReadError::Format {
            file: file.to_string(),
            line,
            message: format!(
                "{text:?} is not a game: expected `YYYY-MM-DD : <victory points> : Name pts, Name pts, ...`"
            ),
        });
    };
    let date = date.trim();
    let time = parse_time(date)
        .filter(|_| date.len() == 10)
        .ok_or_else(|| field_error(file, line, "date", date, "a date YYYY-MM-DD"))?;
    let vp = vp.trim();
    if vp.parse::<u32>().map_or(true, |v| v == 0) {
        return Err(field_error(
            file,
            line,
            "victory points",
            vp,
            "the victory points needed to win (a positive whole number)",
        ));
    }
    if players.contains(':') {
        // `DATE : VP : A 10, B 9 : C 8` would make a player `B 9 : C`.
        return Err(field_error(
            file,
            line,
            "players",
            players.trim(),
            "`Name pts, Name pts, ...` after the second `:`, with no further `:` (one game per line, `YYYY-MM-DD : <victory points> : Name pts, ...`)",
        ));
    }
    // `(name, points, starred, as written)`.
    let mut listed: Vec<(String, u32, bool, &str)> = Vec::new();
    for part in players.split(',') {
        let part = part.trim();
        let (rest, star) = match part.strip_suffix('*') {
            Some(rest) => (rest.trim_end(), true),
            None => (part, false),
        };
        let Some((name, pts)) = rest.rsplit_once(char::is_whitespace) else {
            return Err(field_error(
                file,
                line,
                "player",
                part,
                "`Name points` (e.g. `Alex 10`), players separated by commas",
            ));
        };
        let name = name.trim();
        let points: u32 = pts.parse().map_err(|_| {
            field_error(
                file,
                line,
                "points",
                pts,
                &format!("the victory points of {name} (a whole number)"),
            )
        })?;
        if name.is_empty() {
            return Err(field_error(file, line, "player", part, "a player name"));
        }
        if let Some(&(ref prev, prev_points, prev_star, prev_part)) = listed.last() {
            if points > prev_points {
                return Err(field_error(
                    file,
                    line,
                    "points",
                    pts,
                    &format!(
                        "at most the {prev_points} points of {prev}, listed above {name} (players are listed in finishing order)"
                    ),
                ));
            }
            if star && points == prev_points {
                let why = if prev_star {
                    format!("one `*` among equal points, but {prev} has one too")
                } else {
                    format!(
                        "the `*` on the first of the players with {points} points ({prev}), who is listed above {name}"
                    )
                };
                return Err(field_error(file, line, "*", part, &why));
            }
            if prev_star && points < prev_points {
                return Err(unequal_star(file, line, prev_part, prev, prev_points));
            }
        }
        listed.push((name.to_string(), points, star, part));
    }
    if let Some(&(ref last, points, true, part)) = listed.last() {
        return Err(unequal_star(file, line, part, last, points));
    }
    // Places: equal points share a place unless the player above them is starred.
    // Scores: the points, half a point more for a star, which gives the same places.
    let mut players = Vec::with_capacity(listed.len());
    let mut prev: Option<(u32, bool, u32)> = None; // (points, starred, place)
    for (i, (name, points, star, _)) in listed.into_iter().enumerate() {
        let place = match prev {
            Some((p, false, place)) if p == points => place,
            _ => i as u32 + 1,
        };
        prev = Some((points, star, place));
        let score = f64::from(points) + if star { 0.5 } else { 0.0 };
        players.push((name, place, score));
    }
    Ok(Game {
        line,
        date: date.to_string(),
        time,
        players,
    })
}

/// The error of a `*` on `name`'s `points` (written `part`) that no player after him
/// shares: a star tells apart players with equal points, and there are none.
fn unequal_star(file: &str, line: u64, part: &str, name: &str, points: u32) -> ReadError {
    field_error(
        file,
        line,
        "*",
        part,
        &format!(
            "no `*` after the points of {name}: a `*` marks the winner among players with equal points, and no player listed after {name} has {points} points"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(m: &Match) -> Vec<(String, usize)> {
        m.players()
            .map(|(e, p)| (p.player.clone(), m.place(e)))
            .collect()
    }

    fn one(text: &str) -> Match {
        let mut games = read("g.txt", text.as_bytes()).unwrap();
        assert_eq!(games.len(), 1);
        games.remove(0)
    }

    fn err(text: &str) -> String {
        read("g.txt", text.as_bytes()).unwrap_err().to_string()
    }

    fn p(name: &str, place: usize) -> (String, usize) {
        (name.to_string(), place)
    }

    #[test]
    fn newest_first_becomes_oldest_first_with_stable_day_numbers() {
        let log = "2022-06-21 : 10 : Jess 10, Mic 9, Rachel 8\n\
                   2022-06-21 : 10 : Mic 10, Jess 7, Rachel 6\n\
                   2022-06-20 : 10 : Rachel 10, Mic 8, Jess 6\n";
        let games = read("g.txt", log.as_bytes()).unwrap();
        let ids: Vec<_> = games.iter().map(Match::id).collect();
        // The bottom line is the oldest game; the games of a day count up from the bottom.
        assert_eq!(ids, ["2022-06-20#1", "2022-06-21#1", "2022-06-21#2"]);
        let winners: Vec<_> = games
            .iter()
            .map(|g| g.entries()[0].members[0].player.as_str())
            .collect();
        assert_eq!(winners, ["Rachel", "Mic", "Jess"]);
        assert_eq!(games[0].time(), parse_time("2022-06-20"));
        assert_eq!(games[2].time(), parse_time("2022-06-21"));
    }

    #[test]
    fn regression_a_line_with_an_extra_colon_is_refused_not_a_player_named_with_it() {
        assert_eq!(
            err("2024-01-01 : 10 : A 10, B 9 : C 8\n"),
            "g.txt:1: field `players`: \"A 10, B 9 : C 8\" is not valid, expected `Name pts, \
             Name pts, ...` after the second `:`, with no further `:` (one game per line, \
             `YYYY-MM-DD : <victory points> : Name pts, ...`)"
        );
    }

    #[test]
    fn regression_a_log_without_a_game_is_refused() {
        for log in ["", "\n  \n"] {
            assert_eq!(
                err(log),
                "g.txt:1: no game in the log: expected one game per line, \
                 `YYYY-MM-DD : <victory points> : Name pts, Name pts, ...`"
            );
        }
    }

    #[test]
    fn a_log_that_runs_oldest_first_is_refused() {
        let log = "2024-01-01 : 10 : A 10, B 9\n\
                   2024-01-02 : 10 : B 10, A 7\n\
                   2024-01-02 : 10 : A 10, B 8\n";
        assert_eq!(
            err(log),
            "g.txt:3: the log runs oldest first (2024-01-01 on line 1, 2024-01-02 on line 3): this log lists the newest game first, so that the games of a day are read in the order played; reverse the file's lines (e.g. `tac`)"
        );
        // Newest first, the same games read.
        let newest: String = log
            .lines()
            .rev()
            .map(|l| format!("{}\n", l.trim()))
            .collect();
        assert_eq!(read("g.txt", newest.as_bytes()).unwrap().len(), 3);
    }

    #[test]
    fn a_line_out_of_date_order_is_refused_naming_both_lines() {
        // The first line is newer than the last, but the second is newer than the first.
        let log = "2020-01-03 : 10 : A 10, B 9\n\
                   \n\
                   2020-01-05 : 10 : A 10, B 8\n\
                   2020-01-01 : 10 : B 10, A 7\n";
        let expected = "g.txt:3: a game dated 2020-01-05 below one dated 2020-01-03 on line 1: this log lists the newest game first, so each line is dated no later than the line above it (move the game to its place among the dates)";
        assert_eq!(err(log), expected);
        assert_eq!(
            read_scores("g.txt", log.as_bytes())
                .unwrap_err()
                .to_string(),
            expected
        );
        // Further down, the same.
        let log = "2022-06-21 : 10 : A 10, B 9\n\
                   2022-06-20 : 10 : A 10, B 8\n\
                   2022-06-21 : 10 : B 10, A 7\n\
                   2022-06-19 : 10 : B 10, A 7\n";
        assert_eq!(
            err(log),
            "g.txt:3: a game dated 2022-06-21 below one dated 2022-06-20 on line 2: this log lists the newest game first, so each line is dated no later than the line above it (move the game to its place among the dates)"
        );
        // Games of one day may follow each other in any number.
        let log = "2022-06-21 : 10 : A 10, B 9\n\
                   2022-06-21 : 10 : A 10, B 8\n\
                   2022-06-20 : 10 : B 10, A 7\n";
        let ids: Vec<_> = read("g.txt", log.as_bytes())
            .unwrap()
            .iter()
            .map(|m| m.id().to_string())
            .collect();
        assert_eq!(ids, ["2022-06-20#1", "2022-06-21#1", "2022-06-21#2"]);
    }

    #[test]
    fn a_star_without_equal_points_below_is_refused() {
        assert_eq!(
            err("2020-10-16 : 10 : Alex 11 * , Mic 10\n"),
            "g.txt:1: field `*`: \"Alex 11 *\" is not valid, expected no `*` after the points of Alex: a `*` marks the winner among players with equal points, and no player listed after Alex has 11 points"
        );
        // Lower down, and on the last player.
        assert_eq!(
            err("2020-10-16 : 10 : A 10, B 9*, C 8\n"),
            "g.txt:1: field `*`: \"B 9*\" is not valid, expected no `*` after the points of B: a `*` marks the winner among players with equal points, and no player listed after B has 9 points"
        );
        assert_eq!(
            err("2020-10-16 : 10 : A 10, B 9, C 8 *\n"),
            "g.txt:1: field `*`: \"C 8 *\" is not valid, expected no `*` after the points of C: a `*` marks the winner among players with equal points, and no player listed after C has 8 points"
        );
        assert!(read_scores("g.txt", "2020-10-16 : 10 : A 10, B 9*, C 8\n".as_bytes()).is_err());
        // On the first of equal points lower down, it orders them.
        let m = one("2020-10-16 : 10 : A 10, B 9 *, C 9, D 8\n");
        assert_eq!(places(&m), [p("A", 1), p("B", 2), p("C", 3), p("D", 4)]);
    }

    #[test]
    fn equal_points_are_ties() {
        let m = one("2020-10-30 : 10 : Jess 10 , Rachel 8 , Mic 8 , Scott 7\n");
        assert_eq!(
            places(&m),
            [p("Jess", 1), p("Rachel", 2), p("Mic", 2), p("Scott", 4)]
        );
        let m = one("2024-12-31 : 10 : Alex 10, Scott 7, Jess 6, Sean 6, Mic 4, Rachel 4\n");
        assert_eq!(
            places(&m),
            [
                p("Alex", 1),
                p("Scott", 2),
                p("Jess", 3),
                p("Sean", 3),
                p("Mic", 5),
                p("Rachel", 5)
            ]
        );
    }

    #[test]
    fn star_marks_the_winner_among_equal_points() {
        let m = one("2020-09-17 : 10 : Sean 10 * , Jess 10 , Rachel 9 , Scott 8\n");
        assert_eq!(
            places(&m),
            [p("Sean", 1), p("Jess", 2), p("Rachel", 3), p("Scott", 4)]
        );
        assert_eq!(m.winners(), 1);
        // Three on equal points: the starred one wins, the other two tie for second.
        let m = one("2020-10-16 : 10 : Alex 10* , Mic 10 , Jess 10 , Laura 6\n");
        assert_eq!(
            places(&m),
            [p("Alex", 1), p("Mic", 2), p("Jess", 2), p("Laura", 4)]
        );
        // Without the star, equal top points are a tie for the win.
        let m = one("2020-10-16 : 10 : Alex 10 , Mic 10 , Jess 9\n");
        assert_eq!(m.winners(), 2);
    }

    fn scores(m: &Match) -> Vec<(String, f64)> {
        m.players()
            .map(|(e, p)| match m.entries()[e].finish {
                Finish::Score(s) => (p.player.clone(), s),
                Finish::Rank(r) => panic!("{} has rank {r}, expected a score", p.player),
            })
            .collect()
    }

    #[test]
    fn read_gives_places_and_read_scores_the_victory_points_with_the_same_places() {
        let text = "2020-10-16 : 13 : Alex 13 * , Mic 13 , Jess 13 , Laura 6, Sean 6, Bo 0\n";
        let ranks = one(text);
        assert!(ranks
            .entries()
            .iter()
            .all(|e| matches!(e.finish, Finish::Rank(_))));
        let m = read_scores("g.txt", text.as_bytes()).unwrap().remove(0);
        assert_eq!(places(&m), places(&ranks));
        let s = |n: &str, v: f64| (n.to_string(), v);
        assert_eq!(
            scores(&m),
            [
                s("Alex", 13.5),
                s("Mic", 13.0),
                s("Jess", 13.0),
                s("Laura", 6.0),
                s("Sean", 6.0),
                s("Bo", 0.0)
            ]
        );
        // The places are those of the listed order with equal points tied, the starred
        // player alone above them.
        assert_eq!(
            places(&m),
            [
                p("Alex", 1),
                p("Mic", 2),
                p("Jess", 2),
                p("Laura", 4),
                p("Sean", 4),
                p("Bo", 6)
            ]
        );
    }

    #[test]
    fn spacing_quirks() {
        let a = one("2020-10-28 : 10 : Phil 11 , Jess 9, Scott 7,Rachel 7 ,  Mic 7\r\n");
        let b = one("2020-10-28:10:Phil 11,Jess 9,Scott 7,Rachel 7,Mic 7");
        assert_eq!(a, b);
        assert_eq!(
            places(&a),
            [
                p("Phil", 1),
                p("Jess", 2),
                p("Scott", 3),
                p("Rachel", 3),
                p("Mic", 3)
            ]
        );
        // Blank lines are skipped; line numbers still count them.
        let games = read("g.txt", "\n2020-10-28 : 10 : A 10, B 3\n\n".as_bytes()).unwrap();
        assert_eq!(games.len(), 1);
        assert!(err("\n\n2020-10-28 : 10 : A 10, B\n").starts_with("g.txt:3: field `player`"));
    }

    #[test]
    fn errors_name_line_and_field() {
        assert_eq!(
            err("2020-10-28 : 10 : A 10, B 3\n2020-10-27 : 10 : A 10, B x\n"),
            "g.txt:2: field `points`: \"x\" is not valid, expected the victory points of B (a whole number)"
        );
        assert!(err("2020-13-28 : 10 : A 10, B 3").starts_with("g.txt:1: field `date`"));
        assert!(err("2020-10-28 : ten : A 10, B 3").starts_with("g.txt:1: field `victory points`"));
        assert!(err("2020-10-28 : A 10, B 3")
            .starts_with("g.txt:1: \"2020-10-28 : A 10, B 3\" is not a game"));
        assert!(err("2020-10-28 : 10 : A 7, B 9").contains("finishing order"));
        assert!(err("2020-10-28 : 10 : A 10, B 10 *").contains("`*` on the first"));
        assert!(err("2020-10-28 : 10 : A 10 *, B 10 *").contains("one `*`"));
        let e = err("2020-10-28 : 10 : A 10, A 3");
        assert!(
            e.starts_with("g.txt:1: match \"2020-10-28#1\", field `player`"),
            "{e}"
        );
        assert!(err("2020-10-28 : 10 : A 10").contains("at least 2 entries"));
    }

    #[test]
    fn regression_text_that_is_not_utf8_names_its_line() {
        let text = &b"2024-05-02 : 10 : Ann 10, Bo 8\r\n2024-05-01 : 10 : B\xe9a 10, Bo 8\n"[..];
        let err = read("games.txt", text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "games.txt:2: not UTF-8 text: byte 20 of the line cannot start a character"
        );
    }
}
