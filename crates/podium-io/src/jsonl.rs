//! JSON Lines: one match per line,
//! `{"match":"g1","time":"2024-05-01","results":[{"player":"ann","rank":1},{"player":"bo","rank":2}]}`.
//! Result fields are those of the long CSV (`player`, `rank` or `score`, `team`, `weight`).
//! Blank lines are ignored.

use std::io::BufRead;

use podium::{Finish, Match, ResultRow};
use serde::{Deserialize, Serialize};

use crate::error::{field_of, ReadError};
use crate::time::parse_time;

/// One match as JSON Lines carries it (also the body of the server's match API).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonMatch {
    /// Match id.
    #[serde(rename = "match", alias = "id")]
    pub id: String,
    /// RFC 3339 time or `YYYY-MM-DD` date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// One result per player.
    pub results: Vec<JsonResult>,
}

/// One player's result in a [`JsonMatch`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonResult {
    /// Player id.
    pub player: String,
    /// Place, 1 = best.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<f64>,
    /// Score, higher = better.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Team within the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Partial play, `0 < w ≤ 1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

impl JsonMatch {
    /// Validates into a [`Match`]; `file` and `line` locate errors.
    ///
    /// # Errors
    /// [`ReadError::Field`] for a bad time or a result without rank/score,
    /// [`ReadError::Match`] when the results do not form a valid match.
    pub fn to_match(&self, file: &str, line: u64) -> Result<Match, ReadError> {
        let field = |field: &str, value: String, expected: &str| ReadError::Field {
            file: file.to_string(),
            line,
            match_id: Some(self.id.clone()),
            field: field.to_string(),
            value,
            expected: expected.to_string(),
        };
        let time = match &self.time {
            None => None,
            Some(t) => Some(parse_time(t).ok_or_else(|| {
                field("time", t.clone(), "an RFC 3339 time or a YYYY-MM-DD date")
            })?),
        };
        let mut rows = Vec::with_capacity(self.results.len());
        for (i, r) in self.results.iter().enumerate() {
            let finish = match (r.rank, r.score) {
                (Some(_), Some(v)) => {
                    return Err(field(
                        &format!("results[{i}].score"),
                        v.to_string(),
                        "no score on a result that gives a rank (a result gives one of them)",
                    ))
                }
                (Some(v), None) => Finish::Rank(v),
                (None, Some(v)) => Finish::Score(v),
                (None, None) => {
                    return Err(field(
                        &format!("results[{i}].rank"),
                        String::new(),
                        "a rank (1 = best) or a score (higher = better)",
                    ))
                }
            };
            rows.push(ResultRow {
                player: r.player.clone(),
                team: r.team.clone(),
                finish,
                weight: r.weight.unwrap_or(1.0),
                factors: Vec::new(),
            });
        }
        Match::from_rows(self.id.clone(), time, rows).map_err(|source| ReadError::Match {
            file: file.to_string(),
            line,
            match_id: self.id.clone(),
            field: field_of(&source),
            source: Box::new(source),
        })
    }

    /// The JSON form of a match (times written as RFC 3339 or dates).
    #[must_use]
    pub fn from_match(m: &Match) -> Self {
        let results = m
            .entries()
            .iter()
            .flat_map(|e| {
                e.members.iter().map(move |mem| {
                    let (rank, score) = match e.finish {
                        Finish::Rank(v) => (Some(v), None),
                        Finish::Score(v) => (None, Some(v)),
                    };
                    JsonResult {
                        player: mem.player.clone(),
                        rank,
                        score,
                        team: e.team.clone(),
                        weight: (mem.weight != 1.0).then_some(mem.weight),
                    }
                })
            })
            .collect();
        JsonMatch {
            id: m.id().to_string(),
            time: m.time().map(crate::time::format_time),
            results,
        }
    }
}

/// Streams the matches of a JSON Lines source, one line at a time.
pub struct JsonlMatches<R: BufRead> {
    file: String,
    input: R,
    line: u64,
    buf: Vec<u8>,
    finished: bool,
    recent: crate::group::RecentIds,
    timed: Option<bool>,
}

