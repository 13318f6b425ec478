//! Groups' questions over a league: the fairest split of the players present into teams
//! or tables ([`podium::balance`]), and head-to-head records ([`podium::versus`]).

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use podium::balance::{balance as propose, BalanceConfig, BalanceError, Format};
use podium::versus::{today, HeadToHead};
use podium_store::{Derived, LeagueId, Leagues, StoreError};
use serde::Deserialize;
use serde_json::json;

use crate::error::{quote, ApiError};
use crate::extract::{whole, AppJson, AppQuery, League, PlayerName};
use crate::AppState;

/// The body of `POST /api/leagues/{id}/balance`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BalanceBody {
    players: Vec<String>,
    #[serde(default)]
    teams: Option<usize>,
    #[serde(default)]
    sizes: Vec<usize>,
    #[serde(default)]
    tables: Option<usize>,
    #[serde(default)]
    apart: Vec<Vec<String>>,
    #[serde(default)]
    together: Vec<Vec<String>>,
    /// Player → team, numbered from 1.
    #[serde(default)]
    fixed: BTreeMap<String, usize>,
    /// Players the league has not rated yet, balanced as newcomers.
    #[serde(default)]
    newcomers: Vec<String>,
    #[serde(default)]
    top: Option<usize>,
}

/// The most players a balance request may name.
const MAX_PLAYERS: usize = 200;
/// The most splits a balance request may ask for.
const MAX_TOP: usize = 20;

fn unprocessable(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
}

/// The latest time of the league's matches, to age ratings with σ to.
fn last_time(league: &podium::League) -> Option<i64> {
    league
        .players()
        .iter()
        .filter_map(|p| p.stats.last_time)
        .max()
}

