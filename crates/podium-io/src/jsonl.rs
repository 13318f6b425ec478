//! JSON Lines: one match per line,
//! `{"match":"g1","time":"2024-05-01","results":[{"player":"ann","rank":1},{"player":"bo","rank":2}]}`.
//! Result fields are those of the long CSV (`player`, `rank` or `score`, `team`, `weight`).
//! Blank lines are ignored, but a file without a match (empty, or blank lines only) is an
//! error, as an empty CSV file is, and so is one in UTF-16 or UTF-32 (a byte-order mark of
//! either, or NUL bytes, on its first line): the error says how to convert it. `time` may
//! be left out of the first matches only: once a match has a time, every later match
//! needs one ([`crate::times_expected`]), as the league server's export of a league that
//! began without dates has it. A line is one match, so a
//! match id given again is a second match under the first one's id, and an error; and a
//! line that is not a readable match (not JSON, not a match object, without a match id,
//! not UTF-8) is a bad match of its own ([`ReadError::BadLine`] when its id is not
//! known), after which reading goes on at the next line. Only a line longer than
//! [`crate::MAX_JSON_LINE`] stops reading.
//!
//! Factor fields ([`ReadOptions::factors`]) are more fields of a result, a string or a
//! whole number ([`factor_value`]): `{"player":"ann","rank":1,"car":"red"}` read with the
//! factor `car` gives ann's entry `car=red`; a result without the field gives none of that
//! kind (`null`, `""`, `true` or `2.5` are errors). A factor field is found in any case, as
//! a CSV column is (`--factor Car` reads `car`; a result with both `car` and `Car` is an
//! error), and one that no result of the file has is an error naming the file's first
//! match. Without the option such a field is an error, as any field podium does not know.
//!
//! A string is taken as written: a player id, team name or match id with spaces around it
//! is refused, naming the field and the text without them.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};

use podium::{Factor, Finish, Match, MatchError, ResultRow};
use serde::{Deserialize, Serialize};

use crate::error::{factor_mismatch, field_of, ReadError, Wide};
use crate::time::parse_time;
use crate::ReadOptions;

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
    /// Partial play, from 1e-9 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// The factors of the player's entry, kind → value, written as more fields of the
    /// result (`"car": "ferrari"`). Deserializing leaves it empty: [`JsonlMatches`] reads
    /// factor fields only for the kinds it is asked for ([`ReadOptions::factors`]).
    #[serde(flatten, skip_deserializing)]
    pub factors: BTreeMap<String, String>,
}

impl JsonMatch {
    /// Validates into a [`Match`]; `file` and `line` locate errors.
    ///
    /// # Errors
    /// [`ReadError::Field`] for a bad time or a result without rank/score,
    /// [`ReadError::Match`] when the results do not form a valid match.
    pub fn to_match(&self, file: &str, line: u64) -> Result<Match, ReadError> {
        let factors: Vec<Vec<Factor>> = self
            .results
            .iter()
            .map(|r| {
                r.factors
                    .iter()
                    .map(|(kind, value)| Factor::new(kind.as_str(), value.as_str()))
                    .collect()
            })
            .collect();
        self.to_match_with(file, line, &factors)
    }

