//! Groups from Python: fair teams or tables for the players present
//! (`League.balance`, [`podium::balance`]) and head-to-head records (`podium.versus`,
//! [`podium::versus`]), returned as plain Python data (dicts and lists).
//!
//! Head-to-head needs the ratings before every match, so `podium.versus` rates the
//! matches given again in a fresh league of the system, as `podium versus` does.

use std::sync::Arc;

use podium::balance::{BalanceConfig, BalanceError, Format};
use podium::versus::{today, HeadToHead, Versus};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMapping, PyString, PyTuple};

use crate::errors::{a_type, rate_error, ConfigError, PodiumError};
use crate::guard::{count, interruptible, Int};
use crate::matches::Given;
use crate::system::System;

/// A [`BalanceError`] as the package's exception: a prediction the system cannot make
/// is a `RateError`, anything else about the question a `PodiumError`.
fn balance_error(e: BalanceError) -> PyErr {
    match e {
        BalanceError::Predict(e) => rate_error(e),
        e @ BalanceError::UnknownPlayer { .. } => PodiumError::new_err(format!(
            "{e} (a player's first game: name them in newcomers=[...])"
        )),
        e => PodiumError::new_err(e.to_string()),
    }
}

/// The most players a split may be asked for, as the league server allows
/// (`POST /leagues/{id}/balance`): the search for a split of a few hundred players runs
/// for minutes.
pub const MAX_PLAYERS: usize = 200;

/// The time of the league's last match, to which ratings with σ are aged (as
/// `podium teams` and `podium predict` do).
fn last_time(league: &podium::League) -> Option<i64> {
    league
        .players()
        .iter()
        .filter_map(|p| p.stats.last_time)
        .max()
}

/// Player names given as `argument`: any iterable of strings (a list, a tuple, a set, …),
/// but not a string itself, which would be taken letter by letter. Anything else is a
/// `TypeError` naming the argument, or the item by its position.
fn names(argument: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let not_names = || {
        PyTypeError::new_err(format!(
            "{argument}: expected a list of player names, not {}",
            a_type(v)
        ))
    };
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
        return Err(not_names());
    }
    let items = v.try_iter().map_err(|_| not_names())?;
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let item = item?;
        let name = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{argument}[{i}]: expected a player name (a str), not {}",
                a_type(&item)
            ))
        })?;
        out.push(name.to_cow()?.into_owned());
    }
    Ok(out)
}

/// Groups of player names given as `argument` (`apart`, `together`): an iterable of
/// iterables of names, each read by [`names`].
fn groups_of(argument: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Vec<String>>> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    let not_groups = || {
        PyTypeError::new_err(format!(
            "{argument}: expected a list of groups, each a list of player names, not {}",
            a_type(v)
        ))
    };
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
        return Err(not_groups());
    }
    v.try_iter()
        .map_err(|_| not_groups())?
        .enumerate()
        .map(|(i, g)| names(&format!("{argument}[{i}]"), &g?))
        .collect()
}

/// Team sizes given as `sizes`: an iterable of ints, each a count.
fn sizes_of(v: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let not_sizes = || {
        PyTypeError::new_err(format!(
            "sizes: expected a list of team sizes (ints), not {}",
            a_type(v)
        ))
    };
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
        return Err(not_sizes());
    }
    v.try_iter()
        .map_err(|_| not_sizes())?
        .enumerate()
        .map(|(i, n)| {
            let n = n?;
            let argument = format!("sizes[{i}]");
            let n: Int = n.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{argument}: expected a team size (an int), not {}",
                    a_type(&n)
                ))
            })?;
            count(&argument, &n)
        })
        .collect()
}

/// Players fixed to teams given as `fix`: a mapping of player names to team numbers
/// (from 1), in the mapping's order; as 0-based team indices.
fn fixed_of(v: &Bound<'_, PyAny>) -> PyResult<Vec<(String, usize)>> {
    let map = v.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "fix: expected a dict of player names to team numbers, not {}",
            a_type(v)
        ))
    })?;
    let mut out = Vec::new();
    for item in map.items()?.iter() {
        let (p, t) = item.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        let p = p
            .cast::<PyString>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "fix: a key is a player name (a str), not {}",
                    a_type(&p)
                ))
            })?
            .to_cow()?
            .into_owned();
        let argument = format!("fix[{p:?}]");
        let t: Int = t.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{argument}: expected a team number (an int, from 1), not {}",
                a_type(&t)
            ))
        })?;
        let t: usize = t.whole(&argument)?;
        if t == 0 {
            return Err(PodiumError::new_err(format!(
                "fix: player {p:?} fixed to team 0; teams are numbered from 1"
            )));
        }
        out.push((p, t - 1));
    }
    Ok(out)
}

