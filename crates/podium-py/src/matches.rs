//! Matches from Python: the forms a match may take (a ranking, a mapping of places, a
//! `Match`), the `Match` class, and `Matches`, a history kept compactly in rating order.
//!
//! A match is given as
//! - a **ranking**: a list of entries best first, each a player id or a list of player ids
//!   (a team): `["ann", ["bo", "cy"], "di"]`; no ties;
//! - a **mapping** of player (or team, as a tuple of player ids) to place, 1 = best; equal
//!   places are ties: `{"ann": 1, "bo": 2, "cy": 2}`;
//! - a **`Match`**, which adds scores, named teams, partial play, a time and an id.
//!
//! Any of them may give entries **factors** (what else than the players decides a
//! result: a car, a seat, a faction; [`podium::factor`]) with the keyword `factors`: a
//! mapping of entry to `{kind: value}`, the shape of a result row's `"factors"` in the
//! server's JSON.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use compact_str::CompactString;
use podium::model::RowRef;
use podium::{Entry as LibEntry, Factor, Finish, Match, Member};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator, PyList, PyMapping, PySlice, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::errors::{bad_matches, match_error, BadMatch, MatchError};
use crate::table::{import_pandas, into_py_by_ref, quoted, row};

row! {
    /// One entry of a match: a player, or a team whose members share one finish.
    Entry {
        /// The team's name, `None` for a player entering alone (a team given as a tuple
        /// of players is named by its players joined with `+`).
        team: Option<String>,
        /// The entry's players.
        players: Vec<String>,
        /// Each player's share of the match (partial play), in `players` order.
        weights: Vec<f64>,
        /// The entry's place, 1 = first; tied entries share the best place they cover.
        place: usize,
        /// The entry's score, when the match was given by scores (higher is better).
        score: Option<f64>,
        /// The entry's factors, kind → value (`{"car": "ferrari"}`); empty without.
        factors: Factors,
    }
}

/// An entry's factors, shown to Python as a dict of kind → value in the entry's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Factors(pub Vec<Factor>);

impl<'py> IntoPyObject<'py> for Factors {
    type Target = PyDict;
    type Output = Bound<'py, PyDict>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        factor_dict(py, &self.0)
    }
}

into_py_by_ref!(Factors, PyDict);

/// Factors as a dict of kind → value.
pub fn factor_dict<'py>(py: Python<'py>, factors: &[Factor]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for f in factors {
        d.set_item(&f.kind, &f.value)?;
    }
    Ok(d)
}

/// One entry's factors from Python: a mapping of kind to value, each value a string or a
/// whole number within 64 bits (`{"car": "ferrari", "seat": 1}`), by the library's rule
/// ([`podium::factor::value_of`], as the readers and the server apply it); `player` names
/// the entry in errors. The library checks kinds (and their number) when the match is
/// built.
pub fn factors_of(value: &Bound<'_, PyAny>, whose: &str, player: &str) -> PyResult<Vec<Factor>> {
    use podium::factor::{value_of, Given};
    if !is_mapping(value) {
        return Err(PyTypeError::new_err(format!(
            "factors of {whose}: a mapping of kind to value (e.g. {{\"car\": \"ferrari\"}}), not {}",
            value.get_type().name()?
        )));
    }
    let mut out = Vec::new();
    for item in value.call_method0("items")?.try_iter()? {
        let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let kind = match k.cast::<PyString>() {
            Ok(s) => s.to_cow()?.into_owned(),
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "factors of {whose}: a factor kind is a string, not {}",
                    k.get_type().name()?
                )))
            }
        };
        let text;
        let given = if let Ok(s) = v.cast::<PyString>() {
            text = s.to_cow()?.into_owned();
            Given::Text(&text)
        } else if crate::numbers::is_bool(&v) {
            Given::Bool(v.is_truthy()?)
        } else if v.is_none() {
            Given::Null
        } else if let Some(v) = crate::numbers::integer(&v)? {
            match (v.extract::<i64>(), v.extract::<u64>()) {
                (Ok(i), _) => Given::Integer(i.into()),
                (_, Ok(u)) => Given::Integer(u.into()),
                _ => {
                    text = v.str()?.to_cow()?.into_owned();
                    Given::Number(&text)
                }
            }
        } else if v.is_instance_of::<pyo3::types::PyFloat>() {
            // As a Python float writes it (numpy's `repr` names its type).
            text = float_repr(&v)?;
            Given::Number(&text)
        } else {
            text = format!("a {}", v.get_type().name()?);
            Given::Other(&text)
        };
        let value = value_of(&kind, given).map_err(|source| {
            match_error(podium::MatchError::InvalidFactor {
                player: player.to_string(),
                source: Box::new(source),
            })
        })?;
        out.push(Factor::new(kind, value));
    }
    Ok(out)
}

/// A float (Python's, or a subclass such as `numpy.float64`) as Python's `repr` of a
/// float writes it: the shortest text that reads back as the same number.
pub fn float_repr(v: &Bound<'_, PyAny>) -> PyResult<String> {
    let x: f64 = v.extract()?;
    Ok(pyo3::types::PyFloat::new(v.py(), x)
        .repr()?
        .to_cow()?
        .into_owned())
}

/// A player id from Python: a string.
fn player_id(v: &Bound<'_, PyAny>) -> PyResult<String> {
    match v.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "player ids are strings, not {} ({})",
            v.get_type().name()?,
            v.repr()?
        ))),
    }
}