    /// [`JsonMatch::to_match`] with `factors[i]` the factors of result `i` (none where
    /// `factors` is shorter).
    fn to_match_with(
        &self,
        file: &str,
        line: u64,
        factors: &[Vec<Factor>],
    ) -> Result<Match, ReadError> {
        let field = |field: &str, value: String, expected: &str| ReadError::Field {
            file: file.to_string(),
            line,
            match_id: Some(self.id.clone()),
            field: field.to_string(),
            value,
            expected: expected.to_string(),
        };
        // A match read from a file has an id, as every row of a CSV file does: an empty
        // one is refused in the CSV reader's words, a bad line without an id to name the
        // match by (which `--skip-bad` skips).
        if self.id.is_empty() {
            return Err(ReadError::of_line(
                file,
                line,
                None,
                "match".into(),
                String::new(),
                "a match id".into(),
            ));
        }
        let time = match &self.time {
            None => None,
            Some(t) => Some(parse_time(t).ok_or_else(|| {
                field("time", t.clone(), "an RFC 3339 time or a YYYY-MM-DD date")
            })?),
        };
        if let Some(expected) = spaced("match id", &self.id) {
            return Err(field("match", self.id.clone(), &expected));
        }
        let mut rows = Vec::with_capacity(self.results.len());
        for (i, r) in self.results.iter().enumerate() {
            if let Some(expected) = spaced("player id", &r.player) {
                return Err(field(
                    &format!("results[{i}].player"),
                    r.player.clone(),
                    &expected,
                ));
            }
            if let Some(expected) = r.team.as_deref().and_then(|t| spaced("team name", t)) {
                let team = r.team.clone().unwrap_or_default();
                return Err(field(&format!("results[{i}].team"), team, &expected));
            }
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
                    // Nothing to show at `rank`: the result is named, as written.
                    let written = serde_json::to_string(r).unwrap_or_default();
                    return Err(field(
                        &format!("results[{i}]"),
                        written.chars().take(60).collect(),
                        "a `rank` (1 = best) or a `score` (higher = better): the result has neither, and one of them is required",
                    ));
                }
            };
            rows.push(ResultRow {
                player: r.player.clone(),
                team: r.team.clone(),
                finish,
                weight: r.weight.unwrap_or(1.0),
                factors: factors.get(i).cloned().unwrap_or_default(),
            });
        }
        Match::from_rows(self.id.clone(), time, rows).map_err(|source| {
            if let MatchError::FactorMismatch { player, .. } = &source {
                let i = self.results.iter().rposition(|r| &r.player == player);
                let prefix = format!("results[{}].", i.unwrap_or(0));
                if let Some(e) = factor_mismatch(file, line, &self.id, &source, &prefix) {
                    return e;
                }
            }
            ReadError::Match {
                file: file.to_string(),
                line,
                match_id: self.id.clone(),
                field: field_of(&source),
                source: Box::new(source),
            }
        })
    }

    /// The JSON form of a match (times written as RFC 3339 or dates), each entry's
    /// factors as fields of its players' results, which a reader asked for those kinds
    /// reads back.
    #[must_use]
    pub fn from_match(m: &Match) -> Self {
        let results = m
            .entries()
            .iter()
            .flat_map(|e| {
                let (rank, score) = e.finish.rank_and_score();
                let factors: BTreeMap<String, String> = e
                    .factors
                    .iter()
                    .map(|f| (f.kind.clone(), f.value.clone()))
                    .collect();
                // A team without a name (a proposed match's) is named by its members, so
                // that its rows read back as one entry, not as players alone.
                let team = e.team.clone().or_else(|| {
                    (e.members.len() > 1).then(|| {
                        let names: Vec<&str> =
                            e.members.iter().map(|m| m.player.as_str()).collect();
                        names.join("+")
                    })
                });
                e.members.iter().map(move |mem| JsonResult {
                    player: mem.player.clone(),
                    rank,
                    score,
                    team: team.clone(),
                    weight: (mem.weight != 1.0).then_some(mem.weight),
                    factors: factors.clone(),
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

/// What is expected of `id`, a `what` (`player id`) given as a JSON string, when spaces
/// surround its text: the text without them. A JSON string is taken as written, so the
/// spaces are part of it, and no id has surrounding spaces: the reader says so rather than
/// leave the library to refuse the whole string. `None` for any other string, good or
/// refused by the library's own rules (empty, too long, control characters).
fn spaced(what: &str, id: &str) -> Option<String> {
    let text = id.trim();
    (text != id && !text.is_empty()).then(|| {
        format!(
            "{text:?} without the spaces around it (a JSON string is taken as written, and a {what} has no surrounding spaces)"
        )
    })
}

/// The text of a factor value given as JSON, by the library's one rule
/// ([`podium::factor::value_of`]): a string, or a whole number that converts exactly.
///
/// # Errors
/// [`podium::FactorError`] for `null`, a boolean, a fraction, a number beyond 64 bits, a
/// list or an object, or a string the rule refuses.
pub fn factor_value(kind: &str, v: &serde_json::Value) -> Result<String, podium::FactorError> {
    use podium::factor::{value_of, Given};
    use serde_json::Value;
    let text;
    let given = match v {
        Value::String(s) => Given::Text(s),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Given::Integer(i.into()),
            (_, Some(u)) => Given::Integer(u.into()),
            _ => {
                text = n.to_string();
                Given::Number(&text)
            }
        },
        Value::Bool(b) => Given::Bool(*b),
        Value::Null => Given::Null,
        Value::Array(_) => Given::Other("a list"),
        Value::Object(_) => Given::Other("an object"),
    };
    value_of(kind, given)
}

/// Streams the matches of a JSON Lines source, one line at a time.
pub struct JsonlMatches<R: BufRead> {
    file: String,
    input: R,
    line: u64,
    buf: Vec<u8>,
    finished: bool,
    recent: crate::group::RecentIds,
    /// The first good match with a time, by id and line: every match after it needs a
    /// time ([`crate::times_expected`]).
    dated: Option<(String, u64)>,
    /// The factor fields read ([`ReadOptions::factors`]), and whether a result had each.
    factor_kinds: Vec<String>,
    factor_seen: Vec<bool>,
    /// The longest line read, in bytes ([`crate::MAX_JSON_LINE`]).
    limit: usize,
    /// The first and the last line that are not blank, once read (0 before): a file
    /// without one holds no match, and a factor field that no result has is named
    /// missing at the first, for the lines between.
    first: u64,
    last: u64,
}

impl<R: BufRead> JsonlMatches<R> {
    /// Reads JSON Lines from `input`; `file` names it in errors.
    pub fn new(file: impl Into<String>, input: R) -> Self {
        Self::with_options(file, input, &ReadOptions::default())
    }

    /// Reads JSON Lines from `input` with the factor fields of `options`; `file` names it
    /// in errors.
    pub fn with_options(file: impl Into<String>, input: R, options: &ReadOptions) -> Self {
        JsonlMatches {
            file: file.into(),
            input,
            line: 0,
            buf: Vec::new(),
            finished: false,
            recent: crate::group::RecentIds::default(),
            dated: None,
            factor_kinds: options.factors.clone(),
            factor_seen: vec![false; options.factors.len()],
            limit: crate::MAX_JSON_LINE,
            first: 0,
            last: 0,
        }
    }

    /// Takes the factor fields out of each result of `value`, a match object: the
    /// factors of each result, in order.
    fn take_factors(
        file: &str,
        line: u64,
        kinds: &[String],
        seen: &mut [bool],
        value: &mut serde_json::Value,
    ) -> Result<Vec<Vec<Factor>>, ReadError> {
        let match_id = id_of(value);
        let Some(results) = value.get_mut("results").and_then(|r| r.as_array_mut()) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(results.len());
        for (i, r) in results.iter_mut().enumerate() {
            let mut factors = Vec::new();
            if let Some(obj) = r.as_object_mut() {
                for (k, kind) in kinds.iter().enumerate() {
                    // A field is the kind's in any case, as a CSV column is.
                    let mut named = obj.keys().filter(|key| key.eq_ignore_ascii_case(kind));
                    let (Some(key), second) = (named.next().cloned(), named.next().cloned()) else {
                        continue;
                    };
                    if let Some(second) = second {
                        let written = obj.get(&second).map_or_else(String::new, |v| {
                            v.as_str().map_or_else(|| v.to_string(), str::to_string)
                        });
                        return Err(ReadError::of_line(
                            file,
                            line,
                            match_id.clone(),
                            format!("results[{i}].{second}"),
                            written.chars().take(60).collect(),
                            format!(
                                "the factor field `{kind}` once: the result gives it as `{key}` and as `{second}`, and a factor field is named in any case, as a CSV column is"
                            ),
                        ));
                    }
                    let Some(raw) = obj.remove(&key) else {
                        continue;
                    };
                    // The field is there, whatever it holds: a bad value is that match's
                    // error, not a field missing from the file.
                    seen[k] = true;
                    let value = factor_value(kind, &raw).map_err(|e| {
                        ReadError::of_line(
                            file,
                            line,
                            match_id.clone(),
                            format!("results[{i}].{key}"),
                            e.given().chars().take(60).collect(),
                            e.expected(),
                        )
                    })?;
                    factors.push(Factor::new(kind.as_str(), value));
                }
            }
            out.push(factors);
        }
        Ok(out)
    }

    /// The line of the match (or bad match) read last.
    #[must_use]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The error of a source without a match, empty or of blank lines only, at its end:
    /// most likely the wrong file, and rating it would print an empty board.
    fn no_match(&self) -> ReadError {
        const EXPECTED: &str = "expected one match per line, like {\"match\":..,\"results\":[..]}";
        let message = match self.line {
            0 => format!("empty file: {EXPECTED}"),
            1 => format!("the file holds no matches: its only line is blank ({EXPECTED})"),
            n => format!("the file holds no matches: its {n} lines are blank ({EXPECTED})"),
        };
        ReadError::Format {
            file: self.file.clone(),
            line: 1,
            message,
        }
    }

    fn parse(&mut self) -> Result<Match, ReadError> {
        let line = self.line;
        let text = match std::str::from_utf8(&self.buf) {
            Ok(text) => text,
            Err(e) => return Err(not_utf8(&self.file, line, &self.buf, e.valid_up_to())),
        };
        let parsed = if self.factor_kinds.is_empty() {
            serde_json::from_str(text).map(|jm| (jm, Vec::new()))
        } else {
            // A JSON value keeps the last of a key given twice; such a line is refused, as
            // it is when read without factors.
            if let Some((path, written)) = repeated_key(text) {
                let match_id = serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .and_then(|v| id_of(&v));
                return Err(repeated(&self.file, line, match_id, path, &written));
            }
            match serde_json::from_str::<serde_json::Value>(text) {
                Ok(mut v) => {
                    let factors = Self::take_factors(
                        &self.file,
                        line,
                        &self.factor_kinds,
                        &mut self.factor_seen,
                        &mut v,
                    )?;
                    serde_json::from_value(v).map(|jm| (jm, factors))
                }
                Err(e) => Err(e),
            }
        };
        let (jm, factors): (JsonMatch, _) = parsed.map_err(|e| {
            // Recover the match id if the line has one, to name the match skipped; a line
            // without one is skipped all the same.
            let value = serde_json::from_str::<serde_json::Value>(text).ok();
            let match_id = value.as_ref().and_then(id_of);
            let field = |field: String, value: String, expected: String| {
                let value = value.chars().take(60).collect();
                ReadError::of_line(&self.file, line, match_id.clone(), field, value, expected)
            };
            if let Some((path, written)) = repeated_key(text) {
                return repeated(&self.file, line, match_id.clone(), path, &written);
            }
            let Some(value) = value else {
                return field(
                    "json".into(),
                    text.to_string(),
                    format!(
                        "a match object like {{\"match\":..,\"results\":[..]}} ({})",
                        on_the_line(&e)
                    ),
                );
            };
            if let Some((name, v)) = unknown_result_field(&value, &self.factor_kinds) {
                let kind = name.rsplit('.').next().unwrap_or(&name).to_string();
                let expected = match v.as_object() {
                    Some(object) => format!("no such field: a result has player, rank or score, team and weight; {}", factors_as_fields(object)),
                    None => format!("no such field: a result has player, rank or score, team and weight, and a factor field only when read as a factor (`--factor {kind}`; in Python `factors=[\"{kind}\"]`)"),
                };
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                return field(name, text, expected);
            }
            let (name, v, expected) = misplaced_field(&value, &self.factor_kinds);
            field(name, v, expected)
        })?;
        let m = jm.to_match_with(&self.file, line, &factors)?;
        if let Some(first_line) = self.recent.seen_at(m.id(), line) {
            // One line is one match: an id that comes back is a second match under the
            // first one's id, not the first one's rows apart.
            return Err(ReadError::Field {
                file: self.file.clone(),
                line,
                match_id: Some(m.id().to_string()),
                field: "match".into(),
                value: m.id().to_string(),
                expected: format!(
                    "an id of its own: the match on line {first_line} has this id already, and a match id names one match"
                ),
            });
        }
        match (m.time(), &self.dated) {
            (None, Some((dated, dated_line))) => {
                return Err(ReadError::Field {
                    file: self.file.clone(),
                    line,
                    match_id: Some(m.id().to_string()),
                    field: "time".into(),
                    value: String::new(),
                    expected: crate::group::after_dated(m.id(), dated, *dated_line),
                });
            }
            (Some(_), None) => self.dated = Some((m.id().to_string(), line)),
            _ => {}
        }
        Ok(m)
    }
}

/// The first field of a result of `value` (a match object) that is not a result field,
/// as `results[i].name`, with its value: what the reader refuses when it was not named as
/// a factor.
fn unknown_result_field<'v>(
    value: &'v serde_json::Value,
    kinds: &[String],
) -> Option<(String, &'v serde_json::Value)> {
    const FIELDS: [&str; 5] = ["player", "rank", "score", "team", "weight"];
    let results = value.get("results")?.as_array()?;
    results.iter().enumerate().find_map(|(i, r)| {
        r.as_object()?
            .iter()
            .find(|(k, _)| !FIELDS.contains(&k.as_str()) && !is_factor(k, kinds))
            .map(|(k, v)| (format!("results[{i}].{k}"), v))
    })
}

/// Whether `key`, a field of a result, is one of the factor fields `kinds`: named in any
/// case, as the CSV reader finds a factor column.
fn is_factor(key: &str, kinds: &[String]) -> bool {
    kinds.iter().any(|kind| kind.eq_ignore_ascii_case(key))
}

/// How factors are written in JSON Lines, for a line that gives them as an object (such
/// as `"factors":{"car":"red"}`): each is a field of the result itself, named by its kind,
/// and read by naming that kind. The example is the object's first entry, if any.
fn factors_as_fields(object: &serde_json::Map<String, serde_json::Value>) -> String {
    let (kind, value) = object
        .iter()
        .find_map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                _ => return None,
            };
            Some((k.clone(), v))
        })
        .unwrap_or_else(|| ("car".to_string(), "red".to_string()));
    format!(
        "a factor is not an object but a field of the result itself, named by its kind: {{\"player\":..,\"rank\":..,\"{kind}\":{}}}, read with `--factor {kind}` (in Python `factors=[\"{kind}\"]`)",
        serde_json::Value::String(value)
    )
}