pub(crate) async fn balance(
    State(state): State<AppState>,
    League(id): League,
    AppJson(body): AppJson<BalanceBody>,
) -> Result<Response, ApiError> {
    if body.players.len() > MAX_PLAYERS {
        return Err(unprocessable(format!(
            "players: {} named, at most {MAX_PLAYERS}",
            body.players.len()
        )));
    }
    if body.newcomers.len() > MAX_PLAYERS {
        return Err(unprocessable(format!(
            "newcomers: {} named, at most {MAX_PLAYERS}",
            body.newcomers.len()
        )));
    }
    check_names(&body)?;
    let top = body.top.unwrap_or(1);
    if !(1..=MAX_TOP).contains(&top) {
        return Err(unprocessable(format!(
            "top: {top}, expected 1 to {MAX_TOP}"
        )));
    }
    let format = match (body.tables, body.teams) {
        (Some(_), Some(_)) => return Err(unprocessable("give teams or tables, not both")),
        (Some(seats), None) => Format::Tables { seats },
        (None, Some(teams)) => Format::Teams {
            teams,
            sizes: body.sizes.clone(),
        },
        (None, None) if !body.sizes.is_empty() => Format::Teams {
            teams: body.sizes.len(),
            sizes: body.sizes.clone(),
        },
        (None, None) => return Err(unprocessable("give teams (a number), sizes or tables")),
    };
    let fixed = body
        .fixed
        .iter()
        .map(|(p, &t)| {
            if t == 0 {
                Err(unprocessable(format!(
                    "fixed.{p}: teams are numbered from 1"
                )))
            } else {
                Ok((p.clone(), t - 1))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let config = BalanceConfig {
        apart: body.apart,
        together: body.together,
        fixed,
        newcomers: body.newcomers,
        top,
        ..BalanceConfig::default()
    };
    let players = body.players;
    let found = state
        .with_leagues(move |l: &Leagues| {
            l.read(id, |d| {
                let league = d.league();
                // A newcomer is a player the league has not rated: one it has is balanced
                // at their rating, named among the players only.
                let rated = config
                    .newcomers
                    .iter()
                    .enumerate()
                    .find(|(_, p)| league.get(p).is_some());
                if let Some((k, p)) = rated {
                    return Ok(Err(unprocessable(format!(
                        "newcomers[{k}]: {} is rated by the league: newcomers are players it has not rated yet (a rated player is balanced at their rating, named in players only)",
                        quote(p)
                    ))));
                }
                let config = BalanceConfig {
                    time: last_time(league),
                    ..config
                };
                Ok(Ok(propose(league, &players, &format, &config)))
            })
        })
        .await??;
    match found {
        Ok(b) => Ok(Json(b).into_response()),
        Err(e @ BalanceError::UnknownPlayer { .. }) => Err(ApiError::not_found(format!(
            "{e} (a player's first game: name them in newcomers)"
        ))),
        Err(e) => Err(unprocessable(e.to_string())),
    }
}

/// The names of a balance request that no split could use: a player id that is not
/// valid, a keep-apart or keep-together group of fewer than two, a newcomer who is not
/// among the players present. Each refusal names its field (`players[0]`, `apart[1]`,
/// `newcomers[0]`).
fn check_names(body: &BalanceBody) -> Result<(), ApiError> {
    for (k, p) in body.players.iter().enumerate() {
        podium::model::check_player_id(p)
            .map_err(|e| unprocessable(format!("players[{k}]: {e}")))?;
    }
    for (option, groups) in [("apart", &body.apart), ("together", &body.together)] {
        for (k, group) in groups.iter().enumerate() {
            if group.len() < 2 {
                return Err(unprocessable(format!(
                    "{option}[{k}]: a group names two players or more, this one names {}",
                    group.len()
                )));
            }
        }
    }
    for (k, p) in body.newcomers.iter().enumerate() {
        if !body.players.contains(p) {
            return Err(unprocessable(format!(
                "newcomers[{k}]: {} is not among the players present",
                quote(p)
            )));
        }
    }
    Ok(())
}

/// Counts the meetings of `focus` over the league's ledger replayed as its ratings are
/// derived ([`Leagues::replay_observed`]): in rating order (by time, then as entered),
/// each match with the ratings before it, the league reset at each season's start. Also
/// returns the state at the end of the replay (the league's ratings now).
fn replay(l: &Leagues, id: LeagueId, focus: &[&str]) -> Result<(HeadToHead, Derived), StoreError> {
    l.read(id, |d| {
        for p in focus {
            if d.league().get(p).is_none() {
                return Err(StoreError::PlayerNotFound {
                    league: id,
                    player: (*p).to_string(),
                });
            }
        }
        Ok(())
    })?;
    let mut h2h = HeadToHead::focused(focus);
    // The first match the league cannot predict a meeting of stops the count.
    let mut refused: Option<StoreError> = None;
    let end = l.replay_observed(id, |league, game| {
        if refused.is_none() {
            if let Err(source) = h2h.observe(league, game) {
                refused = Some(StoreError::Rate {
                    key: game.id().to_string(),
                    source,
                });
            }
        }
    })?;
    match refused {
        Some(e) => Err(e),
        None => Ok((h2h, end)),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VersusQuery {
    a: String,
    b: String,
}

pub(crate) async fn versus(
    State(state): State<AppState>,
    League(id): League,
    AppQuery(q): AppQuery<VersusQuery>,
) -> Result<Response, ApiError> {
    if q.a == q.b {
        return Err(unprocessable(format!(
            "a and b are both {}: name two different players",
            quote(&q.a)
        )));
    }
    let (a, b) = (q.a.clone(), q.b.clone());
    let (h2h, chance) = state
        .with_leagues(move |l: &Leagues| {
            let (h2h, end) = replay(l, id, &[&a, &b])?;
            let league = end.league();
            Ok((h2h, today(league, &a, &b, last_time(league))))
        })
        .await?;
    let v = h2h
        .versus(&q.a, &q.b)
        .unwrap_or_else(|| podium::versus::Versus::never_met(&q.a, &q.b));
    let chance = chance.map_err(|e| unprocessable(e.to_string()))?;
    Ok(Json(json!({ "versus": v, "today": chance })).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RivalsQuery {
    #[serde(default, deserialize_with = "whole")]
    min_meetings: Option<u32>,
    #[serde(default, deserialize_with = "whole")]
    frequent: Option<usize>,
}

pub(crate) async fn rivals(
    State(state): State<AppState>,
    League(id): League,
    PlayerName(player): PlayerName,
    AppQuery(q): AppQuery<RivalsQuery>,
) -> Result<Response, ApiError> {
    let p = player.clone();
    let h2h = state
        .with_leagues(move |l: &Leagues| replay(l, id, &[&p]).map(|(h2h, _)| h2h))
        .await?;
    let r = h2h.rivals(
        &player,
        q.min_meetings.unwrap_or(3),
        q.frequent.unwrap_or(5).min(100),
    );
    Ok(Json(r).into_response())
}