/// A place, score or weight from Python: a real number, numpy's too (not a bool, nor
/// numpy's).
fn finish_value(v: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    if crate::numbers::is_bool(v) {
        return Err(PyTypeError::new_err(format!(
            "a {what} is a number, not a bool"
        )));
    }
    v.extract::<f64>().map_err(|_| {
        PyTypeError::new_err(format!(
            "a {what} is a number, not {}",
            v.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })
}

/// What kind of unordered collection `v` is (`"set"`, `"frozenset"`), if it is one: its
/// order is that of its hashes, which change from run to run, so it is no ranking and no
/// sequence of matches.
fn unordered(v: &Bound<'_, PyAny>) -> Option<&'static str> {
    if v.is_instance_of::<pyo3::types::PyFrozenSet>() {
        Some("frozenset")
    } else if v.is_instance_of::<pyo3::types::PySet>() {
        Some("set")
    } else {
        None
    }
}

/// Whether `v` is a mapping (a dict, or anything registered as `collections.abc.Mapping`).
fn is_mapping(v: &Bound<'_, PyAny>) -> bool {
    v.is_instance_of::<PyDict>() || v.cast::<PyMapping>().is_ok()
}

/// One entry before validation.
pub struct RawEntry {
    pub team: Option<String>,
    pub players: Vec<String>,
    pub finish: Finish,
    pub factors: Vec<Factor>,
}

impl RawEntry {
    /// How the entry is named in messages: its team, or its players joined with `+`.
    fn label(&self) -> String {
        self.team.clone().unwrap_or_else(|| self.players.join("+"))
    }
}

/// Gives entries the factors of `factors`: a mapping of entry to `{kind: value}`, an
/// entry named by a player id (its entry, as a row of a file gives its entry's factors),
/// a team name, or a tuple (or frozenset) of the entry's players. Two values of one kind
/// for one entry raise the library's `MatchError`.
pub fn give_factors(raw: &mut [RawEntry], factors: &Bound<'_, PyAny>) -> PyResult<()> {
    if !is_mapping(factors) {
        return Err(PyTypeError::new_err(
            "factors is a mapping of entry (a player id, a team name or a tuple of players) to {kind: value}",
        ));
    }
    for item in factors.call_method0("items")?.try_iter()? {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let (at, who) = if let Ok(s) = key.cast::<PyString>() {
            let name = s.to_cow()?;
            let at = raw
                .iter()
                .position(|e| e.team.as_deref() == Some(&*name))
                .or_else(|| {
                    raw.iter()
                        .position(|e| e.players.iter().any(|p| *p == name))
                });
            (at, name.into_owned())
        } else if key.is_instance_of::<PyTuple>()
            || key.is_instance_of::<pyo3::types::PyFrozenSet>()
        {
            let mut players = key
                .try_iter()?
                .map(|p| player_id(&p?))
                .collect::<PyResult<Vec<_>>>()?;
            let who = players.join("+");
            players.sort();
            let at = raw.iter().position(|e| {
                let mut mine: Vec<&String> = e.players.iter().collect();
                mine.sort();
                mine.len() == players.len() && mine.iter().zip(&players).all(|(a, b)| *a == b)
            });
            (at, who)
        } else {
            return Err(PyTypeError::new_err(format!(
                "factors: an entry is a player id, a team name or a tuple of player ids, not {} ({})",
                key.get_type().name()?,
                key.repr()?
            )));
        };
        let Some(at) = at else {
            return Err(MatchError::new_err(format!(
                "factors: entry {who:?} is not in the match"
            )));
        };
        let entry = &mut raw[at];
        let player = if entry.players.contains(&who) {
            who.clone()
        } else {
            entry.players.first().cloned().unwrap_or_default()
        };
        for f in factors_of(&value, &entry.label(), &player)? {
            match entry.factors.iter().find(|g| g.kind == f.kind) {
                Some(g) if g.value == f.value => {}
                Some(g) => {
                    return Err(match_error(podium::MatchError::FactorMismatch {
                        player,
                        expected: g.to_string(),
                        found: f.to_string(),
                    }))
                }
                None => entry.factors.push(f),
            }
        }
    }
    Ok(())
}

/// The parts of a match as given to `Match(...)` or `League.rate(...)`.
pub struct MatchArgs<'a, 'py> {
    /// A ranking (best first) or a mapping of places.
    pub entries: Option<&'a Bound<'py, PyAny>>,
    /// A mapping of scores (higher is better).
    pub scores: Option<&'a Bound<'py, PyAny>>,
    /// Team name → players.
    pub teams: Option<&'a Bound<'py, PyAny>>,
    /// Player → share of the match played.
    pub weights: Option<&'a Bound<'py, PyAny>>,
    /// Entry → its factors, `{kind: value}`.
    pub factors: Option<&'a Bound<'py, PyAny>>,
    /// When it was played.
    pub time: Option<i64>,
    /// Its id.
    pub id: String,
}

impl MatchArgs<'_, '_> {
    /// Validates and builds the match.
    pub fn build(&self) -> PyResult<Match> {
        if let Some(list) = self.entries.and_then(|e| e.cast::<PyList>().ok()) {
            if self.scores.is_none()
                && self.teams.is_none()
                && self.weights.is_none()
                && self.factors.is_none()
            {
                if let Some(m) = ranking(list, &self.id, self.time, None) {
                    return m;
                }
            }
        }
        let mut teams: Vec<(String, Vec<String>, bool)> = Vec::new();
        if let Some(t) = self.teams {
            if !is_mapping(t) {
                return Err(PyTypeError::new_err(
                    "teams is a mapping of team name to a list of player ids",
                ));
            }
            for item in t.call_method0("items")?.try_iter()? {
                let (name, players): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                let name =
                    player_id(&name).map_err(|_| PyTypeError::new_err("team names are strings"))?;
                if players.is_instance_of::<PyString>() {
                    return Err(PyTypeError::new_err(format!(
                        "team {name:?}: its players are a list of player ids, not a string"
                    )));
                }
                let players = players
                    .try_iter()?
                    .map(|p| player_id(&p?))
                    .collect::<PyResult<Vec<_>>>()?;
                teams.push((name, players, false));
            }
        }
        let mut raw: Vec<RawEntry> = Vec::new();
        let mut add = |key: &Bound<'_, PyAny>, finish: Finish| -> PyResult<()> {
            if let Ok(s) = key.cast::<PyString>() {
                let name = s.to_cow()?;
                if let Some(t) = teams.iter_mut().find(|t| t.0 == name) {
                    t.2 = true;
                    raw.push(RawEntry {
                        team: Some(t.0.clone()),
                        players: t.1.clone(),
                        finish,
                        factors: Vec::new(),
                    });
                } else {
                    raw.push(RawEntry {
                        team: None,
                        players: vec![name.into_owned()],
                        finish,
                        factors: Vec::new(),
                    });
                }
                return Ok(());
            }
            if key.is_instance_of::<PyList>()
                || key.is_instance_of::<PyTuple>()
                || key.is_instance_of::<pyo3::types::PyFrozenSet>()
            {
                let mut players = key
                    .try_iter()?
                    .map(|p| player_id(&p?))
                    .collect::<PyResult<Vec<_>>>()?;
                // A frozenset's order is its hashes': its players are put in order, so
                // that the team's name and rows do not change from run to run.
                if key.is_instance_of::<pyo3::types::PyFrozenSet>() {
                    players.sort_unstable();
                }
                raw.push(RawEntry {
                    team: Some(players.join("+")),
                    players,
                    finish,
                    factors: Vec::new(),
                });
                return Ok(());
            }
            Err(PyTypeError::new_err(format!(
                "an entry is a player id or a list of player ids (a team), not {} ({})",
                key.get_type().name()?,
                key.repr()?
            )))
        };
        match (self.entries, self.scores) {
            (Some(_), Some(_)) => {
                return Err(PyTypeError::new_err(
                    "give the places (or a ranking) or the scores, not both",
                ))
            }
            (None, None) => {
                return Err(PyTypeError::new_err(
                    "a match needs its results: a ranking (a list best first), a mapping of places, or scores=",
                ))
            }
            (Some(e), None) if is_mapping(e) => {
                for item in e.call_method0("items")?.try_iter()? {
                    let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                    add(&k, Finish::Rank(finish_value(&v, "place")?))?;
                }
            }
            (Some(e), None) => {
                if e.is_instance_of::<PyString>() {
                    return Err(PyTypeError::new_err(
                        "a match is a list of entries best first, a mapping of places or a podium.Match, not a string",
                    ));
                }
                if let Some(kind) = unordered(e) {
                    return Err(PyTypeError::new_err(format!(
                        "a ranking is an ordered sequence of entries (best first), not a {kind}, whose order is arbitrary; give a list, or a mapping of places"
                    )));
                }
                let items = e.try_iter().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "a match is a list of entries best first, a mapping of places or a podium.Match, not {}",
                        e.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string())
                    ))
                })?;
                for (i, k) in items.enumerate() {
                    add(&k?, Finish::Rank((i + 1) as f64))?;
                }
            }
            (None, Some(s)) => {
                if !is_mapping(s) {
                    return Err(PyTypeError::new_err(
                        "scores is a mapping of player (or team) to score",
                    ));
                }
                for item in s.call_method0("items")?.try_iter()? {
                    let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                    add(&k, Finish::Score(finish_value(&v, "score")?))?;
                }
            }
        }
        if let Some((name, _, _)) = teams.iter().find(|t| !t.2) {
            return Err(MatchError::new_err(format!(
                "team {name:?} is among the teams but has no result"
            )));
        }
        for (i, e) in raw.iter().enumerate() {
            if let Some(t) = &e.team {
                if raw[..i].iter().any(|o| o.team.as_deref() == Some(t)) {
                    return Err(MatchError::new_err(format!(
                        "team name {t:?} is given to two entries"
                    )));
                }
            }
        }
        let mut weights: HashMap<String, f64> = HashMap::new();
        if let Some(w) = self.weights {
            if !is_mapping(w) {
                return Err(PyTypeError::new_err(
                    "weights is a mapping of player id to the share of the match played",
                ));
            }
            for item in w.call_method0("items")?.try_iter()? {
                let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                let player = player_id(&k)?;
                if !raw.iter().any(|e| e.players.contains(&player)) {
                    return Err(MatchError::new_err(format!(
                        "weights: player {player:?} is not in the match"
                    )));
                }
                weights.insert(player, finish_value(&v, "weight")?);
            }
        }
        if let Some(f) = self.factors {
            give_factors(&mut raw, f)?;
        }
        let mut b = Match::builder(self.id.clone());
        if let Some(t) = self.time {
            b = b.time(t);
        }
        for e in raw {
            b = b.entry(LibEntry {
                team: e.team,
                members: e
                    .players
                    .into_iter()
                    .map(|p| Member {
                        weight: weights.get(&p).copied().unwrap_or(1.0),
                        player: p,
                    })
                    .collect(),
                finish: e.finish,
                factors: e.factors,
            });
        }
        b.build().map_err(match_error)
    }
}