/// The path (`results[1].player`) of the first key that an object of `text`, a JSON
/// text, gives twice, with the second value as written; `None` when no key is
/// repeated (or the text is not JSON).
fn repeated_key(text: &str) -> Option<(String, String)> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = serde::de::DeserializeSeed::deserialize(
        Keys {
            path: String::new(),
            found: &mut found,
        },
        &mut de,
    );
    found
}

/// The error of a key given twice, at `path`, its second value `written`.
fn repeated(
    file: &str,
    line: u64,
    match_id: Option<String>,
    path: String,
    written: &str,
) -> ReadError {
    let key = path.rsplit('.').next().unwrap_or(&path);
    let key = key.split('[').next().unwrap_or(key).to_string();
    let expected = format!(
        "`{key}` once: this object gives it twice, and which of the values is meant is not known"
    );
    let value = written.chars().take(60).collect();
    ReadError::of_line(file, line, match_id, path, value, expected)
}

/// The match id of `value`, a line read as JSON, if it has one: its `match` (or `id`,
/// another name of it) as a string.
fn id_of(value: &serde_json::Value) -> Option<String> {
    let id = value.get("match").or_else(|| value.get("id"))?;
    id.as_str().map(str::to_string)
}

/// What serde says is wrong with a line that is not JSON, placed by its column: the
/// text parsed is the line alone, so serde's "at line 1 column 9" would read as another
/// line than the file's, which the error names.
fn on_the_line(e: &serde_json::Error) -> String {
    let said = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    match said.strip_suffix(&at) {
        Some(what) if e.line() == 1 => format!("{what} at column {} of the line", e.column()),
        _ => said,
    }
}

