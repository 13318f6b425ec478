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

/// The most factor kinds one result row (and one entry) may give: the library's
/// [`podium::factor::MAX_FACTORS`].
pub const MAX_FACTORS: usize = podium::factor::MAX_FACTORS;
/// The longest factor kind accepted, in bytes ([`podium::factor::MAX_KIND_LEN`]).
pub const MAX_FACTOR_KIND: usize = podium::factor::MAX_KIND_LEN;
/// The longest factor value accepted, in bytes ([`podium::factor::MAX_VALUE_LEN`]).
pub const MAX_FACTOR_VALUE: usize = podium::factor::MAX_VALUE_LEN;
/// The longest player id, team name or match id accepted, in bytes
/// ([`podium::model::MAX_ID_LEN`]).
pub const MAX_ID_LEN: usize = podium::model::MAX_ID_LEN;

/// The names no factor kind may have, in any case ([`podium::factor::RESERVED_KINDS`]):
/// the fields of a match and of a result row, and the columns of a CSV file. The
/// ledger's export writes each factor as a field of its row (`"car": "ferrari"`), as
/// match files carry them, which `podium rate --factor KIND` then reads.
pub const RESERVED_KINDS: [&str; 10] = podium::factor::RESERVED_KINDS;

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

/// Reads factors whose values are strings or whole numbers that convert exactly
/// ([`podium_io::factor_value`]); strings are checked with their field's name by
/// [`LedgerMatch::to_match`].
fn factor_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    let raw = BTreeMap::<String, Value>::deserialize(d)?;
    raw.into_iter()
        .map(|(kind, value)| match value {
            Value::String(s) => Ok((kind, s)),
            other => podium_io::factor_value(&kind, &other)
                .map(|v| (kind, v))
                .map_err(serde::de::Error::custom),
        })
        .collect()
}

fn invalid(id: &str, field: &str, message: impl std::fmt::Display) -> StoreError {
    StoreError::InvalidMatch {
        message: format!("match {}, field `{field}`: {message}", quote(id)),
    }
}

/// How far after the clock a match's time may lie: a date entered where the day has
/// begun ahead of UTC reads as up to 14 hours ahead.
pub(crate) const AHEAD: i64 = 86_400;