/// The match a list of player ids best first gives (the usual free-for-all), built
/// without the general way's bookkeeping and reusing `spare`'s allocations; `None` when
/// the list holds anything but strings.
fn ranking(
    list: &Bound<'_, PyList>,
    id: &str,
    time: Option<i64>,
    spare: Option<Match>,
) -> Option<PyResult<Match>> {
    // Each id as UTF-8 bytes that Python holds while the match is built: the stable ABI
    // of Python 3.9 has no borrowed UTF-8 view of a string.
    let mut bytes = Vec::with_capacity(list.len());
    for item in list.iter() {
        match item.cast::<PyString>().ok()?.encode_utf8() {
            Ok(b) => bytes.push(b),
            Err(e) => return Some(Err(e)),
        }
    }
    let rows = bytes.iter().enumerate().map(|(i, b)| RowRef {
        // Python encodes valid UTF-8; an empty id, refused below, stands for anything else.
        player: std::str::from_utf8(b.as_bytes()).unwrap_or_default(),
        team: None,
        finish: Finish::Rank((i + 1) as f64),
        weight: 1.0,
        factors: &[],
    });
    Some(Match::from_row_refs(spare, id, time, rows).map_err(match_error))
}

/// A match given to `rate`, `rate_many` or `Matches(...)` other than as a `Match` (a
/// ranking or a mapping), built with `id`, `time` and the entries' `factors`, reusing
/// `spare`'s allocations where it can.
pub fn build_match(
    value: &Bound<'_, PyAny>,
    id: &str,
    time: Option<i64>,
    factors: Option<&Bound<'_, PyAny>>,
    spare: Option<Match>,
) -> PyResult<Match> {
    if let (Ok(list), None) = (value.cast::<PyList>(), factors) {
        if let Some(m) = ranking(list, id, time, spare) {
            return m;
        }
    }
    MatchArgs {
        entries: Some(value),
        scores: None,
        teams: None,
        weights: None,
        factors,
        time,
        id: id.to_string(),
    }
    .build()
}

/// A match given to `backtest` or `tune`, numbered `id` when it has no id of its own.
pub fn to_match(value: &Bound<'_, PyAny>, id: &str, time: Option<i64>) -> PyResult<Match> {
    if let Ok(m) = value.cast::<MatchObj>() {
        let m = m.get();
        if m.has_id {
            return Ok(m.inner.clone());
        }
        return with_id(&m.inner, id);
    }
    build_match(value, id, time, None, None)
}

/// `number` written into `id`, as the id of a numbered match.
fn numbered(id: &mut String, number: u64) -> &str {
    use std::fmt::Write;
    id.clear();
    write!(id, "{number}").expect("a String takes any text");
    id
}

/// A copy of `m` with another id.
pub fn with_id(m: &Match, id: &str) -> PyResult<Match> {
    Match::from_row_refs(None, id, m.time(), row_refs(m)).map_err(match_error)
}

/// A match's rows, borrowed, in its players' order.
fn row_refs(m: &Match) -> impl Iterator<Item = RowRef<'_>> + '_ {
    m.entries().iter().flat_map(|e| {
        e.members.iter().map(move |mem| RowRef {
            player: &mem.player,
            team: e.team.as_deref(),
            finish: e.finish,
            weight: mem.weight,
            factors: &e.factors,
        })
    })
}

/// Refuses an empty id given as `id=""` (a `MatchError`): a match without an id is given
/// none (`id=None`), and the readers refuse an empty id as well.
pub fn check_given_id(id: Option<&str>) -> PyResult<()> {
    if id == Some("") {
        return Err(MatchError::new_err(
            "id: \"\" is not valid, expected a match id (leave id out, or None, for a match without one)",
        ));
    }
    Ok(())
}

/// A validated match: at least two entries, best first, no player twice, ties grouped.
///
/// `Match(["ann", "bo", "cy"])` is a ranking, best first (an entry may be a list of
/// players: a team); `Match({"ann": 1, "bo": 2, "cy": 2})` gives places (ties share one);
/// `Match(scores={"ann": 31, "bo": 25})` gives scores (higher is better). `teams` names
/// teams (`{"red": ["ann", "bo"]}`, then `"red"` is an entry), `weights` gives partial
/// play (`{"bo": 0.5}`: 0 < w ≤ 1), `time` a datetime, a date, a string (RFC 3339 or
/// YYYY-MM-DD) or seconds since 1970, `id` the match's id (a league numbers matches
/// without one). `factors` gives entries what else than their players decides their
/// result: `{"ann": {"car": "red"}, "bo": {"car": "blue"}}`, each entry named by a
/// player id, a team name or a tuple of the team's players, each factor a kind and a
/// value (a string or a whole number). A match that cannot exist raises `MatchError`.
#[pyclass(module = "podium", name = "Match", frozen)]
pub struct MatchObj {
    pub inner: Match,
    pub has_id: bool,
    /// Whether the id was given (to `Match(...)` or by a file) rather than numbered by
    /// `Matches(...)`, for a match without one: a league refuses a match whose given id
    /// it has rated, never one for its number.
    pub id_given: bool,
}