/// The error of a line that is not UTF-8 text, `valid` the bytes before the first that
/// is not: the field (a string or key of the JSON) that has the bytes, of the match when
/// its id is whole; else the line as a whole. A line break never falls inside a UTF-8
/// character, so the next line is read as it would be without this one.
fn not_utf8(file: &str, line: u64, bytes: &[u8], valid: usize) -> ReadError {
    // The text with each run of bytes that are not UTF-8 as one mark, a character the
    // line does not have, to find the string the bytes are in.
    let chunks: Vec<_> = bytes.utf8_chunks().collect();
    let mark = ('\u{e000}'..='\u{f8ff}')
        .find(|&c| chunks.iter().all(|k| !k.valid().contains(c)))
        .unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut text = String::with_capacity(bytes.len());
    for k in &chunks {
        text.push_str(k.valid());
        if !k.invalid().is_empty() {
            text.push(mark);
        }
    }
    let shown = |s: &str| s.replace(mark, "\u{fffd}");
    let expected = format!("valid UTF-8 text (byte {} of the line is not)", valid + 1);
    let value = serde_json::from_str::<serde_json::Value>(&text).ok();
    let match_id = value
        .as_ref()
        .and_then(id_of)
        .filter(|id| !id.contains(mark));
    let (field, written) = value
        .as_ref()
        .and_then(|v| marked(v, mark, ""))
        .unwrap_or_else(|| ("json".to_string(), text.clone()));
    let written = shown(&written).chars().take(60).collect();
    ReadError::of_line(file, line, match_id, shown(&field), written, expected)
}

/// The path (`results[1].player`) of the first string or key of `value` at `path` that
/// has `mark`, with that string; `json` for the value itself.
fn marked(value: &serde_json::Value, mark: char, path: &str) -> Option<(String, String)> {
    use serde_json::Value;
    let named = |path: &str| {
        if path.is_empty() {
            "json".to_string()
        } else {
            path.to_string()
        }
    };
    match value {
        Value::String(s) if s.contains(mark) => Some((named(path), s.clone())),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| marked(v, mark, &format!("{path}[{i}]"))),
        Value::Object(object) => object.iter().find_map(|(k, v)| {
            let at = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            if k.contains(mark) {
                return Some((at, k.clone()));
            }
            marked(v, mark, &at)
        }),
        _ => None,
    }
}

/// Walks a JSON value, to find a key that an object gives twice ([`repeated_key`]).
struct Keys<'f> {
    /// The path of the value walked.
    path: String,
    /// The repeated key's path and its second value.
    found: &'f mut Option<(String, String)>,
}

impl<'de> serde::de::DeserializeSeed<'de> for Keys<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Keys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            let element = Keys {
                path: format!("{}[{i}]", self.path),
                found: &mut *self.found,
            };
            if seq.next_element_seed(element)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if !seen.insert(key) {
                let v: serde_json::Value = map.next_value()?;
                let written = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                *self.found = Some((path, written));
                return Err(serde::de::Error::custom("a repeated key"));
            }
            map.next_value_seed(Keys {
                path,
                found: &mut *self.found,
            })?;
        }
        Ok(())
    }
}

/// What a well-formed JSON value that is not a valid match gets wrong: the path of the
/// field at fault (`results[2].rank`), its value as written, and what was expected there,
/// from deserializing it again with the path recorded (only on this error path, so that
/// good lines pay nothing for it).
fn misplaced_field(given: &serde_json::Value, kinds: &[String]) -> (String, String, String) {
    let mut value = given.clone();
    if let Some(results) = value.get_mut("results").and_then(|r| r.as_array_mut()) {
        for r in results.iter_mut().filter_map(|r| r.as_object_mut()) {
            r.retain(|k, _| !is_factor(k, kinds));
        }
    }
    let whole = || {
        (
            "json".to_string(),
            value.to_string(),
            "a match object like {\"match\":..,\"results\":[..]}".to_string(),
        )
    };
    if !value.is_object() {
        return whole();
    }
    let Err(e) = serde_path_to_error::deserialize::<_, JsonMatch>(&value) else {
        return whole();
    };
    let message = e.inner().to_string();
    let path = e.path().to_string();
    let quoted = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|m| m.split('`').next())
            .map(str::to_string)
    };
    // A missing field is reported at its parent: name the field itself.
    if let Some(name) = quoted("missing field `") {
        // A result without a field: nothing at the field to show, so the result is
        // named, as written, and the field it lacks.
        if let Some(result) = path
            .strip_prefix("results[")
            .and_then(|rest| rest.strip_suffix(']'))
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| given.get("results")?.get(i))
        {
            let written = result.to_string().chars().take(60).collect();
            let expected = format!(
                "a `{name}` field, {}: the result has none, and it is required",
                expected_at(&name)
            );
            return (path, written, expected);
        }
        let path = if path == "." {
            name
        } else {
            format!("{path}.{name}")
        };
        let expected = format!("{}: it is required", expected_at(&path));
        return (path, String::new(), expected);
    }
    // Two keys that name one field: `id` is another name of `match`.
    if let Some(name) = quoted("duplicate field `") {
        let written = value.get("id").map_or_else(String::new, |v| {
            v.as_str().map_or_else(|| v.to_string(), str::to_string)
        });
        let expected = format!(
            "`{name}` or `id`, not both: `id` is another name of `{name}`, and which of the two is meant is not known"
        );
        return ("id".to_string(), written, expected);
    }
    if let Some(name) = quoted("unknown field `") {
        let written = value
            .get(&name)
            .map_or_else(String::new, ToString::to_string);
        let mut expected =
            "no such field: a match has the fields match, time and results".to_string();
        if let Some(object) = value.get(&name).and_then(|v| v.as_object()) {
            expected.push_str("; ");
            expected.push_str(&factors_as_fields(object));
        }
        return (name, written, expected);
    }
    if path == "." {
        return whole();
    }
    let mut at = Some(&value);
    for seg in e.path().iter() {
        at = at.and_then(|v| match seg {
            serde_path_to_error::Segment::Seq { index } => v.get(*index),
            serde_path_to_error::Segment::Map { key } => v.get(key.as_str()),
            _ => None,
        });
    }
    let written = at.map_or_else(String::new, |v| {
        v.as_str().map_or_else(|| v.to_string(), str::to_string)
    });
    (path.clone(), written, expected_at(&path))
}

