//! A match as the ledger keeps it and the API takes it: the JSON Lines form of match
//! files (`{"match":…,"time":…,"results":[{"player":…,"rank":…},…]}`), each result
//! row with its entry's factors (`"factors": {"car": "ferrari"}`, see
//! [`podium::factor`]).
//!
//! A match without factors is written exactly as JSON Lines files write it, so the
//! ledgers written before factors existed read back as they are, and their content
//! hashes (which recognise retries) stay what they were.

use std::collections::BTreeMap;

use podium::{Factor, Finish, Match, ResultRow};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::error::{quote, StoreError};

/// The most factors one result row may give.
pub const MAX_FACTORS: usize = 16;
/// The longest factor kind accepted, in bytes.
pub const MAX_FACTOR_KIND: usize = 64;
/// The longest factor value accepted, in bytes.
pub const MAX_FACTOR_VALUE: usize = 200;

/// The fields of a result row, which no factor kind may be called: the ledger's export
/// writes each factor as a field of its row (`"car": "ferrari"`), as match files
/// carry them.
pub const RESULT_FIELDS: [&str; 6] = ["player", "rank", "score", "team", "weight", "factors"];

/// One match of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerMatch {
    /// Match id.
    #[serde(rename = "match", alias = "id")]
    pub id: String,
    /// RFC 3339 time or `YYYY-MM-DD` date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// One result per player.
    pub results: Vec<LedgerResult>,
}

/// One player's result in a [`LedgerMatch`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerResult {
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
    /// The factors of the player's entry, kind → value (`{"car": "ferrari"}`); a value
    /// may be given as a whole number (`{"seat": 1}`). Rows of one team may each give
    /// some and must agree on a kind they both give.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "factor_map"
    )]
    pub factors: BTreeMap<String, String>,
}