#[pymethods]
impl MatchObj {
    #[new]
    #[pyo3(signature = (results=None, /, *, scores=None, teams=None, weights=None, factors=None, time=None, id=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        results: Option<&Bound<'_, PyAny>>,
        scores: Option<&Bound<'_, PyAny>>,
        teams: Option<&Bound<'_, PyAny>>,
        weights: Option<&Bound<'_, PyAny>>,
        factors: Option<&Bound<'_, PyAny>>,
        time: Option<&Bound<'_, PyAny>>,
        id: Option<String>,
    ) -> PyResult<Self> {
        check_given_id(id.as_deref())?;
        let time = time.map(crate::time::from_py).transpose()?.flatten();
        let inner = MatchArgs {
            entries: results,
            scores,
            teams,
            weights,
            factors,
            time,
            id: id.clone().unwrap_or_default(),
        }
        .build()?;
        Ok(MatchObj {
            inner,
            has_id: id.is_some(),
            id_given: id.is_some(),
        })
    }

    /// The match's id, `None` if it was given none (a league then numbers it).
    #[getter]
    fn id(&self) -> Option<&str> {
        self.has_id.then(|| self.inner.id())
    }

    /// When the match was played (a `datetime` in UTC), if known.
    #[getter]
    fn time(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        crate::time::to_py(py, self.inner.time())
    }

    /// The entries, best first.
    #[getter]
    fn entries(&self) -> Vec<Entry> {
        entries_of(&self.inner)
    }

    /// Every player, best first.
    #[getter]
    fn players(&self) -> Vec<String> {
        self.inner
            .players()
            .map(|(_, m)| m.player.clone())
            .collect()
    }

    /// Each player's place, 1 = first.
    #[getter]
    fn places(&self) -> Vec<(String, usize)> {
        self.inner
            .players()
            .map(|(e, m)| (m.player.clone(), self.inner.place(e)))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<MatchObj>() {
            Ok(o) => {
                let o = o.get();
                o.has_id == self.has_id && o.inner == self.inner
            }
            Err(_) => false,
        }
    }

    /// The match as long rows, one per player (as a long CSV holds it): match_id, time,
    /// player, team, place, score, weight, and factors (kind → value) for the row of an
    /// entry with factors.
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = long_rows(py, &self.inner)?;
        if !self.has_id {
            // No id: `None`, as `id` says, rather than the empty text the library keeps.
            for row in &rows {
                row.set_item("match_id", py.None())?;
            }
        }
        PyList::new(py, rows)
    }

    fn __repr__(&self) -> String {
        match_repr(&self.inner, self.has_id)
    }

    /// Pickling: the match as plain data, built again by `Match._from_state`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (MatchState,))> {
        Ok((slf.get_type().getattr("_from_state")?, (slf.get().state(),)))
    }

    /// A match is immutable: its copy is itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// The match pickled as `state` (see `__reduce__`).
    #[staticmethod]
    fn _from_state(state: MatchState) -> PyResult<Self> {
        MatchObj::from_state(state)
    }
}

/// An entry as a pickled match holds it: its team, whether its finish is a score (else
/// a rank), the finish, its members (player, weight) and its factors (kind, value).
type EntryState = (
    Option<String>,
    bool,
    f64,
    Vec<(String, f64)>,
    Vec<(String, String)>,
);

/// A match as pickled: its id (`None` without one), whether the id was given (rather than
/// numbered by `Matches(...)`), its time and its entries, best first.
type MatchState = (Option<String>, bool, Option<i64>, Vec<EntryState>);

/// Matches as pickled: each match's state, and the bad matches skipped while reading.
type MatchesState = (Vec<MatchState>, Vec<String>);

impl MatchObj {
    /// The match as plain data, every value as it is kept (finishes and weights to the
    /// bit), so that [`MatchObj::from_state`] builds the same match.
    fn state(&self) -> MatchState {
        let entries = self
            .inner
            .entries()
            .iter()
            .map(|e| {
                let (score, finish) = match e.finish {
                    Finish::Score(v) => (true, v),
                    Finish::Rank(v) => (false, v),
                };
                let members = e
                    .members
                    .iter()
                    .map(|m| (m.player.clone(), m.weight))
                    .collect();
                let factors = e
                    .factors
                    .iter()
                    .map(|f| (f.kind.clone(), f.value.clone()))
                    .collect();
                (e.team.clone(), score, finish, members, factors)
            })
            .collect();
        (
            self.has_id.then(|| self.inner.id().to_string()),
            self.id_given,
            self.inner.time(),
            entries,
        )
    }

    /// The match `state` describes, checked as every match is.
    fn from_state(state: MatchState) -> PyResult<Self> {
        let (id, id_given, time, entries) = state;
        let mut b = Match::builder(id.clone().unwrap_or_default());
        if let Some(t) = time {
            b = b.time(t);
        }
        for (team, score, finish, members, factors) in entries {
            b = b.entry(LibEntry {
                team,
                members: members
                    .into_iter()
                    .map(|(player, weight)| Member { player, weight })
                    .collect(),
                finish: if score {
                    Finish::Score(finish)
                } else {
                    Finish::Rank(finish)
                },
                factors: factors
                    .into_iter()
                    .map(|(kind, value)| Factor::new(kind, value))
                    .collect(),
            });
        }
        Ok(MatchObj {
            inner: b.build().map_err(match_error)?,
            has_id: id.is_some(),
            id_given: id.is_some() && id_given,
        })
    }
}

/// `Match(id='g1', time='2024-05-01', results=[1 ann, 2 bo, 2 cy, 4 red: di+ed])`; an
/// entry's factors follow it as the command line's `--players` writes them
/// (`1 ann@car=red`).
fn match_repr(m: &Match, has_id: bool) -> String {
    let results: Vec<String> = m
        .entries()
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let players: Vec<&str> = e.members.iter().map(|p| p.player.as_str()).collect();
            let mut who = match &e.team {
                Some(t) if *t == players.join("+") => format!("({})", players.join("+")),
                Some(t) => format!("{t}: {}", players.join("+")),
                None => players.join("+"),
            };
            for f in &e.factors {
                who.push('@');
                who.push_str(&f.to_string());
            }
            match e.finish {
                Finish::Score(s) => format!("{} {who} ({})", m.place(i), float_text(s)),
                Finish::Rank(_) => format!("{} {who}", m.place(i)),
            }
        })
        .collect();
    let mut s = String::from("Match(");
    if has_id {
        s.push_str(&format!("id={}, ", quoted(m.id())));
    }
    if let Some(t) = m.time() {
        s.push_str(&format!("time={}, ", quoted(&podium_io::format_time(t))));
    }
    s.push_str(&format!("results=[{}])", results.join(", ")));
    s
}

/// A number as Python writes it for the usual values (`31.0`, `0.5`).
fn float_text(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        x.to_string()
    }
}

/// A match's entries as rows.
pub fn entries_of(m: &Match) -> Vec<Entry> {
    m.entries()
        .iter()
        .enumerate()
        .map(|(i, e)| Entry {
            team: e.team.clone(),
            players: e.members.iter().map(|p| p.player.clone()).collect(),
            weights: e.members.iter().map(|p| p.weight).collect(),
            place: m.place(i),
            score: match e.finish {
                Finish::Score(s) => Some(s),
                Finish::Rank(_) => None,
            },
            factors: Factors(e.factors.clone()),
        })
        .collect()
}

/// The columns of a match's long rows.
const LONG_COLUMNS: [&str; 7] = [
    "match_id", "time", "player", "team", "place", "score", "weight",
];

/// A match as long rows (dicts), one per player; the row of an entry with factors has
/// them as `factors` (kind → value), as a result row of the server's JSON does.
fn long_rows<'py>(py: Python<'py>, m: &Match) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let time = crate::time::to_py(py, m.time())?;
    m.players()
        .map(|(e, p)| {
            let entry = &m.entries()[e];
            let d = PyDict::new(py);
            d.set_item("match_id", m.id())?;
            d.set_item("time", &time)?;
            d.set_item("player", &p.player)?;
            d.set_item("team", entry.team.as_deref())?;
            d.set_item("place", m.place(e))?;
            d.set_item(
                "score",
                match entry.finish {
                    Finish::Score(s) => Some(s),
                    Finish::Rank(_) => None,
                },
            )?;
            d.set_item("weight", p.weight)?;
            if !entry.factors.is_empty() {
                d.set_item("factors", factor_dict(py, &entry.factors)?)?;
            }
            Ok(d)
        })
        .collect()
}

/// `e` for the match at position `i` of a list: a `TypeError` or `MatchError` whose
/// message begins with `matches[i]: `; any other error as it is.
pub fn at_position(i: usize, e: PyErr) -> PyErr {
    Python::attach(|py| {
        let prefixed = || format!("matches[{i}]: {}", e.value(py));
        if e.is_instance_of::<MatchError>(py) {
            MatchError::new_err(prefixed())
        } else if e.is_instance_of::<PyTypeError>(py) {
            PyTypeError::new_err(prefixed())
        } else {
            e
        }
    })
}