/// What the field at `path` (`results[2].rank`) of a JSON Lines match holds.
fn expected_at(path: &str) -> String {
    let last = path.rsplit('.').next().unwrap_or(path);
    match last {
        "match" | "id" => "the match id, a string",
        "time" => "an RFC 3339 time or a YYYY-MM-DD date, as a string",
        "results" => "an array of results, one per player",
        "player" => "the player id, a string",
        "team" => "the team, a string",
        "rank" => "a number, the place (1 = best)",
        "score" => "a number (higher = better)",
        "weight" => "a number from 1e-9 to 1, the share of the match played",
        _ if last.starts_with("results[") => "a result object like {\"player\":..,\"rank\":..}",
        _ => "a match object like {\"match\":..,\"results\":[..]}",
    }
    .to_string()
}

impl<R: BufRead> Iterator for JsonlMatches<R> {
    type Item = Result<Match, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.finished {
            self.buf.clear();
            // One byte more than the limit is read, to know that the line is longer.
            let mut line = (&mut self.input).take(self.limit as u64 + 1);
            match line.read_until(b'\n', &mut self.buf) {
                Ok(0) => {
                    self.finished = true;
                    if self.first == 0 {
                        return Some(Err(self.no_match()));
                    }
                    if let Some(k) = self.factor_seen.iter().position(|seen| !seen) {
                        // Named at the file's first match, as a CSV file's missing column
                        // is at its header: no line of the file has it.
                        let lines = if self.first == self.last {
                            format!("line {}", self.first)
                        } else {
                            format!("lines {} to {}", self.first, self.last)
                        };
                        return Some(Err(ReadError::Format {
                            file: self.file.clone(),
                            line: self.first,
                            message: format!(
                                "no result has the field `{}`, named as a factor field, in the whole file ({lines}; the field is found in any case)",
                                self.factor_kinds[k]
                            ),
                        }));
                    }
                }
                Ok(n) => {
                    self.line += 1;
                    if n - usize::from(self.buf.last() == Some(&b'\n')) > self.limit {
                        self.finished = true;
                        return Some(Err(ReadError::LineTooLong {
                            file: self.file.clone(),
                            line: self.line,
                            limit: self.limit,
                            format: "JSON Lines",
                            quote_line: None,
                        }));
                    }
                    // Text in UTF-16 or UTF-32 shows at once, and every line of it would
                    // be a bad match: the file is refused as a whole.
                    if self.first == 0 {
                        if let Some(wide) = Wide::of(&self.buf, self.line == 1) {
                            self.finished = true;
                            return Some(Err(wide.error(&self.file, self.line)));
                        }
                    }
                    // A byte-order mark before the first line is not part of it.
                    if self.line == 1 && self.buf.starts_with(b"\xef\xbb\xbf") {
                        self.buf.drain(..3);
                    }
                    while self.buf.last().is_some_and(|b| b.is_ascii_whitespace()) {
                        self.buf.pop();
                    }
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    if self.first == 0 {
                        self.first = self.line;
                    }
                    self.last = self.line;
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

    /// A two-player match line: `id`, with `time` if given, `a` ahead of `b`.
    fn line(id: &str, time: Option<&str>, a: &str, b: &str) -> String {
        let time = time
            .map(|t| format!(",\"time\":\"{t}\""))
            .unwrap_or_default();
        format!("{{\"match\":\"{id}\"{time},\"results\":[{{\"player\":\"{a}\",\"rank\":1}},{{\"player\":\"{b}\",\"rank\":2}}]}}\n")
    }

    /// A file may begin with matches without a time, as the league server's export of a
    /// league that began without dates does; from its first match with a time on, every
    /// match needs one: one without is refused, naming its line, the field and the match
    /// with a time before it.
    #[test]
    fn matches_without_a_time_may_only_come_first() {
        let text = [
            line("u1", None, "a", "b"),
            line("u2", None, "b", "c"),
            line("d1", Some("2024-05-03"), "a", "c"),
            line("d2", Some("2024-05-01"), "c", "b"),
        ]
        .concat();
        let times: Vec<_> = read(&text)
            .iter()
            .map(|m| m.as_ref().unwrap().time())
            .collect();
        assert_eq!(
            times,
            [None, None, Some(1_714_694_400), Some(1_714_521_600)]
        );
        let text = [
            line("u1", None, "a", "b"),
            line("d1", Some("2024-05-01"), "a", "b"),
            line("u2", None, "a", "b"),
            line("d2", Some("2024-05-02"), "a", "b"),
        ]
        .concat();
        let got = read(&text);
        assert_eq!(got.len(), 4);
        assert!(got[0].is_ok() && got[1].is_ok() && got[3].is_ok());
        let e = got[2].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.jsonl:3: field `time`: \"\" is not valid, expected a time: once a match has a time, every later match needs one (only the matches before the first with a time may have none); match \"u2\" comes after match \"d1\" (line 2), which has one"
        );
        assert!(e.is_recoverable());
        assert_eq!(e.match_id(), Some("u2"));
        // A bad match with a time is not one of the history: the next may have none.
        let text = [
            line("d1", Some("2024-05-01"), "a", "a"),
            line("u1", None, "a", "b"),
        ]
        .concat();
        let got = read(&text);
        assert!(got[0].is_err());
        assert_eq!(got[1].as_ref().unwrap().time(), None);
    }

    /// One line is one match: an id used again names a second match, not rows apart.
    #[test]
    fn a_match_id_used_again_names_the_line_that_has_it() {
        let text = [
            line("g1", None, "a", "b"),
            line("g2", None, "a", "b"),
            "\n".to_string(),
            line("g1", None, "b", "a"),
        ]
        .concat();
        let got = read(&text);
        assert_eq!(got.len(), 3);
        let e = got[2].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.jsonl:4: field `match`: \"g1\" is not valid, expected an id of its own: the match on line 1 has this id already, and a match id names one match"
        );
        assert!(e.is_recoverable());
        assert_eq!(e.match_id(), Some("g1"));
    }

    /// An empty match id is refused as the CSV reader refuses it, and the reader goes on.
    #[test]
    fn an_empty_match_id_is_refused_as_the_csv_reader_refuses_it() {
        let text = [line("", None, "a", "b"), line("g2", None, "a", "b")].concat();
        let got = read(&text);
        assert_eq!(got.len(), 2);
        let e = got[0].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.jsonl:1: field `match`: \"\" is not valid, expected a match id"
        );
        assert!(e.is_recoverable());
        assert_eq!(e.match_id(), None);
        assert_eq!(got[1].as_ref().unwrap().id(), "g2");
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

    /// A team without a name (as a proposed match may have) is written under its
    /// members' names, so that it reads back as one entry of two players, not two.
    #[test]
    fn a_team_without_a_name_stays_one_entry() {
        use podium::{Entry, Member};
        let m = Match::builder("x")
            .entry(Entry {
                team: None,
                members: ["a", "b"]
                    .map(|p| Member {
                        player: p.into(),
                        weight: 1.0,
                    })
                    .to_vec(),
                finish: Finish::Rank(1.0),
                factors: Vec::new(),
            })
            .player("c", Finish::Rank(2.0))
            .build()
            .unwrap();
        let text = serde_json::to_string(&JsonMatch::from_match(&m)).unwrap();
        assert_eq!(
            text,
            r#"{"match":"x","results":[{"player":"a","rank":1.0,"team":"a+b"},{"player":"b","rank":1.0,"team":"a+b"},{"player":"c","rank":2.0}]}"#
        );
        let back = read(&text).remove(0).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.entries()[0].team.as_deref(), Some("a+b"));
        assert_eq!(back.entries()[0].members, m.entries()[0].members);
    }