/// Reads factors whose values are strings or whole numbers.
fn factor_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    let raw = BTreeMap::<String, Value>::deserialize(d)?;
    raw.into_iter()
        .map(|(kind, value)| match value {
            Value::String(s) => Ok((kind, s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok((kind, n.to_string())),
            other => Err(serde::de::Error::custom(format!(
                "factor {}: {other} is not valid, expected a string or a whole number",
                quote(&kind)
            ))),
        })
        .collect()
}

fn invalid(id: &str, field: &str, message: impl std::fmt::Display) -> StoreError {
    StoreError::InvalidMatch {
        message: format!("match {}, field `{field}`: {message}", quote(id)),
    }
}

/// A factor kind or value as the library takes it, within `max` bytes.
fn valid_text(s: &str, max: usize) -> bool {
    !s.is_empty() && s.trim() == s && s.len() <= max && !s.chars().any(char::is_control)
}

impl LedgerMatch {
    /// Whether any row gives a factor.
    #[must_use]
    pub fn has_factors(&self) -> bool {
        self.results.iter().any(|r| !r.factors.is_empty())
    }

    /// Checks the rows' factors, naming the field at fault (`results[2].factors.car`).
    fn check_factors(&self) -> Result<(), StoreError> {
        // Per team, each kind's value and the row that gave it first.
        let mut teams: BTreeMap<&str, BTreeMap<&str, (&str, usize)>> = BTreeMap::new();
        for (i, r) in self.results.iter().enumerate() {
            if r.factors.len() > MAX_FACTORS {
                return Err(invalid(
                    &self.id,
                    &format!("results[{i}].factors"),
                    format!(
                        "{} factors given, at most {MAX_FACTORS} per row",
                        r.factors.len()
                    ),
                ));
            }
            for (kind, value) in &r.factors {
                if !valid_text(kind, MAX_FACTOR_KIND)
                    || kind.contains('=')
                    || RESULT_FIELDS.contains(&kind.as_str())
                {
                    return Err(invalid(
                        &self.id,
                        &format!("results[{i}].factors"),
                        format!(
                            "kind {} is not valid, expected 1 to {MAX_FACTOR_KIND} bytes without surrounding spaces, control characters or '=', and none of {}",
                            quote(kind),
                            RESULT_FIELDS.join(", ")
                        ),
                    ));
                }
                let field = format!("results[{i}].factors.{kind}");
                if !valid_text(value, MAX_FACTOR_VALUE) {
                    return Err(invalid(
                        &self.id,
                        &field,
                        format!(
                            "{} is not valid, expected 1 to {MAX_FACTOR_VALUE} bytes without surrounding spaces or control characters",
                            quote(value)
                        ),
                    ));
                }
                let Some(team) = r.team.as_deref() else {
                    continue;
                };
                let given = teams.entry(team).or_default();
                match given.get(kind.as_str()) {
                    Some(&(v, j)) if v != value => {
                        return Err(invalid(
                            &self.id,
                            &field,
                            format!(
                                "{} differs from {} given for team {} in results[{j}]; a team has one value of each kind",
                                quote(value),
                                quote(v),
                                quote(team)
                            ),
                        ))
                    }
                    Some(_) => {}
                    None => {
                        given.insert(kind, (value, i));
                    }
                }
            }
        }
        Ok(())
    }

    /// Validates into a [`Match`], naming the field at fault (`results[2].rank`,
    /// `results[2].factors.car`).
    ///
    /// # Errors
    /// [`StoreError::InvalidMatch`] for a bad time, a row without a rank or score (or
    /// with both), a bad factor, or rows that do not form a valid match.
    pub fn to_match(&self) -> Result<Match, StoreError> {
        let time = match &self.time {
            None => None,
            Some(t) => Some(podium_io::parse_time(t).ok_or_else(|| {
                invalid(
                    &self.id,
                    "time",
                    format!(
                        "{} is not valid, expected an RFC 3339 time or a YYYY-MM-DD date",
                        quote(t)
                    ),
                )
            })?),
        };
        self.check_factors()?;
        let mut rows = Vec::with_capacity(self.results.len());
        for (i, r) in self.results.iter().enumerate() {
            let finish = match (r.rank, r.score) {
                (Some(v), None) => Finish::Rank(v),
                (None, Some(v)) => Finish::Score(v),
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        &self.id,
                        &format!("results[{i}].score"),
                        "give a rank or a score, not both",
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        &self.id,
                        &format!("results[{i}].rank"),
                        "missing, expected a rank (1 = best) or a score (higher = better)",
                    ))
                }
            };
            rows.push(ResultRow {
                player: r.player.clone(),
                team: r.team.clone(),
                finish,
                weight: r.weight.unwrap_or(1.0),
                factors: r
                    .factors
                    .iter()
                    .map(|(k, v)| Factor::new(k.as_str(), v.as_str()))
                    .collect(),
            });
        }
        Match::from_rows(self.id.clone(), time, rows).map_err(|e| invalid(&self.id, "results", e))
    }

    /// The ledger's form of a match: entries best first, each row with its entry's
    /// factors, a weight of 1 left out (the JSON Lines form, factors nested).
    #[must_use]
    pub fn from_match(m: &Match) -> Self {
        let j = podium_io::JsonMatch::from_match(m);
        let results = j
            .results
            .into_iter()
            .map(|r| LedgerResult {
                player: r.player,
                rank: r.rank,
                score: r.score,
                team: r.team,
                weight: r.weight,
                factors: r.factors,
            })
            .collect();
        LedgerMatch {
            id: j.id,
            time: j.time,
            results,
        }
    }

    /// The match as a line of a JSON Lines file that `podium rate --factor KIND` reads:
    /// each factor a field of its row (`{"player":"ann","rank":1,"car":"ferrari"}`).
    #[must_use]
    pub fn to_jsonl(&self) -> Value {
        let results = self
            .results
            .iter()
            .map(|r| podium_io::JsonResult {
                player: r.player.clone(),
                rank: r.rank,
                score: r.score,
                team: r.team.clone(),
                weight: r.weight,
                factors: r.factors.clone(),
            })
            .collect();
        serde_json::to_value(podium_io::JsonMatch {
            id: self.id.clone(),
            time: self.time.clone(),
            results,
        })
        .expect("a match serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> LedgerMatch {
        serde_json::from_str(text).unwrap()
    }

    fn error(text: &str) -> String {
        parse(text).to_match().unwrap_err().to_string()
    }

    /// A match without factors is written as JSON Lines files write it, byte for byte:
    /// ledgers from before factors read back, and hash, as they did.
    #[test]
    fn a_match_without_factors_is_written_as_match_files_write_it() {
        let text = r#"{"match":"g1","time":"2024-05-01","results":[{"player":"ann","rank":1.0},{"player":"bo","rank":2.0,"team":"b","weight":0.5},{"player":"cy","rank":2.0,"team":"b"}]}"#;
        let game = parse(text).to_match().unwrap();
        let plain = podium_io::JsonMatch::from_match(&game);
        assert_eq!(
            serde_json::to_string(&LedgerMatch::from_match(&game)).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
        assert_eq!(serde_json::to_string(&parse(text)).unwrap(), text);
    }

    #[test]
    fn factors_go_to_every_row_of_their_entry() {
        let m = parse(
            r#"{"match":"r1","results":[
                {"player":"ann","rank":2,"team":"red","factors":{"car":"ferrari"}},
                {"player":"al","rank":2,"team":"red","factors":{"seat":1}},
                {"player":"bo","rank":1,"factors":{"car":"mclaren"}}]}"#,
        );
        let game = m.to_match().unwrap();
        assert_eq!(game.factors().len(), 3);
        let back = LedgerMatch::from_match(&game);
        assert_eq!(back.results[0].player, "bo");
        let red = BTreeMap::from([
            ("car".to_string(), "ferrari".to_string()),
            ("seat".to_string(), "1".to_string()),
        ]);
        assert_eq!(back.results[1].factors, red);
        assert_eq!(back.results[2].factors, red);
        assert_eq!(
            back.to_jsonl()["results"][1],
            serde_json::json!({"player":"ann","rank":2.0,"team":"red","car":"ferrari","seat":"1"})
        );
    }

    #[test]
    fn bad_factors_name_their_field() {
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1},{"player":"b","rank":2},{"player":"c","rank":3,"factors":{"car":" x"}}]}"#,
        );
        assert_eq!(
            e,
            "invalid match: match \"g\", field `results[2].factors.car`: \" x\" is not valid, expected 1 to 200 bytes without surrounding spaces or control characters"
        );
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1,"factors":{"a=b":"x"}},{"player":"b","rank":2}]}"#,
        );
        assert!(
            e.starts_with("invalid match: match \"g\", field `results[0].factors`: kind \"a=b\""),
            "{e}"
        );
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1,"factors":{"rank":"x"}},{"player":"b","rank":2}]}"#,
        );
        assert!(e.contains("kind \"rank\" is not valid"), "{e}");
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1,"team":"t","factors":{"car":"x"}},{"player":"b","rank":1,"team":"t","factors":{"car":"y"}},{"player":"c","rank":2}]}"#,
        );
        assert_eq!(
            e,
            "invalid match: match \"g\", field `results[1].factors.car`: \"y\" differs from \"x\" given for team \"t\" in results[0]; a team has one value of each kind"
        );
        let e = serde_json::from_str::<LedgerMatch>(
            r#"{"match":"g","results":[{"player":"a","rank":1,"factors":{"seat":1.5}}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("factor \"seat\": 1.5 is not valid, expected a string or a whole number"),
            "{e}"
        );
    }

    #[test]
    fn rows_without_a_finish_name_their_field() {
        let e = error(r#"{"match":"g","results":[{"player":"a","rank":1},{"player":"b"}]}"#);
        assert_eq!(e, "invalid match: match \"g\", field `results[1].rank`: missing, expected a rank (1 = best) or a score (higher = better)");
        let e = error(r#"{"match":"g","time":"soon","results":[]}"#);
        assert!(e.contains("field `time`: \"soon\" is not valid"), "{e}");
    }
}