/// The matches of a list given from Python that cannot exist, left out of the store by
/// [`Store::from_py`]: each by its position in the list, ascending, with its message.
#[derive(Debug, Default)]
pub struct Refused {
    /// Position and bad match, in the order given.
    pub listed: Vec<(usize, BadMatch)>,
}

impl Refused {
    /// Notes the `i`-th match, which `e` refused.
    fn note(&mut self, i: usize, e: &PyErr) {
        let message = Python::attach(|py| format!("matches[{i}]: {}", e.value(py)));
        self.listed.push((
            i,
            BadMatch {
                message,
                file: None,
                line: None,
                field: None,
                match_id: None,
            },
        ));
    }

    /// Whether every match was taken.
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }

    /// The bad matches, in the order given.
    pub fn bad(&self) -> Vec<BadMatch> {
        self.listed.iter().map(|(_, b)| b.clone()).collect()
    }

    /// The position in the list given of the `k`-th match stored: the `k`-th of those
    /// not refused.
    pub fn given_position(&self, k: usize) -> usize {
        let mut at = k;
        for &(i, _) in &self.listed {
            if i <= at {
                at += 1;
            } else {
                break;
            }
        }
        at
    }

    /// The error for these matches (none when there are none): a `MatchError` listing
    /// them, `what` saying what was not done, `how` how to go on anyway.
    pub fn error(&self, what: &str, how: &str) -> Option<PyErr> {
        (!self.is_empty()).then(|| {
            bad_matches(
                MatchError::new_err,
                self.listed.len(),
                &self.bad(),
                what,
                how,
            )
        })
    }
}

/// Strings kept end to end in one buffer, each found by number; optionally interned.
#[derive(Debug, Clone, Default)]
struct Strings {
    text: String,
    ends: Vec<usize>,
    index: Option<HashMap<CompactString, u32, foldhash::fast::RandomState>>,
}

impl Strings {
    fn interned() -> Self {
        Strings {
            index: Some(HashMap::default()),
            ..Strings::default()
        }
    }

    fn get(&self, k: u32) -> &str {
        let k = k as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.text[start..self.ends[k]]
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Adds `s` (or finds it, when interned) and returns its number.
    fn add(&mut self, s: &str) -> u32 {
        if let Some(index) = &self.index {
            if let Some(&k) = index.get(s) {
                return k;
            }
        }
        let k = self.ends.len() as u32;
        self.text.push_str(s);
        self.ends.push(self.text.len());
        if let Some(index) = &mut self.index {
            index.insert(CompactString::from(s), k);
        }
        k
    }
}

/// No team, in [`StoredRow::team`].
const NO_TEAM: u32 = u32::MAX;

/// One player's row of a stored match.
#[derive(Debug, Clone, Copy)]
struct StoredRow {
    player: u32,
    team: u32,
    finish: f64,
    weight: f64,
}

/// Validated matches kept compactly: players and teams by number, rows of a match
/// contiguous in its players' order (entries best first). A match read back is the match
/// that was stored.
#[derive(Debug, Clone)]
pub struct Store {
    players: Strings,
    teams: Strings,
    ids: Strings,
    times: Vec<Option<i64>>,
    /// Whether a match's finishes are scores (else ranks).
    scored: Vec<bool>,
    /// Whether a match is a free-for-all of single players who all played the whole
    /// match (which a league rates without building it).
    simple: Vec<bool>,
    /// `starts[i]..starts[i + 1]` are match `i`'s rows.
    starts: Vec<usize>,
    rows: Vec<StoredRow>,
    /// The entries' factors: `factored[factor_starts[i]..factor_starts[i + 1]]` are match
    /// `i`'s entries that carry factors, each as its first row's place among the match's
    /// rows and its set of factors (a number in `factor_sets`). A history without factors
    /// costs one number per match here.
    factor_starts: Vec<u32>,
    factored: Vec<(u32, u32)>,
    factor_sets: FactorSets,
    /// The matches (ascending) whose id was numbered by `Matches(...)`, given none: a
    /// league does not hold their ids against later matches. Empty for files, whose
    /// matches all have their ids.
    numbered_ids: Vec<u32>,
}

/// The distinct sets of an entry's factors, each kept once and found by number.
#[derive(Debug, Clone, Default)]
struct FactorSets {
    sets: Vec<Box<[Factor]>>,
    index: HashMap<Box<[Factor]>, u32, foldhash::fast::RandomState>,
}

impl FactorSets {
    /// The number of `set`, added if new.
    fn add(&mut self, set: &[Factor]) -> u32 {
        if let Some(&k) = self.index.get(set) {
            return k;
        }
        let k = self.sets.len() as u32;
        self.sets.push(set.into());
        self.index.insert(set.into(), k);
        k
    }
}

impl Default for Store {
    fn default() -> Self {
        Store {
            players: Strings::interned(),
            teams: Strings::interned(),
            ids: Strings::default(),
            times: Vec::new(),
            scored: Vec::new(),
            simple: Vec::new(),
            starts: vec![0],
            rows: Vec::new(),
            factor_starts: vec![0],
            factored: Vec::new(),
            factor_sets: FactorSets::default(),
            numbered_ids: Vec::new(),
        }
    }
}

impl Store {
    /// Number of matches.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Number of distinct players.
    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// Player number `k`'s id.
    pub fn player_name(&self, k: u32) -> &str {
        self.players.get(k)
    }

    /// Whether any match holds factors.
    pub fn has_factors(&self) -> bool {
        !self.factored.is_empty()
    }

    /// Whether match `i` holds factors.
    pub fn has_factors_at(&self, i: usize) -> bool {
        self.factor_starts[i] < self.factor_starts[i + 1]
    }

    /// An empty store whose players are numbered by the caller ([`Store::push_numbered`],
    /// [`Store::append_player`]) rather than looked up by id.
    pub fn numbered() -> Self {
        Store {
            players: Strings::default(),
            ..Store::default()
        }
    }

    /// Adds player `id` under a new number (for a store made by [`Store::numbered`],
    /// whose caller knows the player is new to it).
    pub fn append_player(&mut self, id: &str) -> u32 {
        self.players.add(id)
    }

    /// Adds a match whose players (in its players' order) have the numbers `players`.
    pub fn push_numbered(&mut self, m: &Match, mut players: impl Iterator<Item = u32>) {
        self.push_with(m, m.id(), |_, _| {
            players.next().expect("a number for every player")
        });
    }

    /// Adds a match under the id `id`, numbering each player with `number` (given the
    /// store's players and the player's id).
    fn push_with(
        &mut self,
        m: &Match,
        id: &str,
        mut number: impl FnMut(&mut Strings, &str) -> u32,
    ) {
        let mut simple = true;
        let first = self.starts[self.len()];
        for e in m.entries() {
            if !e.factors.is_empty() {
                simple = false;
                let set = self.factor_sets.add(&e.factors);
                self.factored.push(((self.rows.len() - first) as u32, set));
            }
            let team = match &e.team {
                Some(t) => {
                    simple = false;
                    self.teams.add(t)
                }
                None => NO_TEAM,
            };
            let finish = match e.finish {
                Finish::Rank(v) | Finish::Score(v) => v,
            };
            for mem in &e.members {
                simple &= mem.weight == 1.0;
                let player = number(&mut self.players, &mem.player);
                self.rows.push(StoredRow {
                    player,
                    team,
                    finish,
                    weight: mem.weight,
                });
            }
        }
        self.close(m, id, simple);
    }

    /// Ends the match whose rows were just added, under the id `id`.
    fn close(&mut self, m: &Match, id: &str, simple: bool) {
        self.ids.add(id);
        self.times.push(m.time());
        self.scored
            .push(matches!(m.entries()[0].finish, Finish::Score(_)));
        self.simple.push(simple);
        self.starts.push(self.rows.len());
        self.factor_starts.push(self.factored.len() as u32);
    }