    fn with_factors(text: &str, kinds: &[&str]) -> Vec<Result<Match, ReadError>> {
        let options = ReadOptions::with_factors(kinds.iter().copied());
        JsonlMatches::with_options("t.jsonl", text.as_bytes(), &options).collect()
    }

    #[test]
    fn factors_round_trip_as_fields() {
        let m = Match::builder("r1")
            .team("red", ["a", "b"], Finish::Rank(1.0))
            .factor("car", "ferrari")
            .factor("seat", "1")
            .player("c", Finish::Rank(2.0))
            .factor("car", "mclaren")
            .player("d", Finish::Rank(3.0))
            .build()
            .unwrap();
        let jm = JsonMatch::from_match(&m);
        let text = serde_json::to_string(&jm).unwrap();
        assert_eq!(
            text,
            r#"{"match":"r1","results":[{"player":"a","rank":1.0,"team":"red","car":"ferrari","seat":"1"},{"player":"b","rank":1.0,"team":"red","car":"ferrari","seat":"1"},{"player":"c","rank":2.0,"car":"mclaren"},{"player":"d","rank":3.0}]}"#
        );
        assert_eq!(with_factors(&text, &["car", "seat"]).remove(0).unwrap(), m);
        assert_eq!(jm.to_match("t.jsonl", 1).unwrap(), m);
        // Read without the kinds, the fields are unknown.
        assert!(read(&text)[0].is_err());
    }

    #[test]
    fn factor_fields_give_entries_factors() {
        let text = r#"{"match":"r1","results":[{"player":"ann","rank":1,"car":"red","seat":1},{"player":"bo","rank":2},{"player":"cy","rank":3,"seat":"2"}]}"#;
        let got = with_factors(text, &["car", "seat"]);
        let m = got[0].as_ref().unwrap();
        let f: Vec<Vec<String>> = m
            .entries()
            .iter()
            .map(|e| e.factors.iter().map(ToString::to_string).collect())
            .collect();
        assert_eq!(f, [vec!["car=red", "seat=1"], vec![], vec!["seat=2"]]);
        // Without the option a factor field is a field podium does not know, and the
        // error says which and how to read it.
        assert_eq!(
            read(text)[0].as_ref().unwrap_err().to_string(),
            "t.jsonl:1: field `results[0].car`: \"red\" is not valid, expected no such field: a result has player, rank or score, team and weight, and a factor field only when read as a factor (`--factor car`; in Python `factors=[\"car\"]`)"
        );
        // Named as a factor, `car` is read, and `seat` is the field not known.
        let e = with_factors(text, &["car"]).remove(0).unwrap_err();
        assert!(
            e.to_string().contains("field `results[0].seat`: \"1\""),
            "{e}"
        );
        assert!(e.is_recoverable());
    }