impl LedgerMatch {
    /// Refuses a match dated more than [`AHEAD`] after `now` (Unix seconds): a result is
    /// recorded once played, and a mistyped year would otherwise sit after every match
    /// recorded later, in rating order, until corrected.
    pub(crate) fn check_played_by(&self, time: Option<i64>, now: i64) -> Result<(), StoreError> {
        match (time, &self.time) {
            (Some(t), Some(text)) if t > now.saturating_add(AHEAD) => Err(invalid(
                &self.id,
                "time",
                format!(
                    "{} is after today (the server's clock reads {}): record a match once it has been played, dated when it was played",
                    quote(text),
                    podium_io::format_time(now)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Whether any row gives a factor.
    #[must_use]
    pub fn has_factors(&self) -> bool {
        self.results.iter().any(|r| !r.factors.is_empty())
    }

    /// Checks the rows' ids and factors by the library's rules, naming the field at
    /// fault (`results[2].player`, `results[2].factors.car`).
    fn check_rows(&self) -> Result<(), StoreError> {
        // Per team, each kind's value and the row that gave it first.
        let mut teams: BTreeMap<&str, BTreeMap<&str, (&str, usize)>> = BTreeMap::new();
        for (i, r) in self.results.iter().enumerate() {
            podium::model::check_player_id(&r.player)
                .map_err(|e| invalid(&self.id, &format!("results[{i}].player"), e))?;
            if let Some(team) = r.team.as_deref().filter(|t| !podium::model::check_id(t)) {
                return Err(invalid(
                    &self.id,
                    &format!("results[{i}].team"),
                    podium::MatchError::InvalidTeamName {
                        team: team.to_string(),
                    },
                ));
            }
            if r.factors.len() > MAX_FACTORS {
                return Err(invalid(
                    &self.id,
                    &format!("results[{i}].factors"),
                    podium::FactorError::TooMany {
                        count: r.factors.len(),
                    },
                ));
            }
            for (kind, value) in &r.factors {
                podium::factor::check_kind(kind)
                    .map_err(|e| invalid(&self.id, &format!("results[{i}].factors"), e))?;
                let field = format!("results[{i}].factors.{kind}");
                podium::factor::check_value(kind, value)
                    .map_err(|e| invalid(&self.id, &field, e))?;
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
        self.check_rows()?;
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
            "invalid match: match \"g\", field `results[2].factors.car`: factor \"car\": value \" x\" is not valid, expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615"
        );
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1,"factors":{"a=b":"x"}},{"player":"b","rank":2}]}"#,
        );
        assert!(
            e.starts_with(
                "invalid match: match \"g\", field `results[0].factors`: factor kind \"a=b\""
            ),
            "{e}"
        );
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1,"factors":{"rank":"x"}},{"player":"b","rank":2}]}"#,
        );
        assert!(e.contains("factor kind \"rank\" is not valid"), "{e}");
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
            e.starts_with("factor \"seat\": 1.5 is not valid, expected a factor value: a string of 1 to 200 bytes without surrounding spaces or control characters, or a whole number from -9223372036854775808 to 18446744073709551615"),
            "{e}"
        );
    }

    #[test]
    fn factor_kind_named_like_a_field_is_refused_everywhere() {
        for kind in [
            "match", "time", "id", "results", "Player", "Rank", "SCORE", "Team", "Weight",
            "Factors",
        ] {
            let e = error(&format!(
                r#"{{"match":"g","results":[{{"player":"a","rank":1,"factors":{{"{kind}":"x"}}}},{{"player":"b","rank":2}}]}}"#
            ));
            assert_eq!(
                e,
                format!("invalid match: match \"g\", field `results[0].factors`: factor kind {kind:?} is not valid, expected a factor kind that is not the name of a column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, factors, in any case)")
            );
        }
    }

    #[test]
    fn factor_values_of_another_type_are_refused_with_the_readers_words() {
        for (raw, shown) in [
            ("true", "true"),
            ("null", "null"),
            ("2.5", "2.5"),
            ("10000000000000000000001", "1e+22"),
        ] {
            let e = serde_json::from_str::<LedgerMatch>(&format!(
                r#"{{"match":"g","results":[{{"player":"a","rank":1,"factors":{{"seat":{raw}}}}}]}}"#
            ))
            .unwrap_err()
            .to_string();
            assert!(
                e.starts_with(&format!(
                    "factor \"seat\": {shown} is not valid, expected a factor value"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn more_factor_kinds_than_an_entry_may_carry_are_refused() {
        // Sixteen kinds on each of two rows of one team: thirty-two on the entry.
        let kinds = |from: usize| {
            (from..from + 16)
                .map(|k| format!("\"k{k}\":\"x\""))
                .collect::<Vec<_>>()
                .join(",")
        };
        let e = error(&format!(
            r#"{{"match":"g","results":[{{"player":"a","rank":1,"team":"t","factors":{{{}}}}},{{"player":"b","rank":1,"team":"t","factors":{{{}}}}},{{"player":"c","rank":2}}]}}"#,
            kinds(0),
            kinds(16)
        ));
        assert!(
            e.ends_with("32 factor kinds given, expected at most 16 factor kinds per entry"),
            "{e}"
        );
    }

    #[test]
    fn player_id_longer_than_the_limit_is_refused() {
        let long = "p".repeat(MAX_ID_LEN + 1);
        let e = error(&format!(
            r#"{{"match":"g","results":[{{"player":"a","rank":1}},{{"player":"{long}","rank":2}}]}}"#
        ));
        assert_eq!(
            e,
            format!("invalid match: match \"g\", field `results[1].player`: player id {:?}… (201 bytes) is not valid, expected 1 to 200 bytes without surrounding spaces or control characters", "p".repeat(60))
        );
        let e = error(
            r#"{"match":"g","results":[{"player":"a\u0000","rank":1},{"player":"b","rank":2,"team":"t\n"}]}"#,
        );
        assert!(
            e.contains("field `results[0].player`: player id \"a\\0\" is not valid"),
            "{e}"
        );
        let e = error(
            r#"{"match":"g","results":[{"player":"a","rank":1},{"player":"b","rank":2,"team":"t\n"}]}"#,
        );
        assert!(
            e.contains("field `results[1].team`: team name \"t\\n\" is not valid"),
            "{e}"
        );
    }

    /// Whatever the ledger accepts, its export (`to_jsonl`) is read back by the command
    /// line's JSON Lines reader with the kinds as `--factor`, as the same match.
    #[test]
    fn what_the_ledger_accepts_its_export_reads_back() {
        let bodies = [
            r#"{"match":"r1","time":"2024-05-01","results":[{"player":"ann","rank":1,"team":"red","factors":{"car":"ferrari","matchday":3}},{"player":"al","rank":1,"team":"red"},{"player":"Kimi Räikkönen","rank":2,"factors":{"car":"McLaren F1","matchday":3,"Seat":-9223372036854775808}},{"player":"^1Sarge^7","rank":3,"weight":0.5,"factors":{"Seat":18446744073709551615}}]}"#,
            r#"{"match":"r2","time":"2024-05-02","results":[{"player":"ann","score":10,"factors":{"car":"a b"}},{"player":"bo","score":12}]}"#,
        ];
        let kinds = ["car", "matchday", "Seat"];
        let options = podium_io::ReadOptions::with_factors(kinds);
        options.check().unwrap();
        // The export of a league is one file, a line per match.
        let mut export = String::new();
        let mut stored = Vec::new();
        for body in bodies {
            let game = parse(body).to_match().unwrap();
            let ledger = LedgerMatch::from_match(&game);
            export.push_str(&serde_json::to_string(&ledger.to_jsonl()).unwrap());
            export.push('\n');
            stored.push((ledger, game.factors().len()));
        }
        let back: Vec<_> =
            podium_io::JsonlMatches::with_options("export.jsonl", export.as_bytes(), &options)
                .collect::<Result<_, _>>()
                .unwrap();
        assert_eq!(back.len(), stored.len());
        for (m, (ledger, factors)) in back.iter().zip(&stored) {
            // The same match, its entries' factors in another order (by kind here, in
            // the order of `--factor` there).
            assert_eq!(&LedgerMatch::from_match(m), ledger, "{export}");
            assert_eq!(m.factors().len(), *factors);
        }
    }

    #[test]
    fn rows_without_a_finish_name_their_field() {
        let e = error(r#"{"match":"g","results":[{"player":"a","rank":1},{"player":"b"}]}"#);
        assert_eq!(e, "invalid match: match \"g\", field `results[1].rank`: missing, expected a rank (1 = best) or a score (higher = better)");
        let e = error(r#"{"match":"g","time":"soon","results":[]}"#);
        assert!(e.contains("field `time`: \"soon\" is not valid"), "{e}");
    }
}