    /// Adds a match.
    pub fn push(&mut self, m: &Match) {
        self.push_with(m, m.id(), Strings::add);
    }

    /// Adds a match under another id (as [`with_id`] gives it, without building it).
    pub fn push_as(&mut self, m: &Match, id: &str) {
        self.push_with(m, id, Strings::add);
    }

    /// Adds every match of `items`, each in a form `rate()` takes (a ranking, a mapping
    /// of places, a `Match`), checked as it comes: what `Matches(...)` keeps, and the way
    /// `rate_many` takes any iterable but a `Matches`. A match without an id is numbered
    /// by its position, from `first_id`, and its id is not held as given
    /// ([`Store::id_given`]). A match that cannot exist is left out and noted in the
    /// [`Refused`] returned, by its position (`matches[500]: ...`); it is up to the
    /// caller to go on without it or not.
    ///
    /// # Errors
    /// The first item that is not a match at all (a `TypeError` naming its position), or
    /// an error of the iteration.
    pub fn from_py<'py>(
        items: impl Iterator<Item = PyResult<Bound<'py, PyAny>>>,
        first_id: u64,
    ) -> PyResult<(Store, Refused)> {
        let mut store = Store::default();
        let mut refused = Refused::default();
        // A match built from a ranking or a mapping lends its allocations to the next.
        let mut spare = None;
        let mut id = String::new();
        for (i, item) in items.enumerate() {
            let item = item?;
            let number = first_id + i as u64;
            if let Ok(m) = item.cast::<MatchObj>() {
                // A `Match` is stored as it is, not copied first.
                let m = m.get();
                if m.has_id {
                    store.push(&m.inner);
                } else {
                    store.push_as(&m.inner, numbered(&mut id, number));
                }
                if !m.id_given {
                    store.numbered_id();
                }
                continue;
            }
            let m = match build_match(&item, numbered(&mut id, number), None, None, spare.take()) {
                Ok(m) => m,
                Err(e) if e.is_instance_of::<MatchError>(item.py()) => {
                    refused.note(i, &e);
                    continue;
                }
                Err(e) => return Err(at_position(i, e)),
            };
            store.push(&m);
            store.numbered_id();
            spare = Some(m);
        }
        Ok((store, refused))
    }

    /// Adds a free-for-all of single players given by number (see
    /// [`Store::add_player`]) best first, with their places.
    pub fn push_ranked(&mut self, id: &str, players: impl Iterator<Item = (u32, usize)>) {
        for (player, place) in players {
            self.rows.push(StoredRow {
                player,
                team: NO_TEAM,
                finish: place as f64,
                weight: 1.0,
            });
        }
        self.ids.add(id);
        self.times.push(None);
        self.scored.push(false);
        self.simple.push(true);
        self.starts.push(self.rows.len());
        self.factor_starts.push(self.factored.len() as u32);
    }

    /// The number of player `id`, added if new.
    pub fn add_player(&mut self, id: &str) -> u32 {
        self.players.add(id)
    }

    /// Match `i`'s id.
    pub fn id(&self, i: usize) -> &str {
        self.ids.get(i as u32)
    }

    /// Notes that the id of the match just added was numbered, not given.
    pub fn numbered_id(&mut self) {
        let last = self.len().checked_sub(1).expect("a match was added");
        self.numbered_ids.push(last as u32);
    }

    /// Whether match `i`'s id was given (by the caller or a file), not numbered.
    pub fn id_given(&self, i: usize) -> bool {
        self.numbered_ids.is_empty() || self.numbered_ids.binary_search(&(i as u32)).is_err()
    }

    /// Match `i`'s time.
    pub fn time(&self, i: usize) -> Option<i64> {
        self.times[i]
    }

    /// Whether match `i` is a free-for-all of single players who played the whole match,
    /// by ranks, without a time: a league may rate it by its players' places alone
    /// (scores may say more than places: Weng-Lin's margin uses them).
    pub fn is_ranked(&self, i: usize) -> bool {
        self.simple[i] && self.times[i].is_none() && !self.scored[i]
    }

    /// The players (by number) of match `i`, best first.
    pub fn players_of(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        self.rows[self.starts[i]..self.starts[i + 1]]
            .iter()
            .map(|r| r.player)
    }

    /// The places of a simple match `i` (see [`Store::is_ranked`]), into `out`.
    pub fn places(&self, i: usize, out: &mut Vec<usize>) {
        out.clear();
        let rows = &self.rows[self.starts[i]..self.starts[i + 1]];
        for (k, r) in rows.iter().enumerate() {
            let place = if k > 0 && rows[k - 1].finish == r.finish {
                out[k - 1]
            } else {
                k + 1
            };
            out.push(place);
        }
    }

    /// Match `i`, built again (reusing `spare`'s allocations when given): the match
    /// that was stored.
    ///
    /// # Errors
    /// None for a match stored whole: it was valid when stored, and its rows come back
    /// in the order they were validated in.
    pub fn build(&self, i: usize, spare: Option<Match>) -> Result<Match, podium::MatchError> {
        let scored = self.scored[i];
        // Each entry's factors come with its first row: the match merges them into it.
        let mut factored = self.factored
            [self.factor_starts[i] as usize..self.factor_starts[i + 1] as usize]
            .iter()
            .peekable();
        let rows = self.rows[self.starts[i]..self.starts[i + 1]]
            .iter()
            .enumerate()
            .map(move |(k, r)| RowRef {
                player: self.players.get(r.player),
                team: (r.team != NO_TEAM).then(|| self.teams.get(r.team)),
                finish: if scored {
                    Finish::Score(r.finish)
                } else {
                    Finish::Rank(r.finish)
                },
                weight: r.weight,
                factors: match factored.next_if(|&&(at, _)| at as usize == k) {
                    Some(&(_, set)) => &self.factor_sets.sets[set as usize],
                    None => &[],
                },
            });
        Match::from_row_refs(spare, self.id(i), self.times[i], rows)
    }
}

/// A history of matches in rating order, kept compactly: what `podium.read_csv()` and
/// friends return, and what `League.rate_many()`, `backtest()` and `tune()` take fastest.
///
/// A sequence of `Match`es: `len(m)`, `m[0]`, `m[-10:]` (a `Matches` again), iteration.
/// `Matches(iterable)` builds one from matches in any accepted form (a ranking, a
/// mapping of places, a `Match`); matches without an id are numbered from 1 by their
/// position. A match that cannot exist raises `MatchError` listing every such match by
/// its position (`matches[500]: ...`), or, with `skip_bad=True`, is left out and listed
/// in `skipped`; an item that is no match at all raises `TypeError` naming its position.
#[pyclass(module = "podium", frozen, sequence)]
pub struct Matches {
    pub store: Arc<Store>,
    /// The matches of `store` in this view, in order; `None`: all, in stored order.
    pub order: Option<Arc<[u32]>>,
    /// Bad matches left out while reading with `skip_bad=True`.
    pub skipped: Vec<String>,
    /// The matches built, once something needs them as the library's matches.
    built: OnceLock<Arc<Vec<Match>>>,
}

impl Matches {
    /// A view of all of `store`.
    pub fn new(store: Store, order: Option<Vec<u32>>, skipped: Vec<String>) -> Self {
        Matches {
            store: Arc::new(store),
            order: order.map(Arc::from),
            skipped,
            built: OnceLock::new(),
        }
    }

    /// Number of matches in the view.
    pub fn len(&self) -> usize {
        self.order.as_ref().map_or(self.store.len(), |o| o.len())
    }