    #[test]
    fn factor_field_errors_name_line_and_field() {
        let text = "{\"match\":\"g1\",\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}\n\
            {\"match\":\"g2\",\"results\":[{\"player\":\"a\",\"rank\":1,\"team\":\"x\",\"side\":\"n\"},{\"player\":\"b\",\"rank\":1,\"team\":\"x\",\"side\":\"s\"},{\"player\":\"c\",\"rank\":2}]}\n";
        let got = with_factors(text, &["side"]);
        assert!(got[0].is_ok());
        assert_eq!(
            got[1].as_ref().unwrap_err().to_string(),
            "t.jsonl:2: field `results[1].side`: \"s\" is not valid, expected side=n, as another row of the same entry gives (an entry has one value of each factor kind)"
        );
        // A field no result has is named at the file's first match, after its matches.
        let got = with_factors(&format!("\n{text}\n"), &["car"]);
        assert_eq!(got.len(), 3);
        assert!(got[0].is_ok());
        assert_eq!(
            got[2].as_ref().unwrap_err().to_string(),
            "t.jsonl:2: no result has the field `car`, named as a factor field, in the whole file (lines 2 to 3; the field is found in any case)"
        );
        let got = with_factors(&line("g", None, "a", "b"), &["car"]);
        assert_eq!(
            got[1].as_ref().unwrap_err().to_string(),
            "t.jsonl:1: no result has the field `car`, named as a factor field, in the whole file (line 1; the field is found in any case)"
        );
        // A field whose only value is not a factor is that match's error alone.
        let text = "{\"match\":\"g1\",\"results\":[{\"player\":\"a\",\"rank\":1,\"car\":[\"x\"]},{\"player\":\"b\",\"rank\":2}]}\n";
        let got = with_factors(text, &["car"]);
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "t.jsonl:1: field `results[0].car`: \"a list\" is not valid, expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615"
        );
    }

    /// A factor field is found in any case, as a CSV column is: the factor's kind is the
    /// one asked for; a result that gives the field in two cases is refused.
    #[test]
    fn factor_fields_are_found_in_any_case() {
        let text = "{\"match\":\"g1\",\"results\":[{\"player\":\"a\",\"rank\":1,\"car\":\"red\"},{\"player\":\"b\",\"rank\":2,\"CAR\":\"blue\"}]}\n\
            {\"match\":\"g2\",\"results\":[{\"player\":\"a\",\"rank\":1,\"car\":\"red\",\"Car\":\"blue\"},{\"player\":\"b\",\"rank\":2}]}\n";
        let got = with_factors(text, &["Car"]);
        assert_eq!(got.len(), 2);
        let g1 = got[0].as_ref().unwrap();
        let f: Vec<&[Factor]> = g1.entries().iter().map(|e| &e.factors[..]).collect();
        assert_eq!(
            f,
            [[Factor::new("Car", "red")], [Factor::new("Car", "blue")]]
        );
        let e = got[1].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.jsonl:2: field `results[0].car`: \"red\" is not valid, expected the factor field `Car` once: the result gives it as `Car` and as `car`, and a factor field is named in any case, as a CSV column is"
        );
        assert_eq!(e.match_id(), Some("g2"));
        // The field in another case than the kind is no unknown field either.
        let bad = r#"{"match":"g","results":[{"player":"a","rank":"x","CAR":"red"},{"player":"b","rank":2}]}"#;
        assert_eq!(
            with_factors(bad, &["car"]).remove(0).unwrap_err().to_string(),
            "t.jsonl:1: field `results[0].rank`: \"x\" is not valid, expected a number, the place (1 = best)"
        );
    }

    /// A JSON string is taken as written: an id with spaces around it is refused, naming
    /// its field and the text without them.
    #[test]
    fn ids_with_surrounding_spaces_are_refused_naming_the_field() {
        let cases = [
            (
                r#"{"match":"g","results":[{"player":" cy ","rank":1},{"player":"bo","rank":2}]}"#,
                r#"field `results[0].player`: " cy " is not valid, expected "cy" without the spaces around it (a JSON string is taken as written, and a player id has no surrounding spaces)"#,
            ),
            (
                r#"{"match":"g","results":[{"player":"cy","rank":1,"team":"red\t"},{"player":"bo","rank":2}]}"#,
                r#"field `results[0].team`: "red\t" is not valid, expected "red" without the spaces around it (a JSON string is taken as written, and a team name has no surrounding spaces)"#,
            ),
            (
                r#"{"match":" g","results":[{"player":"cy","rank":1},{"player":"bo","rank":2}]}"#,
                r#"field `match`: " g" is not valid, expected "g" without the spaces around it (a JSON string is taken as written, and a match id has no surrounding spaces)"#,
            ),
        ];
        for (text, message) in cases {
            let e = read(text).remove(0).unwrap_err();
            assert_eq!(e.to_string(), format!("t.jsonl:1: {message}"));
            assert!(e.is_recoverable(), "{e}");
        }
        // A string of spaces alone is the library's to refuse, as any other bad id.
        let e =
            read(r#"{"match":"g","results":[{"player":"  ","rank":1},{"player":"bo","rank":2}]}"#)
                .remove(0)
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.jsonl:1: match \"g\", field `player`: player id \"  \" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
        );
    }

    /// The value of `seat` in a match of two results, the first one giving it as `raw`.
    fn seat(raw: &str) -> Result<Match, ReadError> {
        let text = format!(
            "{{\"match\":\"g\",\"results\":[{{\"player\":\"a\",\"rank\":1,\"seat\":{raw}}},{{\"player\":\"b\",\"rank\":2,\"seat\":2}}]}}\n"
        );
        with_factors(&text, &["seat"]).remove(0)
    }

    #[test]
    fn factor_values_that_are_not_text_or_whole_numbers_are_refused() {
        let expected = "expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615";
        for (raw, shown) in [
            ("true", "true"),
            ("2.5", "2.5"),
            ("1e300", "1e+300"),
            ("null", "null"),
            ("\" \"", " "),
            ("\"\"", ""),
            ("\"a\\tb\"", "a\tb"),
            ("\"a\\nb\"", "a\nb"),
            ("\" 1\"", " 1"),
        ] {
            let e = seat(raw).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("t.jsonl:1: field `results[0].seat`: {shown:?} is not valid, {expected}"),
                "{raw}"
            );
            assert_eq!(e.match_id(), Some("g"));
        }
        let m = seat("1").unwrap();
        assert_eq!(m.entries()[0].factors, [Factor::new("seat", "1")]);
        assert_eq!(seat("\"1\"").unwrap(), m);
        assert_eq!(
            seat("-9223372036854775808").unwrap().entries()[0].factors[0].value,
            "-9223372036854775808"
        );
    }

    #[test]
    fn factor_numbers_of_23_digits_do_not_collide() {
        // Read as floats, both were 1e22: two values that became one.
        for raw in ["10000000000000000000001", "10000000000000000000002"] {
            let e = seat(raw).unwrap_err().to_string();
            assert!(
                e.starts_with("t.jsonl:1: field `results[0].seat`: \"1e+22\" is not valid, expected a factor value"),
                "{e}"
            );
        }
        // As strings they are two values.
        let a = seat("\"10000000000000000000001\"").unwrap();
        let b = seat("\"10000000000000000000002\"").unwrap();
        assert_ne!(a.entries()[0].factors, b.entries()[0].factors);
    }

    #[test]
    fn player_id_with_a_control_character_is_refused() {
        let text = "{\"match\":\"g\",\"results\":[{\"player\":\"a\\u0000b\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}\n";
        let e = read(text).remove(0).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.jsonl:1: match \"g\", field `player`: player id \"a\\0b\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
        );
    }

    #[test]
    fn errors_name_line_and_field() {
        let got = read("{\"match\":\"g1\",\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\"}]}\n{\"match\":\"g2\",\"results\":[]}\nnot json\n");
        // A result without a rank or a score: the result is named, as written.
        let e0 = got[0].as_ref().unwrap_err();
        assert_eq!(
            e0.to_string(),
            "t.jsonl:1: field `results[1]`: \"{\\\"player\\\":\\\"b\\\"}\" is not valid, expected a `rank` (1 = best) or a `score` (higher = better): the result has neither, and one of them is required"
        );
        assert_eq!(e0.match_id(), Some("g1"));
        let e1 = got[1].as_ref().unwrap_err().to_string();
        assert!(e1.contains("t.jsonl:2: match \"g2\""), "{e1}");
        let e2 = got[2].as_ref().unwrap_err();
        assert!(
            e2.to_string().starts_with("t.jsonl:3: field `json`"),
            "{e2}"
        );
        assert_eq!(e2.match_id(), None);
        // A line is one match: without an id, it is still a bad match of its own.
        assert!(e2.is_recoverable());
    }

    /// A line that is not a readable match is confined to itself, whatever is wrong with
    /// it: a bad match (without an id when none can be read), after which the next line
    /// is read; the file, line, field and what was expected are named.
    #[test]
    fn a_line_that_is_not_a_match_is_a_bad_match_of_its_own() {
        let good = |id: &str| line(id, None, "a", "b");
        let bad: [&[u8]; 6] = [
            b"{\"match\":\"g2\",\"results\":[{\"player\":\"a\",\"rank\":1},",
            b"{\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}",
            b"[]",
            b"{,}",
            b"\xff\xfe{\"match\":\"g\"}",
            b"{\"match\":7,\"results\":[]}",
        ];
        let want = [
            r#"t.jsonl:2: field `json`: "{\"match\":\"g2\",\"results\":[{\"player\":\"a\",\"rank\":1}," is not valid, expected a match object like {"match":..,"results":[..]} (EOF while parsing a value at column 49 of the line)"#,
            r#"t.jsonl:3: field `match`: "" is not valid, expected the match id, a string: it is required"#,
            r#"t.jsonl:4: field `json`: "[]" is not valid, expected a match object like {"match":..,"results":[..]}"#,
            // serde's "line 1" is the line within the JSON text: only the column is said.
            r#"t.jsonl:5: field `json`: "{,}" is not valid, expected a match object like {"match":..,"results":[..]} (key must be a string at column 2 of the line)"#,
            "t.jsonl:6: field `json`: \"\u{fffd}\u{fffd}{\\\"match\\\":\\\"g\\\"}\" is not valid, expected valid UTF-8 text (byte 1 of the line is not)",
            r#"t.jsonl:7: field `match`: "7" is not valid, expected the match id, a string"#,
        ];
        let mut text = good("g1").into_bytes();
        for b in bad {
            text.extend_from_slice(b);
            text.push(b'\n');
        }
        text.extend_from_slice(good("g9").as_bytes());
        let got: Vec<_> = JsonlMatches::new("t.jsonl", &text[..]).collect();
        assert_eq!(got.len(), 2 + bad.len());
        assert_eq!(got[0].as_ref().unwrap().id(), "g1");
        assert_eq!(got.last().unwrap().as_ref().unwrap().id(), "g9");
        for (got, want) in got[1..=bad.len()].iter().zip(want) {
            let e = got.as_ref().unwrap_err();
            assert_eq!(e.to_string(), want);
            assert!(e.is_recoverable(), "{e}");
            assert_eq!(e.match_id(), None, "{e}");
            assert!(matches!(e, ReadError::BadLine { .. }), "{e:?}");
        }
    }

    /// A line that is not UTF-8 names the field whose text has the bytes, and the match
    /// when its id is whole; the next line is read as if the bytes were not there.
    #[test]
    fn a_line_that_is_not_utf8_names_its_field_and_match() {
        let text = b"{\"match\":\"g1\",\"results\":[{\"player\":\"a\xff\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}\n\
            {\"match\":\"g\xe2\x82\",\"results\":[]}\n\
            {\"id\":\"g3\",\"results\":[{\"pl\xc3ayer\":\"a\",\"rank\":1}]}\n\
            {\"match\":\"g4\",\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}\n";
        let got: Vec<_> = JsonlMatches::new("t.jsonl", &text[..]).collect();
        let errors: Vec<_> = got[..3].iter().map(|r| r.as_ref().unwrap_err()).collect();
        assert_eq!(
            errors[0].to_string(),
            "t.jsonl:1: field `results[0].player`: \"a\u{fffd}\" is not valid, expected valid UTF-8 text (byte 38 of the line is not)"
        );
        assert_eq!(errors[0].match_id(), Some("g1"));
        // The id itself is not whole: the line has none.
        assert_eq!(
            errors[1].to_string(),
            "t.jsonl:2: field `match`: \"g\u{fffd}\" is not valid, expected valid UTF-8 text (byte 12 of the line is not)"
        );
        assert_eq!(errors[1].match_id(), None);
        // A key, in a match named by `id`, the other name of `match`.
        assert_eq!(
            errors[2].to_string(),
            "t.jsonl:3: field `results[0].pl\u{fffd}ayer`: \"pl\u{fffd}ayer\" is not valid, expected valid UTF-8 text (byte 27 of the line is not)"
        );
        assert_eq!(errors[2].match_id(), Some("g3"));
        assert!(errors.iter().all(|e| e.is_recoverable()));
        assert_eq!(got[3].as_ref().unwrap().id(), "g4");
    }

    /// A line that is JSON but not a match names the field at fault, what it holds and
    /// what belongs there, and keeps the match id so that the match can be skipped.
    #[test]
    fn a_misshapen_match_names_its_field() {
        let cases = [
            (
                r#"{"match":"g","results":[{"player":"a","rank":"1"},{"player":"b","rank":2}]}"#,
                r#"field `results[0].rank`: "1" is not valid, expected a number, the place (1 = best)"#,
            ),
            (
                r#"{"match":"g","results":[{"rank":1},{"player":"b","rank":2}]}"#,
                r#"field `results[0]`: "{\"rank\":1}" is not valid, expected a `player` field, the player id, a string: the result has none, and it is required"#,
            ),
            (
                r#"{"match":"g","results":{"player":"a"}}"#,
                r#"field `results`: "{\"player\":\"a\"}" is not valid, expected an array of results, one per player"#,
            ),
            (
                r#"{"match":"g","reslts":[]}"#,
                r#"field `reslts`: "[]" is not valid, expected no such field: a match has the fields match, time and results"#,
            ),
            (
                r#"{"match":"g","time":5,"results":[]}"#,
                r#"field `time`: "5" is not valid, expected an RFC 3339 time or a YYYY-MM-DD date, as a string"#,
            ),
            (
                r#"{"match":"g","results":[3]}"#,
                r#"field `results[0]`: "3" is not valid, expected a result object like {"player":..,"rank":..}"#,
            ),
            (
                r#"{"match":"g","results":[{"player":"a","rank":1,"weight":"x"},{"player":"b","rank":2}]}"#,
                r#"field `results[0].weight`: "x" is not valid, expected a number from 1e-9 to 1, the share of the match played"#,
            ),
        ];
        for (line, message) in cases {
            let e = read(line).remove(0).unwrap_err();
            assert_eq!(e.to_string(), format!("t.jsonl:1: {message}"));
            assert_eq!(e.match_id(), Some("g"), "{line}");
        }
        // The factor fields asked for are no fault of the match.
        let line = r#"{"match":"g","results":[{"player":"a","rank":"x","car":"red"},{"player":"b","rank":2}]}"#;
        let e = with_factors(line, &["car"]).remove(0).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.jsonl:1: field `results[0].rank`: \"x\""),
            "{e}"
        );
        // Without a match id, or not an object, the line is named whole.
        let e = read(r#"{"results":[]}"#).remove(0).unwrap_err();
        assert!(
            e.to_string().starts_with("t.jsonl:1: field `match`: \"\""),
            "{e}"
        );
        let e = read("[1,2]").remove(0).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.jsonl:1: field `json`: \"[1,2]\""),
            "{e}"
        );
    }
}