/// `League.balance`: see the stub in `podium.pyi`.
#[allow(clippy::too_many_arguments)]
pub fn balance<'py>(
    py: Python<'py>,
    league: &podium::League,
    players: &Bound<'py, PyAny>,
    teams: Option<Int>,
    sizes: Option<&Bound<'py, PyAny>>,
    tables: Option<Int>,
    apart: Option<&Bound<'py, PyAny>>,
    together: Option<&Bound<'py, PyAny>>,
    fix: Option<&Bound<'py, PyAny>>,
    newcomers: Option<&Bound<'py, PyAny>>,
    top: Int,
) -> PyResult<Bound<'py, PyList>> {
    let players = names("players", players)?;
    if players.len() > MAX_PLAYERS {
        return Err(ConfigError::new_err(format!(
            "players: {} named, at most {MAX_PLAYERS} can be split at once",
            players.len()
        )));
    }
    // Counts are taken as ints and checked here, to name the argument of a negative one.
    let teams = teams.map(|n| count("teams", &n)).transpose()?;
    let tables = tables.map(|n| count("tables", &n)).transpose()?;
    let sizes = sizes.map(sizes_of).transpose()?;
    let apart = groups_of("apart", apart)?;
    let together = groups_of("together", together)?;
    let newcomers = newcomers
        .map(|v| names("newcomers", v))
        .transpose()?
        .unwrap_or_default();
    let top = count("top", &top)?;
    let format = match (tables, teams, sizes) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(PodiumError::new_err(
                "give either tables or teams/sizes, not both",
            ))
        }
        (Some(seats), None, None) => Format::Tables { seats },
        (None, Some(k), sizes) => Format::Teams {
            teams: k,
            sizes: sizes.unwrap_or_default(),
        },
        (None, None, Some(sizes)) => Format::Teams {
            teams: sizes.len(),
            sizes,
        },
        (None, None, None) => {
            return Err(PodiumError::new_err(
                "say how to split: teams=K, sizes=[N, N, ...] or tables=SEATS",
            ))
        }
    };
    let fixed = fix.map(fixed_of).transpose()?.unwrap_or_default();
    let config = BalanceConfig {
        apart,
        together,
        fixed,
        newcomers,
        top: top.max(1),
        time: last_time(league),
        ..BalanceConfig::default()
    };
    // The search runs on a thread of its own, with a copy of the league, so that Ctrl-C
    // returns at once; the library's search cannot be stopped, so on Ctrl-C it goes on
    // to its end in the background and its answer is dropped.
    let league = league.clone();
    let tables = matches!(format, Format::Tables { .. });
    let found = interruptible(py, "podium-balance", None, move || {
        podium::balance::balance(&league, &players, &format, &config)
    })?
    .map_err(balance_error)?;
    let out = PyList::empty(py);
    for split in &found.splits {
        let groups = PyList::empty(py);
        for g in &split.groups {
            let d = PyDict::new(py);
            d.set_item("players", &g.players)?;
            if tables {
                d.set_item("player_win", &g.player_win)?;
            } else {
                d.set_item("win", g.win)?;
            }
            d.set_item("unevenness", g.unevenness)?;
            groups.append(d)?;
        }
        let d = PyDict::new(py);
        d.set_item(if tables { "tables" } else { "teams" }, groups)?;
        d.set_item("unevenness", split.unevenness)?;
        d.set_item("spread", split.spread)?;
        d.set_item("exact", found.exact)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A [`Versus`] as a dict.
fn versus_dict<'py>(py: Python<'py>, v: &Versus) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("player", &v.player)?;
    d.set_item("opponent", &v.opponent)?;
    d.set_item("meetings", v.meetings)?;
    d.set_item("ahead", v.ahead)?;
    d.set_item("behind", v.behind)?;
    d.set_item("ties", v.ties)?;
    d.set_item("together", v.together)?;
    d.set_item("actual_share", v.actual_share)?;
    d.set_item("expected_share", v.expected_share)?;
    d.set_item("surplus", v.surplus)?;
    Ok(d)
}