    /// The store's index of the view's `k`-th match.
    pub fn at(&self, k: usize) -> usize {
        self.order.as_ref().map_or(k, |o| o[k] as usize)
    }

    /// The view's matches as the library's matches (built once, then shared).
    pub fn built(&self) -> PyResult<Arc<Vec<Match>>> {
        if let Some(b) = self.built.get() {
            return Ok(Arc::clone(b));
        }
        let all = (0..self.len())
            .map(|k| self.store.build(self.at(k), None))
            .collect::<Result<Vec<_>, _>>()
            .map_err(match_error)?;
        Ok(Arc::clone(self.built.get_or_init(|| Arc::new(all))))
    }

    fn index(&self, i: isize) -> PyResult<usize> {
        let n = self.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if (0..n).contains(&j) {
            Ok(j as usize)
        } else {
            Err(PyIndexError::new_err(format!("match {i} of {n} matches")))
        }
    }

    /// The store's numbers of the view's players, in order of first appearance.
    fn player_numbers(&self) -> Vec<u32> {
        if self.order.is_none() {
            return (0..self.store.player_count() as u32).collect();
        }
        let mut seen = vec![false; self.store.player_count()];
        let mut out = Vec::new();
        for k in 0..self.len() {
            for p in self.store.players_of(self.at(k)) {
                if !std::mem::replace(&mut seen[p as usize], true) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// How many players the view's matches have (a slice's own, not its store's).
    fn player_count(&self) -> usize {
        if self.order.is_none() {
            return self.store.player_count();
        }
        self.player_numbers().len()
    }

    fn object(&self, k: usize) -> PyResult<MatchObj> {
        let i = self.at(k);
        Ok(MatchObj {
            inner: self.store.build(i, None).map_err(match_error)?,
            has_id: true,
            id_given: self.store.id_given(i),
        })
    }
}

#[pymethods]
impl Matches {
    #[new]
    #[pyo3(signature = (matches=None, /, *, skip_bad=false))]
    fn py_new(matches: Option<&Bound<'_, PyAny>>, skip_bad: bool) -> PyResult<Self> {
        let Some(ms) = matches else {
            return Ok(Matches::new(Store::default(), None, Vec::new()));
        };
        let (store, refused) = Store::from_py(iterable(ms)?, 1)?;
        if !skip_bad {
            if let Some(e) = refused.error("nothing read", "pass skip_bad=True to read the rest") {
                return Err(e);
            }
        }
        let skipped = refused.listed.into_iter().map(|(_, b)| b.message).collect();
        Ok(Matches::new(store, None, skipped))
    }

    fn __len__(&self) -> usize {
        self.len()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(slice) = key.cast::<PySlice>() {
            let ix = slice.indices(self.len() as isize)?;
            let order: Vec<u32> = (0..ix.slicelength)
                .map(|k| self.at((ix.start + k as isize * ix.step) as usize) as u32)
                .collect();
            return Matches {
                store: Arc::clone(&self.store),
                order: Some(Arc::from(order)),
                skipped: Vec::new(),
                built: OnceLock::new(),
            }
            .into_py_any(py);
        }
        let i: isize = match key.extract() {
            Ok(i) => i,
            // An int beyond isize is beyond any history, as Python's lists say of it.
            Err(_) if crate::numbers::integer(key)?.is_some() => {
                return Err(PyIndexError::new_err(format!(
                    "match {key} of {} matches",
                    self.len()
                )))
            }
            Err(_) => {
                return Err(PyTypeError::new_err(
                    "matches are indexed by a number or a slice",
                ))
            }
        };
        self.object(self.index(i)?)?.into_py_any(py)
    }

    fn __iter__(slf: Bound<'_, Self>) -> MatchesIter {
        MatchesIter {
            matches: slf.unbind(),
            next: 0,
        }
    }

    /// The bad matches left out while reading with `skip_bad=True`, one message each
    /// (file, line, field, what is wrong).
    #[getter]
    fn skipped(&self) -> Vec<String> {
        self.skipped.clone()
    }

    /// Every player of the matches, in order of first appearance.
    #[getter]
    fn players(&self) -> Vec<String> {
        self.player_numbers()
            .into_iter()
            .map(|k| self.store.player_name(k).to_string())
            .collect()
    }

    /// The matches as long rows (dicts: match_id, time, player, team, place, score,
    /// weight, and factors for the row of an entry with factors), one per player per
    /// match.
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut rows = Vec::new();
        for k in 0..self.len() {
            let m = self.store.build(self.at(k), None).map_err(match_error)?;
            rows.extend(long_rows(py, &m)?);
        }
        PyList::new(py, rows)
    }

    /// The matches as a `pandas.DataFrame` of long rows (see `to_dicts`; needs pandas):
    /// a `factors` column when a match has factors (`None` for the rows without).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = import_pandas(py)?;
        let mut cols: Vec<Vec<Py<PyAny>>> = LONG_COLUMNS.iter().map(|_| Vec::new()).collect();
        // A column of the entries' factors when a match of the view has some.
        let mut factors: Option<Vec<Py<PyAny>>> = (self.store.has_factors()
            && (0..self.len()).any(|k| self.store.has_factors_at(self.at(k))))
        .then(Vec::new);
        for k in 0..self.len() {
            let m = self.store.build(self.at(k), None).map_err(match_error)?;
            let time = crate::time::to_py(py, m.time())?;
            for (e, p) in m.players() {
                let entry = &m.entries()[e];
                cols[0].push(m.id().into_py_any(py)?);
                cols[1].push(time.clone_ref(py));
                cols[2].push(p.player.as_str().into_py_any(py)?);
                cols[3].push(entry.team.as_deref().into_py_any(py)?);
                cols[4].push(m.place(e).into_py_any(py)?);
                cols[5].push(
                    match entry.finish {
                        Finish::Score(s) => Some(s),
                        Finish::Rank(_) => None,
                    }
                    .into_py_any(py)?,
                );
                cols[6].push(p.weight.into_py_any(py)?);
                if let Some(col) = factors.as_mut() {
                    col.push(if entry.factors.is_empty() {
                        py.None()
                    } else {
                        factor_dict(py, &entry.factors)?.into_any().unbind()
                    });
                }
            }
        }
        let data = PyDict::new(py);
        for (name, col) in LONG_COLUMNS.iter().zip(cols) {
            data.set_item(name, PyList::new(py, col)?)?;
        }
        if let Some(col) = factors {
            data.set_item("factors", PyList::new(py, col)?)?;
        }
        pandas.getattr("DataFrame")?.call1((data,))
    }

    /// Pickling: the matches as plain data (with the bad matches skipped while reading),
    /// built again by `Matches._from_state`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, MatchesState)> {
        let this = slf.get();
        let matches = (0..this.len())
            .map(|k| Ok(this.object(k)?.state()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok((
            slf.get_type().getattr("_from_state")?,
            (matches, this.skipped.clone()),
        ))
    }

    /// Matches are immutable: their copy is themselves.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// The matches pickled as `matches` and `skipped` (see `__reduce__`).
    #[staticmethod]
    fn _from_state(matches: Vec<MatchState>, skipped: Vec<String>) -> PyResult<Self> {
        let mut store = Store::default();
        for state in matches {
            let m = MatchObj::from_state(state)?;
            store.push(&m.inner);
            if !m.id_given {
                store.numbered_id();
            }
        }
        Ok(Matches::new(store, None, skipped))
    }

    fn __repr__(&self) -> String {
        let n = self.len();
        let mut s = format!(
            "Matches({n} match{}, {} players",
            if n == 1 { "" } else { "es" },
            self.player_count()
        );
        if !self.skipped.is_empty() {
            s.push_str(&format!(", {} skipped", self.skipped.len()));
        }
        s.push(')');
        s
    }
}

/// The iterator of a `Matches`: builds each `Match` as it is reached.
#[pyclass(module = "podium")]
pub struct MatchesIter {
    matches: Py<Matches>,
    next: usize,
}

#[pymethods]
impl MatchesIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<MatchObj>> {
        let m = self.matches.bind(py).get();
        if self.next >= m.len() {
            return Ok(None);
        }
        self.next += 1;
        m.object(self.next - 1).map(Some)
    }
}

/// The matches of `value`, given as many matches: any iterable but a string or a mapping
/// (which are one match) or a set (whose order, that of its hashes, is no rating order).
///
/// # Errors
/// A `TypeError` saying what matches are.
fn iterable<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyIterator>> {
    if value.is_instance_of::<PyString>() || value.hasattr("__fspath__")? {
        return Err(PyTypeError::new_err(format!(
            "matches are an iterable of matches (or a podium.Matches), not {} ({}); for the \
             matches of a file, read it with podium.read(path)",
            crate::errors::a_type(value),
            value.repr()?
        )));
    }
    if is_mapping(value) {
        return Err(PyTypeError::new_err(
            "matches are an iterable of matches (or a podium.Matches), not a single match; use rate() for one match",
        ));
    }
    if let Some(kind) = unordered(value) {
        return Err(PyTypeError::new_err(format!(
            "matches are an ordered sequence of matches (rated in that order), not a {kind}, whose order is arbitrary; give a list"
        )));
    }
    value.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "matches are an iterable of matches (or a podium.Matches), not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })
}

/// Matches given to `rate_many`: those of a `Matches` (its store and view, as they are),
/// or of any iterable of matches in an accepted form, stored ([`Store::from_py`]), those
/// without an id numbered from `first_id`.
///
/// The matches that cannot exist are left out, and returned.
///
/// # Errors
/// As [`Store::from_py`], or a `TypeError` for something that is not many matches.
pub fn stored_from_py(value: &Bound<'_, PyAny>, first_id: u64) -> PyResult<(View, Refused)> {
    if let Ok(m) = value.cast::<Matches>() {
        let m = m.get();
        return Ok(((Arc::clone(&m.store), m.order.clone()), Refused::default()));
    }
    let (store, refused) = Store::from_py(iterable(value)?, first_id)?;
    Ok(((Arc::new(store), None), refused))
}

/// Matches as a `Matches` holds them: a store, and the store's matches in the view, in
/// order (`None`: all, in stored order).
pub type View = (Arc<Store>, Option<Arc<[u32]>>);

/// Matches given to `backtest` or `tune`: a `Matches` as it is, or any iterable of
/// matches in an accepted form, numbered from `first_id` when they have no id.
pub enum Given {
    Stored(Py<Matches>),
    /// The matches.
    Built(Arc<Vec<Match>>),
}

impl Given {
    pub fn from_py(value: &Bound<'_, PyAny>, first_id: u64) -> PyResult<Self> {
        if let Ok(m) = value.cast::<Matches>() {
            return Ok(Given::Stored(m.clone().unbind()));
        }
        let items = iterable(value)?;
        let mut out = Vec::new();
        for (i, m) in items.enumerate() {
            out.push(
                to_match(&m?, &(first_id + i as u64).to_string(), None)
                    .map_err(|e| at_position(i, e))?,
            );
        }
        Ok(Given::Built(Arc::new(out)))
    }