impl<R: BufRead> JsonlMatches<R> {
    /// Reads JSON Lines from `input`; `file` names it in errors.
    pub fn new(file: impl Into<String>, input: R) -> Self {
        JsonlMatches {
            file: file.into(),
            input,
            line: 0,
            buf: Vec::new(),
            finished: false,
            recent: crate::group::RecentIds::default(),
            timed: None,
        }
    }

    /// The line of the match (or bad match) read last.
    #[must_use]
    pub fn line(&self) -> u64 {
        self.line
    }

    fn parse(&mut self) -> Result<Match, ReadError> {
        let line = self.line;
        let text = std::str::from_utf8(&self.buf).map_err(|e| ReadError::Format {
            file: self.file.clone(),
            line,
            message: format!("not valid UTF-8 text: {e}"),
        })?;
        let jm: JsonMatch = serde_json::from_str(text).map_err(|e| {
            // Recover the match id if the line has one, so a bad match can be skipped.
            let match_id = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("match").and_then(|m| m.as_str()).map(str::to_string));
            ReadError::Field {
                file: self.file.clone(),
                line,
                match_id,
                field: "json".into(),
                value: text.chars().take(60).collect(),
                expected: format!("a match object like {{\"match\":..,\"results\":[..]}} ({e})"),
            }
        })?;
        let m = jm.to_match(&self.file, line)?;
        if self.recent.seen_before(m.id()) {
            return Err(ReadError::NotContiguous {
                file: self.file.clone(),
                line,
                match_id: m.id().to_string(),
            });
        }
        let timed = m.time().is_some();
        if *self.timed.get_or_insert(timed) != timed {
            return Err(ReadError::Field {
                file: self.file.clone(),
                line,
                match_id: Some(m.id().to_string()),
                field: "time".into(),
                value: jm.time.unwrap_or_default(),
                expected: "every match to have a time, or none to".into(),
            });
        }
        Ok(m)
    }
}

impl<R: BufRead> Iterator for JsonlMatches<R> {
    type Item = Result<Match, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.finished {
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.finished = true,
                Ok(_) => {
                    self.line += 1;
                    while self.buf.last().is_some_and(|b| b.is_ascii_whitespace()) {
                        self.buf.pop();
                    }
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(self.parse());
                }
                Err(source) => {
                    self.finished = true;
                    return Some(Err(ReadError::Io {
                        file: self.file.clone(),
                        source,
                    }));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Result<Match, ReadError>> {
        JsonlMatches::new("t.jsonl", text.as_bytes()).collect()
    }

    #[test]
    fn reads_the_spec_example() {
        let got = read(
            "{\"match\":\"g1\",\"time\":\"2024-05-01\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n\n",
        );
        assert_eq!(got.len(), 1);
        let m = got[0].as_ref().unwrap();
        assert_eq!(m.id(), "g1");
        assert_eq!(m.entries()[0].members[0].player, "ann");
    }

    #[test]
    fn round_trips() {
        let m = Match::builder("x")
            .time(1_714_521_600)
            .team("red", ["a", "b"], Finish::Score(3.0))
            .weighted_player("c", Finish::Score(5.0), 0.5)
            .build()
            .unwrap();
        let text = serde_json::to_string(&JsonMatch::from_match(&m)).unwrap();
        let back = read(&text).remove(0).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn errors_name_line_and_field() {
        let got = read("{\"match\":\"g1\",\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\"}]}\n{\"match\":\"g2\",\"results\":[]}\nnot json\n");
        let e0 = got[0].as_ref().unwrap_err().to_string();
        assert!(e0.starts_with("t.jsonl:1: field `results[1].rank`"), "{e0}");
        let e1 = got[1].as_ref().unwrap_err().to_string();
        assert!(e1.contains("t.jsonl:2: match \"g2\""), "{e1}");
        let e2 = got[2].as_ref().unwrap_err();
        assert!(
            e2.to_string().starts_with("t.jsonl:3: field `json`"),
            "{e2}"
        );
        assert_eq!(e2.match_id(), None);
    }
}