/// Whether `v` is a path: a string or an `os.PathLike`.
fn is_path(v: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(v.is_instance_of::<PyString>() || v.hasattr("__fspath__")?)
}

/// The matches given: a path or a list of paths (read with `podium.read`, as every
/// reader takes them), or matches as `backtest` takes them (a `Matches`, or an iterable
/// of matches in any form `rate()` takes).
fn matches_of(matches: &Bound<'_, PyAny>) -> PyResult<Arc<Vec<podium::Match>>> {
    let py = matches.py();
    let listed = matches.is_instance_of::<PyList>() || matches.is_instance_of::<PyTuple>();
    let paths = is_path(matches)?
        || (listed
            && matches.len()? > 0
            && matches
                .try_iter()?
                .map(|v| is_path(&v?))
                .collect::<PyResult<Vec<bool>>>()?
                .into_iter()
                .all(|p| p));
    let matches = if paths {
        py.import("podium")?.getattr("read")?.call1((matches,))?
    } else {
        matches.clone()
    };
    Given::from_py(&matches, 1)?.built()
}

/// Head-to-head by rating the matches again: two players' record, or one player's
/// rivals.
#[pyfunction]
#[pyo3(signature = (matches, player, opponent=None, /, *, system=None, min_meetings=Int::from(3), frequent=Int::from(5), **params), text_signature = "(matches, player, opponent=None, /, *, system=None, min_meetings=3, frequent=5, **params)")]
#[allow(clippy::too_many_arguments)]
pub fn versus<'py>(
    py: Python<'py>,
    matches: &Bound<'py, PyAny>,
    player: String,
    opponent: Option<String>,
    system: Option<&Bound<'py, PyAny>>,
    min_meetings: Int,
    frequent: Int,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    // More meetings than two players can have leaves every opponent out.
    let min_meetings: u32 = min_meetings.saturating("min_meetings")?;
    let frequent: usize = frequent.saturating("frequent")?;
    if opponent.as_deref() == Some(player.as_str()) {
        return Err(PodiumError::new_err(
            "a player has no record against themselves: name two different players",
        ));
    }
    let system = match system {
        Some(s) => System::from_py(s, params)?,
        None => System::from_params(podium::DEFAULT_SYSTEM, None, params)?,
    };
    let games = matches_of(matches)?;
    let focus: Vec<&str> = std::iter::once(player.as_str())
        .chain(opponent.as_deref())
        .collect();
    let (league, h2h) = py
        .detach(|| -> Result<_, podium::RateError> {
            let mut league = podium::League::shared(Arc::clone(&system.inner));
            let mut h2h = HeadToHead::focused(&focus);
            for game in games.iter() {
                h2h.observe(&league, game)?;
                league.apply(game)?;
            }
            Ok((league, h2h))
        })
        .map_err(rate_error)?;
    for p in &focus {
        if league.get(p).is_none() {
            return Err(PodiumError::new_err(format!(
                "unknown player {p:?}: not in the matches"
            )));
        }
    }
    let out = PyDict::new(py);
    out.set_item("system", system.inner.name())?;
    match &opponent {
        Some(opponent) => {
            let chance =
                today(&league, &player, opponent, last_time(&league)).map_err(rate_error)?;
            let v = h2h
                .versus(&player, opponent)
                .unwrap_or_else(|| Versus::never_met(&player, opponent));
            for (k, val) in versus_dict(py, &v)?.iter() {
                out.set_item(k, val)?;
            }
            out.set_item("today", chance)?;
        }
        None => {
            let r = h2h.rivals(&player, min_meetings, frequent);
            out.set_item("player", &r.player)?;
            out.set_item(
                "nemesis",
                r.nemesis.as_ref().map(|v| versus_dict(py, v)).transpose()?,
            )?;
            out.set_item(
                "favourite",
                r.favourite
                    .as_ref()
                    .map(|v| versus_dict(py, v))
                    .transpose()?,
            )?;
            let list = PyList::empty(py);
            for v in &r.frequent {
                list.append(versus_dict(py, v)?)?;
            }
            out.set_item("frequent", list)?;
        }
    }
    Ok(out)
}