    /// The matches as the library's matches (built once from a `Matches`, which needs
    /// no interpreter: call it with the lock released).
    pub fn built(&self) -> PyResult<Arc<Vec<Match>>> {
        match self {
            Given::Stored(m) => m.get().built(),
            Given::Built(v) => Ok(Arc::clone(v)),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The store on its own (no Python): what it keeps is what it was given.

    use super::*;
    use podium::ResultRow;
    use proptest::prelude::*;

    fn rows() -> impl Strategy<Value = Vec<ResultRow>> {
        let row = (
            prop::sample::select(vec!["ann", "bo", "cy", "di", "ed", "fay"]),
            prop::option::of(prop::sample::select(vec!["red", "blue", "ann+bo"])),
            prop::sample::select(vec![1.0, 2.0, 2.5, 3.0]),
            prop::sample::select(vec![1.0, 0.5]),
            prop::option::of(prop::sample::select(vec!["x", "y"])),
            prop::option::of(prop::sample::select(vec!["1", "2"])),
        )
            .prop_map(|(p, t, r, w, car, seat)| ResultRow {
                player: p.to_string(),
                team: t.map(str::to_string),
                finish: Finish::Rank(r),
                weight: w,
                factors: car
                    .map(|c| Factor::new("car", c))
                    .into_iter()
                    .chain(seat.map(|s| Factor::new("seat", s)))
                    .collect(),
            });
        prop::collection::vec(row, 2..8)
    }

    fn game(i: usize, time: Option<i64>, score: bool, rows: Vec<ResultRow>) -> Option<Match> {
        let rows = rows.into_iter().map(|mut r| {
            if score {
                r.finish = match r.finish {
                    Finish::Rank(v) | Finish::Score(v) => Finish::Score(v),
                };
            }
            r
        });
        Match::from_rows(format!("g{i}"), time, rows).ok()
    }

    proptest! {
        #[test]
        fn a_stored_match_comes_back_as_it_was(
            games in prop::collection::vec((rows(), any::<bool>(), prop::option::of(0i64..100)), 1..12),
        ) {
            let games: Vec<Match> = games
                .into_iter()
                .enumerate()
                .filter_map(|(i, (rows, score, time))| game(i, time, score, rows))
                .collect();
            let mut store = Store::default();
            for m in &games {
                store.push(m);
            }
            let mut spare = None;
            for (i, m) in games.iter().enumerate() {
                let back = store.build(i, spare.take()).unwrap();
                prop_assert_eq!(&back, m);
                if store.is_ranked(i) {
                    let mut places = Vec::new();
                    store.places(i, &mut places);
                    let want: Vec<usize> = (0..m.len()).map(|e| m.place(e)).collect();
                    prop_assert_eq!(places, want);
                }
                spare = Some(back);
            }
        }
    }

    #[test]
    fn numbered_ids_are_told_apart() {
        let game = |id: &str| Match::with_places(id, &[("a", 1), ("b", 2)]).unwrap();
        let mut store = Store::default();
        store.push(&game("x"));
        store.push(&game("2"));
        store.numbered_id();
        store.push_as(&game(""), "3");
        store.numbered_id();
        store.push(&game("y"));
        assert_eq!(
            (0..4).map(|i| store.id_given(i)).collect::<Vec<_>>(),
            [true, false, false, true]
        );
        // A match stored under another id comes back with it.
        assert_eq!(store.build(2, None).unwrap(), game("3"));
        // A store of files' matches has every id given.
        let mut read = Store::default();
        read.push(&game("2"));
        assert!(read.id_given(0));
    }

    #[test]
    fn a_ranked_match_stored_by_places() {
        let mut store = Store::default();
        let (a, b, c) = (
            store.add_player("a"),
            store.add_player("b"),
            store.add_player("c"),
        );
        assert_eq!(store.add_player("b"), b);
        store.push_ranked("g", [(a, 1), (b, 1), (c, 3)].into_iter());
        assert!(store.is_ranked(0));
        let mut places = Vec::new();
        store.places(0, &mut places);
        assert_eq!(places, [1, 1, 3]);
        let m = store.build(0, None).unwrap();
        assert_eq!(
            m,
            Match::with_places("g", &[("a", 1), ("b", 1), ("c", 3)]).unwrap()
        );
    }
}
