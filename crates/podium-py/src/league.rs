//! `League`: a pool of players rated by one system, match after match, with the
//! leaderboard, each player's history of changes and predictions.

use std::sync::Arc;

use compact_str::CompactString;
use podium::league::RankedBatch;
use podium::{PlayerChange, RateError, Slot};
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use std::convert::Infallible;

use podium_io::ingest::{self, match_fingerprint, IngestError, Inputs, Reading, Resumed};

use crate::errors::{bad_matches, rate_error, BadMatch, PodiumError};
use crate::guard::{check_signals, guarded, Int, SIGNAL_EVERY};
use crate::matches::{
    build_match, give_factors, stored_from_py, with_id, Factors, MatchObj, RawEntry, Store,
};
use crate::read::{ingest_error, inputs_of};
use crate::system::System;
use crate::table::{
    import_pandas, row, Change, FactorChange, FactorStanding, Rating, Row, Rows, Standing, Table,
    Time,
};

/// A league's record of every change it applied: what `League.history()` and
/// `League.factor_history()` show.
#[derive(Debug, Clone, Default)]
struct History {
    /// Every rated match's id and time, in rating order.
    matches: Vec<(CompactString, Option<i64>)>,
    rows: Vec<HistoryRow>,
    /// Each player's rows (indices into `rows`), by league index.
    by_player: Vec<Vec<u32>>,
    /// Every factor's change, in rating order (`player` is the factor's league index,
    /// `place` unused).
    factor_rows: Vec<HistoryRow>,
    /// Each factor's rows (indices into `factor_rows`), by league index.
    by_factor: Vec<Vec<u32>>,
}

/// How much a [`History`] holds: matches, player rows, factor rows.
type HistoryMark = (usize, usize, usize);

/// One player's change in one match, as kept (`NaN` for an absent σ or K).
#[derive(Debug, Clone, Copy)]
struct HistoryRow {
    game: u32,
    player: u32,
    place: u32,
    before: f64,
    sigma_before: f64,
    expected: f64,
    actual: f64,
    k: f64,
    weight: f64,
    after: f64,
    sigma_after: f64,
}

fn some(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

impl HistoryRow {
    fn new(game: u32, who: usize, place: usize, c: &PlayerChange) -> Self {
        HistoryRow {
            game,
            player: who as u32,
            place: place as u32,
            before: c.before.value,
            sigma_before: c.before.sigma.unwrap_or(f64::NAN),
            expected: c.expected,
            actual: c.actual,
            k: c.k.unwrap_or(f64::NAN),
            weight: c.weight,
            after: c.after.value,
            sigma_after: c.after.sigma.unwrap_or(f64::NAN),
        }
    }
}

/// Adds `row` to `rows` and its index to `by[who]`.
fn push_row(rows: &mut Vec<HistoryRow>, by: &mut Vec<Vec<u32>>, row: HistoryRow) {
    let who = row.player as usize;
    if by.len() <= who {
        by.resize_with(who + 1, Vec::new);
    }
    by[who].push(rows.len() as u32);
    rows.push(row);
}

impl History {
    /// Records one match: each player's league index, place and change, in the match's
    /// players' order, and each factor's league index and change.
    fn record(
        &mut self,
        id: &str,
        time: Option<i64>,
        changes: impl Iterator<Item = (usize, usize, PlayerChange)>,
        factors: &[(usize, PlayerChange)],
    ) {
        let game = self.matches.len() as u32;
        self.matches.push((CompactString::from(id), time));
        for (player, place, c) in changes {
            push_row(
                &mut self.rows,
                &mut self.by_player,
                HistoryRow::new(game, player, place, &c),
            );
        }
        for (factor, c) in factors {
            push_row(
                &mut self.factor_rows,
                &mut self.by_factor,
                HistoryRow::new(game, *factor, 0, c),
            );
        }
    }

    /// How much the record holds, to go back to with [`History::truncate`].
    fn mark(&self) -> HistoryMark {
        (self.matches.len(), self.rows.len(), self.factor_rows.len())
    }

    /// The record as it was at `mark`.
    fn truncate(&mut self, (matches, rows, factor_rows): HistoryMark) {
        while self.rows.len() > rows {
            let r = self.rows.pop().expect("more rows than kept");
            self.by_player[r.player as usize].pop();
        }
        while self.factor_rows.len() > factor_rows {
            let r = self.factor_rows.pop().expect("more rows than kept");
            self.by_factor[r.player as usize].pop();
        }
        self.matches.truncate(matches);
    }

    fn factor_change(&self, league: &podium::League, r: &HistoryRow) -> FactorChange {
        let (id, time) = &self.matches[r.game as usize];
        let factor = &league.factors()[r.player as usize].factor;
        FactorChange {
            match_id: id.to_string(),
            time: Time(*time),
            kind: factor.kind.clone(),
            value: factor.value.clone(),
            rating_before: r.before,
            sigma_before: some(r.sigma_before),
            expected: r.expected,
            actual: r.actual,
            k: some(r.k),
            change: r.after - r.before,
            rating_after: r.after,
            sigma_after: some(r.sigma_after),
        }
    }

    fn change(&self, league: &podium::League, r: &HistoryRow) -> Change {
        let (id, time) = &self.matches[r.game as usize];
        Change {
            match_id: id.to_string(),
            time: Time(*time),
            player: league.player(r.player as usize).name.clone(),
            place: r.place as usize,
            rating_before: r.before,
            sigma_before: some(r.sigma_before),
            expected: r.expected,
            actual: r.actual,
            k: some(r.k),
            weight: r.weight,
            change: r.after - r.before,
            rating_after: r.after,
            sigma_after: some(r.sigma_after),
        }
    }
}

/// One match's changes, as `League.rate()` returns them: rows made on demand.
struct Report {
    match_id: String,
    time: Option<i64>,
    players: Vec<CompactString>,
    places: Vec<u32>,
    changes: Vec<PlayerChange>,
}

impl Report {
    fn change(&self, i: usize) -> Change {
        let c = &self.changes[i];
        Change {
            match_id: self.match_id.clone(),
            time: Time(self.time),
            player: self.players[i].to_string(),
            place: self.places[i] as usize,
            rating_before: c.before.value,
            sigma_before: c.before.sigma,
            expected: c.expected,
            actual: c.actual,
            k: c.k,
            weight: c.weight,
            change: c.delta(),
            rating_after: c.after.value,
            sigma_after: c.after.sigma,
        }
    }
}

impl Rows for Report {
    fn len(&self) -> usize {
        self.changes.len()
    }
    fn name(&self) -> &'static str {
        Change::NAME
    }
    fn columns(&self) -> &'static [&'static str] {
        Change::COLUMNS
    }
    fn object(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        self.change(i).object(py)
    }
    fn value(&self, py: Python<'_>, i: usize, column: usize) -> PyResult<Py<PyAny>> {
        self.change(i).value(py, column)
    }
    fn select(&self, indices: &[usize]) -> Arc<dyn Rows> {
        Arc::new(indices.iter().map(|&i| self.change(i)).collect::<Vec<_>>())
    }
}

row! {
    /// What `League.rate_many()` did: how many matches it rated, and the bad matches it
    /// left out (only with `skip_bad=True`).
    RateSummary {
        /// Matches rated.
        rated: u64,
        /// The matches left out, one message each.
        skipped: Vec<String>,
    }
}

/// What a league rated, in order, to rate again when its history is first asked for:
/// the matches themselves stay where they are (a `Matches` the league was given, or the
/// league's own store of the matches given one by one).
#[derive(Debug, Clone)]
struct Log {
    ops: Vec<Op>,
    /// The matches given to the league other than as a `Matches`, their players
    /// numbered through `own_index`.
    own: Store,
    /// Each league player's number in `own`, by league index (`UNKNOWN` if not there).
    own_index: Vec<u32>,
}

#[derive(Debug, Clone)]
enum Op {
    /// A starting rating.
    Initial(String, podium::Rating),
    /// The matches of a `Matches` view, but for those at the positions `skipped`.
    Stored {
        store: Arc<Store>,
        order: Option<Arc<[u32]>>,
        skipped: Vec<usize>,
    },
    /// Matches `from..to` of the league's own store.
    Own { from: usize, to: usize },
    /// Files rated by `rate_files` (read again to rebuild the history).
    Files(Inputs),
    /// A new season started with this reset.
    Season(podium::season::Reset),
}

impl Log {
    fn new() -> Self {
        Log {
            ops: Vec::new(),
            own: Store::numbered(),
            own_index: Vec::new(),
        }
    }

    /// Keeps match `m`, rated in `league`, in the own store: its players are found by
    /// their league index (`players`, in the match's players' order), without looking
    /// their ids up.
    fn keep(
        &mut self,
        m: &podium::Match,
        league: &podium::League,
        players: impl Iterator<Item = usize> + Clone,
    ) {
        for i in players.clone() {
            if self.own_index.len() <= i {
                self.own_index.resize(i + 1, UNKNOWN);
            }
            if self.own_index[i] == UNKNOWN {
                self.own_index[i] = self.own.append_player(&league.player(i).name);
            }
        }
        let index = &self.own_index;
        self.own.push_numbered(m, players.map(|i| index[i]));
    }

    /// Keeps the matches of `store` at `order` (all, in stored order, when `None`) rated
    /// in `league` (all but those at the positions `skipped`, ascending) in the own
    /// store, as if they had been given one by one: for a batch too small to be worth a
    /// store of its own ([`OWN_BELOW`]). Keeps nothing and says false if a match cannot
    /// be built again or has a player the league does not know (neither happens to a
    /// match it rated).
    fn keep_stored(
        &mut self,
        (store, order): (&Store, Option<&[u32]>),
        skipped: &[usize],
        league: &podium::League,
    ) -> bool {
        let n = order.map_or(store.len(), <[u32]>::len);
        let mut rated = Vec::with_capacity(n.saturating_sub(skipped.len()));
        let mut players = Vec::new();
        let mut skip = skipped.iter().peekable();
        for k in 0..n {
            if skip.next_if_eq(&&k).is_some() {
                continue;
            }
            let i = order.map_or(k, |o| o[k] as usize);
            let Ok(m) = store.build(i, None) else {
                return false;
            };
            for (_, p) in m.players() {
                let Some(j) = league.index_of(&p.player) else {
                    return false;
                };
                players.push(j);
            }
            rated.push(m);
        }
        let from = self.own.len();
        let mut at = 0;
        for m in &rated {
            let n = m.players().count();
            self.keep(m, league, players[at..at + n].iter().copied());
            at += n;
        }
        self.own_rated(from);
        true
    }

    /// Notes that the own store's matches from `from` on were rated.
    fn own_rated(&mut self, from: usize) {
        let to = self.own.len();
        if to == from {
            return;
        }
        if let Some(Op::Own { to: last, .. }) = self.ops.last_mut() {
            if *last == from {
                *last = to;
                return;
            }
        }
        self.ops.push(Op::Own { from, to });
    }
}

/// A pool of players rated by one system, match after match.
///
/// `League(system, history=True)`: `system` is a `System` or a system's name (then
/// keyword parameters may follow: `League("sme", k=24)`). A league keeps what it rated
/// so that `history()` can show every change; the first call rates everything again,
/// recording, and the league records as it rates from then on. With `history=False` the
/// league keeps nothing of the past (and `history()` is not available): for rating
/// matches one by one without end.
#[pyclass(module = "podium")]
pub struct League {
    system: System,
    inner: podium::League,
    /// What was rated, when the league keeps its history.
    log: Option<Log>,
    /// Every change, once `history()` was asked for.
    history: Option<History>,
    /// The last match built for `rate()`, whose allocations the next one reuses.
    spare: Option<podium::Match>,
    /// The league as it was loaded (`League.load`, unpickling): where rating the
    /// history again starts.
    base: Option<podium::League>,
    /// Whether a season was started (`new_season`): the board then lists the season's
    /// players only ([`podium::season::season_standings`]).
    in_season: bool,
    /// When `inner`'s last dated match was played ([`latest_time`]; `Some(None)`: it has
    /// rated none), once known: what `rate()` checks each match's time against, kept so
    /// as not to look at every player each time. `None` where `inner` changed otherwise
    /// than by `apply`.
    latest: Option<Option<i64>>,
    /// The ids of the matches the league rated ([`match_fingerprint`]), given by the
    /// caller or read from files (or from the file it was loaded from), not those it
    /// numbered: a match id names one match, so a match of one of them is refused.
    /// Shared with the readers of `rate_files` (which look ids up in it, not in a copy)
    /// and with the league's copies until either changes it ([`League::ids_mut`]).
    ids: Arc<Ids>,
}

/// A set of match ids by [`match_fingerprint`].
type Ids = ingest::MatchIds;

/// A player of a stored history not yet met by the league, in the map from the store's
/// player numbers to league indices.
const UNKNOWN: u32 = u32::MAX;

/// The matches a batch given to `rate_many` needs to be kept for the history as it is
/// stored; a smaller one (a store costs about a kilobyte of its own) joins the league's
/// own store of the matches given one by one.
const OWN_BELOW: usize = 64;

/// Records `m`'s changes as `report` gives them.
fn record(h: &mut History, m: &podium::Match, report: &podium::MatchReport) {
    let places = m.players().map(|(e, _)| m.place(e));
    h.record(
        m.id(),
        m.time(),
        report
            .changes
            .iter()
            .zip(places)
            .map(|((i, c), place)| (*i, place, *c)),
        &report.factors,
    );
}

/// Why match `id`, played at `time`, cannot follow the league's matches, the last dated
/// one played at `latest`, in the readers' words (`None` when it can): a league rates its
/// matches in time order, so a match without a time may not follow a dated one (it would
/// be rated before the dated ones, as in files and on the league server), nor a match
/// follow a later one.
fn time_refused(id: &str, time: Option<i64>, latest: Option<i64>) -> Option<String> {
    let expected = ingest::time_after(latest?, time, None)?;
    let value = time.map(podium_io::format_time).unwrap_or_default();
    Some(format!(
        "match {id:?}: field `time`: {value:?} is not valid, expected {expected}"
    ))
}

/// Why match `id` cannot be rated into a league that rated a match of that id, in the
/// readers' words.
fn id_refused(id: &str) -> String {
    format!(
        "match {id:?}: field `match`: {id:?} is not valid, expected {}",
        ingest::UNRATED_ID
    )
}

/// Why rating files stopped midway: Ctrl-C (or another signal's exception).
#[derive(Debug)]
struct Interrupted(PyErr);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted: {}", self.0)
    }
}

/// How rating files ended: by the plain reader, or match by match.
enum Outcome {
    Plain(Result<ingest::Ingested, IngestError<Infallible>>),
    Each(Result<ingest::Ingested, IngestError<Interrupted>>),
}

/// The id of a bad match of a file, if it was read.
fn bad_match_id(b: &ingest::BadMatch) -> Option<&str> {
    match b {
        ingest::BadMatch::Read(e) => e.match_id(),
        ingest::BadMatch::Rate { match_id, .. } => Some(match_id),
        _ => None,
    }
}

/// The exception of files that could not be rated: `RateError` when every bad match is
/// one the system cannot rate, else `ReadError`.
fn ingest_failed<E: std::fmt::Display>(e: IngestError<E>) -> PyErr {
    let only_rating = matches!(
        &e,
        IngestError::BadMatches { listed, .. }
            if listed.iter().all(|b| matches!(b, ingest::BadMatch::Rate { .. }))
    );
    ingest_error(
        e,
        if only_rating {
            crate::errors::RateError::new_err
        } else {
            crate::errors::ReadError::new_err
        },
        "nothing rated",
        "pass skip_bad=True to rate the rest",
    )
}

/// Why a league could not be saved or loaded: `OSError` when the file cannot be read or
/// written, `ConfigError` for a league saved by another system or with other parameters,
/// else `ReadError` naming the file (and where the file is damaged, the line and field).
fn saved_error(e: podium_io::saved::SavedFileError) -> PyErr {
    use podium::SaveError;
    use podium_io::output::OutputError;
    use podium_io::saved::SavedFileError;
    let (file, line, field) = match &e {
        SavedFileError::Read { path, source }
        | SavedFileError::Write(OutputError::Io { path, source }) => {
            return crate::errors::io_error(path, source)
        }
        // A directory where the file should be is the `IsADirectoryError` that opening
        // it to write (or `League.load` reading it) raises.
        SavedFileError::Write(OutputError::NotAFile { path, kind }) => {
            return Python::attach(|py| {
                if *kind == "a directory" {
                    if let Ok(err) = crate::errors::os_error(py, "EISDIR", path) {
                        return err;
                    }
                }
                pyo3::exceptions::PyOSError::new_err(e.to_string())
            })
        }
        SavedFileError::League { path, source } => match source {
            SaveError::OtherSystem { .. }
            | SaveError::OtherParams { .. }
            | SaveError::UnknownParam { .. }
            | SaveError::System { .. } => {
                return crate::errors::ConfigError::new_err(e.to_string())
            }
            SaveError::NotSaveable { .. } => return PodiumError::new_err(e.to_string()),
            _ => (Some(path.clone()), None, None),
        },
        SavedFileError::Corrupt {
            path, line, field, ..
        } => (Some(path.clone()), Some(*line), Some(field.clone())),
        SavedFileError::NotALeague { path, .. } => (Some(path.clone()), None, None),
        _ => return PodiumError::new_err(e.to_string()),
    };
    let message = e.to_string();
    let err = crate::errors::ReadError::new_err(message.clone());
    Python::attach(|py| {
        let value = err.value(py);
        let _ = value.setattr("file", file);
        let _ = value.setattr("line", line);
        let _ = value.setattr("field", field);
        let _ = value.setattr("match_id", None::<String>);
        let _ = value.setattr("errors", vec![message]);
    });
    err
}

/// When `league`'s last dated match was played, if it rated one: every later match needs
/// a time, no earlier. Every player is looked at (the latest of their last matches). The
/// time of a player's last match stays across seasons, and so does the answer, but after
/// a hard reset, which starts every player over without statistics.
fn latest_time(league: &podium::League) -> Option<i64> {
    league
        .players()
        .iter()
        .filter_map(|p| p.stats.last_time)
        .max()
}

impl League {
    fn new_from(system: System, history: bool) -> Self {
        League {
            inner: podium::League::shared(Arc::clone(&system.inner)),
            system,
            log: history.then(Log::new),
            history: None,
            spare: None,
            base: None,
            in_season: false,
            latest: Some(None),
            ids: Arc::default(),
        }
    }

    /// The league restored from a saved league's text, rated by `system` if given (it
    /// must be the system it was saved by) or else by the one it names; `path` names it
    /// in errors.
    fn restored(text: &str, path: &str, system: Option<System>, history: bool) -> PyResult<Self> {
        let mut saved = podium_io::saved::from_json(text, path).map_err(saved_error)?;
        // The matches it rated, as `podium rate --save` and `save()` note them.
        let ids = Arc::new(std::mem::take(&mut saved.match_ids).into_iter().collect());
        let system = match system {
            Some(s) => s,
            None => {
                let mut settings = podium::Settings::new();
                for (k, v) in &saved.params {
                    settings = settings.with(k, v);
                }
                System::build(&saved.system, settings)?
            }
        };
        let inner =
            podium::League::restore_with(Arc::clone(&system.inner), saved).map_err(|source| {
                saved_error(podium_io::saved::SavedFileError::League {
                    path: path.to_string(),
                    source,
                })
            })?;
        Ok(League {
            base: history.then(|| inner.clone()),
            in_season: inner.seasons() > 0,
            latest: None,
            ids,
            inner,
            system,
            log: history.then(Log::new),
            history: None,
            spare: None,
        })
    }

    /// The next match's default id: its number in the league.
    fn next_id(&self) -> String {
        (self.inner.matches_rated() + 1).to_string()
    }

    /// When the league's last dated match was played ([`latest_time`]).
    fn latest(&mut self) -> Option<i64> {
        let inner = &self.inner;
        *self.latest.get_or_insert_with(|| latest_time(inner))
    }

    /// A copy of the league (the system is shared).
    fn copied(&self) -> League {
        League {
            system: self.system.clone(),
            inner: self.inner.clone(),
            log: self.log.clone(),
            history: self.history.clone(),
            spare: None,
            base: self.base.clone(),
            in_season: self.in_season,
            latest: self.latest,
            ids: Arc::clone(&self.ids),
        }
    }

    /// The ids of the matches the league rated, to change: its own set (a set still
    /// shared with a copy of the league is copied first).
    fn ids_mut(&mut self) -> &mut Ids {
        Arc::make_mut(&mut self.ids)
    }

    /// The ids of the matches rated, in order (for a file that is the same whatever
    /// order they were rated in).
    fn sorted_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.ids.iter().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// Rates one built match, keeps it and records it (and its id, when `id_given`);
    /// returns its report.
    fn apply(&mut self, m: &podium::Match, id_given: bool) -> Result<Report, RateError> {
        let report = self.inner.apply(m)?;
        if let (Some(t), Some(latest)) = (m.time(), self.latest.as_mut()) {
            *latest = Some(latest.map_or(t, |l| l.max(t)));
        }
        if id_given {
            self.ids_mut().insert(match_fingerprint(m.id()));
        }
        if let Some(h) = &mut self.history {
            record(h, m, &report);
        }
        if let Some(log) = &mut self.log {
            let from = log.own.len();
            log.keep(m, &self.inner, report.changes.iter().map(|&(i, _)| i));
            log.own_rated(from);
        }
        Ok(Report {
            match_id: m.id().to_string(),
            time: m.time(),
            players: m
                .players()
                .map(|(_, p)| CompactString::from(p.player.as_str()))
                .collect(),
            places: m.players().map(|(e, _)| m.place(e) as u32).collect(),
            changes: report.changes.into_iter().map(|(_, c)| c).collect(),
        })
    }

    /// Makes the history (rating everything again, recording) the first time it is asked
    /// for; the league records as it rates from then on.
    fn keep_history(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.log.is_none() {
            return Err(PodiumError::new_err(
                "this league keeps no history: create it with League(system, history=True)",
            ));
        }
        if self.history.is_none() {
            let this = &*self;
            let replayed = py.detach(|| this.replay()).map_err(|e| {
                PyRuntimeError::new_err(format!("rating the history again failed: {e}"))
            })?;
            self.history = Some(replayed);
        }
        Ok(())
    }

    /// Rates everything the league rated again, recording every change: the history.
    fn replay(&self) -> Result<History, String> {
        let mut league = match &self.base {
            Some(base) => base.clone(),
            None => podium::League::shared(Arc::clone(&self.system.inner)),
        };
        let mut history = History::default();
        let Some(log) = &self.log else {
            return Ok(history);
        };
        let mut spare: Option<podium::Match> = None;
        let mut rate = |league: &mut podium::League,
                        history: &mut History,
                        store: &Store,
                        i: usize|
         -> Result<(), String> {
            let m = store
                .build(i, spare.take())
                .map_err(|e| format!("match {:?}: {e}", store.id(i)))?;
            let report = league.apply(&m).map_err(|e| e.to_string())?;
            record(history, &m, &report);
            spare = Some(m);
            Ok(())
        };
        for op in &log.ops {
            match op {
                Op::Initial(name, rating) => league
                    .set_initial(name, *rating)
                    .map_err(|e| e.to_string())?,
                Op::Stored {
                    store,
                    order,
                    skipped,
                } => {
                    let n = order.as_ref().map_or(store.len(), |o| o.len());
                    let mut skip = skipped.iter().peekable();
                    for k in 0..n {
                        if skip.peek() == Some(&&k) {
                            skip.next();
                            continue;
                        }
                        let i = order.as_ref().map_or(k, |o| o[k] as usize);
                        rate(&mut league, &mut history, store, i)?;
                    }
                }
                Op::Own { from, to } => {
                    for i in *from..*to {
                        rate(&mut league, &mut history, &log.own, i)?;
                    }
                }
                Op::Season(reset) => {
                    league = league.new_season(reset).map_err(|e| e.to_string())?
                }
                Op::Files(inputs) => {
                    let h = &mut history;
                    ingest::rate_each(inputs, &mut league, &Reading::default(), |_, m, r| {
                        record(h, m, r);
                        Ok::<(), Infallible>(())
                    })
                    .map_err(|e| e.to_string())?;
                }
            }
        }
        // Files are read again: a file changed since it was rated gives another history.
        let same = league.matches_rated() == self.inner.matches_rated()
            && league.players().len() == self.inner.players().len()
            && league
                .players()
                .iter()
                .zip(self.inner.players())
                .all(|(a, b)| a.name == b.name && a.rating == b.rating);
        if !same {
            return Err(
                "a file rated by rate_files() changed since it was rated, so its history cannot be shown"
                    .to_string(),
            );
        }
        Ok(history)
    }

    fn standing(&self, s: &podium::Standing) -> Standing {
        let st = &s.stats;
        Standing {
            position: s.position,
            player: s.player.clone(),
            rating: s.rating.value,
            sigma: s.rating.sigma,
            games: st.games,
            avg_size: st.average_size(),
            wins: st.wins,
            win_pct: st.win_pct(),
            expected_win_pct: st.expected_win_pct(),
            net_pct: st.win_pct() - st.expected_win_pct(),
            last_played: Time(st.last_time),
            last_match: st.last_match.as_ref().map(|m| m.to_string()),
            provisional: s.provisional,
        }
    }
}

/// A factor the league met, as a row.
fn factor_standing(f: &podium::FactorRecord) -> FactorStanding {
    FactorStanding {
        kind: f.factor.kind.clone(),
        value: f.factor.value.clone(),
        rating: f.rating.value,
        sigma: f.rating.sigma,
        matches: f.stats.games,
        wins: f.stats.wins,
        win_pct: f.stats.win_pct(),
        expected_win_pct: f.stats.expected_win_pct(),
    }
}

/// Rates a history into a league, the interpreter's lock released: what
/// `League.rate_many` does once its matches are in Rust.
struct Rater<'a> {
    league: &'a mut podium::League,
    /// Where changes are recorded, once the history was asked for.
    history: Option<&'a mut History>,
    skip_bad: bool,
    bad: Vec<BadMatch>,
    bad_count: usize,
    /// Positions (in the order given) of the matches left out.
    skipped: Vec<usize>,
    rated: u64,
    /// When the last dated match the league rated (or, after a bad match, checked) was
    /// played: every later match needs a time, no earlier.
    latest: Option<i64>,
    /// The ids of the matches the league rated ([`League::ids`]), with those of the
    /// matches rated (or, after a bad match, checked) here.
    ids: &'a mut Ids,
    /// The ids added to `ids` here, to take out again if the batch is undone.
    added: Vec<u64>,
    /// Matches handled since signals were last looked for.
    since_signals: usize,
    /// Ctrl-C (or another signal's exception), which stops rating.
    interrupted: Option<PyErr>,
}

impl Rater<'_> {
    /// Looks for Ctrl-C every [`SIGNAL_EVERY`] matches; whether rating goes on.
    fn go_on(&mut self) -> bool {
        self.since_signals += 1;
        if self.since_signals >= SIGNAL_EVERY {
            self.since_signals = 0;
            if let Err(e) = check_signals() {
                self.interrupted = Some(e);
            }
        }
        self.interrupted.is_none()
    }

    /// Whether match `id`, played at `time`, may follow the league's matches: its id
    /// (by `fp`, when it was given) not one the league rated, and its time not missing
    /// or earlier than the league's last. Notes it as bad when not.
    fn fits(&mut self, k: usize, id: &str, time: Option<i64>, fp: Option<u64>) -> bool {
        let why = match fp {
            Some(fp) if self.ids.contains(&fp) => Some(("match", id_refused(id))),
            _ => time_refused(id, time, self.latest).map(|why| ("time", why)),
        };
        let Some((field, message)) = why else {
            return true;
        };
        self.bad_count += 1;
        self.skipped.push(k);
        if self.skip_bad || self.bad.len() < crate::errors::MAX_LISTED {
            self.bad.push(BadMatch {
                message,
                file: None,
                line: None,
                field: Some(field.to_string()),
                match_id: Some(id.to_string()),
            });
        }
        false
    }

    /// Notes a match rated (or, after a bad match, checked): its time, and its id (by
    /// `fp`, when it was given).
    fn took(&mut self, time: Option<i64>, fp: Option<u64>) {
        if let Some(t) = time {
            self.latest = Some(self.latest.map_or(t, |l| l.max(t)));
        }
        if let Some(fp) = fp {
            if self.ids.insert(fp) {
                self.added.push(fp);
            }
        }
    }

    /// Whether rating has stopped at a bad match and the rest is only checked.
    fn checking(&self) -> bool {
        self.bad_count > 0 && !self.skip_bad
    }

    /// Rates `m` (the `k`-th given), or notes why not. Once a match has failed (without
    /// `skip_bad`), the others are only checked, so that the error lists every match the
    /// system cannot rate, as the command line does. `id_given`: whether `m`'s id was
    /// given (not numbered). The report when `m` was rated.
    fn one(&mut self, k: usize, m: &podium::Match, id_given: bool) -> Option<podium::MatchReport> {
        let fp = id_given.then(|| match_fingerprint(m.id()));
        if !self.fits(k, m.id(), m.time(), fp) {
            return None;
        }
        if self.checking() {
            match self.league.try_rate(m) {
                Ok(_) => self.took(m.time(), fp),
                Err(e) => self.note(k, m.id(), &e),
            }
            return None;
        }
        match self.league.apply(m) {
            Ok(report) => {
                self.rated += 1;
                self.took(m.time(), fp);
                if let Some(h) = self.history.as_deref_mut() {
                    record(h, m, &report);
                }
                Some(report)
            }
            Err(e) => {
                self.note(k, m.id(), &e);
                None
            }
        }
    }

    fn note(&mut self, k: usize, id: &str, e: &RateError) {
        self.bad_count += 1;
        self.skipped.push(k);
        if self.skip_bad || self.bad.len() < crate::errors::MAX_LISTED {
            self.bad.push(BadMatch::of_rate(id, e));
        }
    }

    /// Rates the matches of `store` at `order` (all, in stored order, when `None`): one
    /// by one and timed at first, then, where that pays, the free-for-alls in batches
    /// rated on every core, as `rate_files` rates a plain file (the same numbers either
    /// way). `at_once` forces either way, as [`Reading::at_once`] does.
    fn stored(&mut self, store: &Store, order: Option<&[u32]>, at_once: Option<bool>) {
        let n = order.map_or(store.len(), <[u32]>::len);
        let at = |k: usize| order.map_or(k, |o| o[k] as usize);
        let can = self.league.rates_at_once();
        let mut s = StoredScratch {
            index: vec![UNKNOWN; store.player_count()],
            slots: Vec::new(),
            places: Vec::new(),
            spare: None,
            timing: ingest::Timing::new(can && at_once.is_none()),
            batching: can && at_once == Some(true),
            held: HeldStored::default(),
        };
        for k in 0..n {
            if !self.go_on() {
                return;
            }
            let i = at(k);
            // A plain match has no time: it is held while the league has none either.
            if s.batching && self.plain(store, i) && self.latest.is_none() {
                let fp = store.id_given(i).then(|| match_fingerprint(store.id(i)));
                if !self.fits(k, store.id(i), None, fp) {
                    continue;
                }
                // Its id is the league's from now on, unless the batch refuses it.
                self.took(None, fp);
                s.held.push(store, k, i, &s.index);
                if s.held.batch.len() >= ingest::HELD_MATCHES {
                    self.rate_held(store, &mut s);
                }
                continue;
            }
            // Any other match comes after those held.
            self.rate_held(store, &mut s);
            // With tens of thousands of players their records leave the cache: ask for
            // those of a match a few ahead.
            if k + 4 < n {
                for p in store.players_of(at(k + 4)) {
                    match s.index[p as usize] {
                        UNKNOWN => {}
                        j => self.league.prefetch(j as usize),
                    }
                }
            }
            self.stored_one(store, k, i, &mut s);
        }
        self.rate_held(store, &mut s);
    }

    /// Whether the `i`-th stored match is rated without building it: a free-for-all,
    /// when no report is needed (to record it, or to check a match after a bad one).
    fn plain(&self, store: &Store, i: usize) -> bool {
        self.history.is_none() && store.is_ranked(i) && !self.checking()
    }

    /// Rates the `i`-th stored match (the `k`-th given) on its own.
    fn stored_one<'s>(&mut self, store: &'s Store, k: usize, i: usize, s: &mut StoredScratch<'s>) {
        if !self.plain(store, i) {
            match store.build(i, s.spare.take()) {
                Ok(m) => {
                    self.one(k, &m, store.id_given(i));
                    s.spare = Some(m);
                }
                // A stored match was valid when stored and comes back as it was; were
                // it not to, it is a bad match, not a crash.
                Err(e) => self.note(k, store.id(i), &RateError::from(e)),
            }
            return;
        }
        let fp = store.id_given(i).then(|| match_fingerprint(store.id(i)));
        if !self.fits(k, store.id(i), store.time(i), fp) {
            return;
        }
        s.slots.clear();
        for p in store.players_of(i) {
            s.slots.push(match s.index[p as usize] {
                UNKNOWN => {
                    let name = store.player_name(p);
                    match self.league.index_of(name) {
                        Some(j) => {
                            s.index[p as usize] = j as u32;
                            Slot::Known(j)
                        }
                        None => Slot::New(name),
                    }
                }
                j => Slot::Known(j as usize),
            });
        }
        store.places(i, &mut s.places);
        let new = s.slots.iter().any(|slot| matches!(slot, Slot::New(_)));
        let league = &mut *self.league;
        let (slots, places) = (&mut s.slots, &s.places);
        match s
            .timing
            .rate(new, || league.apply_ranked(store.id(i), slots, places))
        {
            Ok(()) => {
                self.rated += 1;
                self.took(store.time(i), fp);
                for (p, slot) in store.players_of(i).zip(&s.slots) {
                    if let Slot::Known(j) = *slot {
                        s.index[p as usize] = j as u32;
                    }
                }
                if s.timing.decided() {
                    s.batching = true;
                }
            }
            Err(e) => self.note(k, store.id(i), &e),
        }
    }

    /// Rates the matches held, if any, at once. A refused match is noted, and those
    /// after it are taken one by one (only checked, unless `skip_bad`).
    fn rate_held<'s>(&mut self, store: &'s Store, s: &mut StoredScratch<'s>) {
        if s.held.batch.is_empty() {
            return;
        }
        let rated = self.league.apply_batch(&s.held.batch);
        let done = match &rated {
            Ok(()) => s.held.batch.len(),
            Err((j, _)) => *j,
        };
        // The newcomers of the matches stored learn their index.
        let mut keys = s.held.keys.iter();
        for j in 0..done {
            for (slot, &p) in s.held.batch.players(j).zip(&mut keys) {
                if let Slot::New(name) = slot {
                    if let Some(i) = self.league.index_of(name) {
                        s.index[p as usize] = i as u32;
                    }
                }
            }
        }
        self.rated += done as u64;
        let held = std::mem::take(&mut s.held);
        if let Err((j, e)) = rated {
            // The matches from the refused one on were not rated: their ids are not the
            // league's (those after it are taken again below).
            for &(_, i) in &held.at[j..] {
                if store.id_given(i) {
                    self.ids.remove(&match_fingerprint(store.id(i)));
                }
            }
            let (k, i) = held.at[j];
            self.note(k, store.id(i), &e);
            for &(k, i) in &held.at[j + 1..] {
                self.stored_one(store, k, i, s);
            }
        }
        s.held = held;
        s.held.clear();
    }
}

/// What [`Rater::stored`] keeps from match to match.
struct StoredScratch<'s> {
    /// The store's player numbers to league indices, learnt as players are met.
    index: Vec<u32>,
    slots: Vec<Slot<'s>>,
    places: Vec<usize>,
    spare: Option<podium::Match>,
    timing: ingest::Timing,
    /// Whether the free-for-alls are now held and rated in batches.
    batching: bool,
    held: HeldStored,
}

/// Stored free-for-alls held to be rated at once: the batch, each held player's number
/// in the store, and each match's position given and in the store.
#[derive(Default)]
struct HeldStored {
    batch: RankedBatch,
    keys: Vec<u32>,
    at: Vec<(usize, usize)>,
    places: Vec<usize>,
}

impl HeldStored {
    fn push(&mut self, store: &Store, k: usize, i: usize, index: &[u32]) {
        let slots = store.players_of(i).map(|p| match index[p as usize] {
            UNKNOWN => Slot::New(store.player_name(p)),
            j => Slot::Known(j as usize),
        });
        store.places(i, &mut self.places);
        self.batch.push(store.id(i), slots, &self.places);
        self.keys.extend(store.players_of(i));
        self.at.push((k, i));
    }

    fn clear(&mut self) {
        self.batch.clear();
        self.keys.clear();
        self.at.clear();
    }
}

/// The system a league's constructor was given: a `System`, a name with parameters, or
/// none for the library's default system (with parameters, if given).
fn system_arg(
    system: Option<&Bound<'_, PyAny>>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<System> {
    match system {
        Some(s) => System::from_py(s, params),
        None => System::from_params(podium::DEFAULT_SYSTEM, None, params),
    }
}

impl League {
    fn rate_one(
        &mut self,
        r#match: &Bound<'_, PyAny>,
        id: Option<String>,
        time: Option<&Bound<'_, PyAny>>,
        factors: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        let given = r#match;
        crate::matches::check_given_id(id.as_deref())?;
        if let Ok(obj) = given.cast::<MatchObj>() {
            if id.is_some() || time.is_some() || factors.is_some() {
                return Err(PyTypeError::new_err(
                    "id, time and factors belong to the Match: give them to Match(...)",
                ));
            }
            let obj = obj.get();
            let report = if obj.has_id {
                self.check(&obj.inner, obj.id_given)?;
                self.apply(&obj.inner, obj.id_given)
            } else {
                let m = with_id(&obj.inner, &self.next_id())?;
                self.check(&m, false)?;
                self.apply(&m, false)
            };
            return Ok(Table::from_rows(report.map_err(rate_error)?));
        }
        let time = time.map(crate::time::from_py).transpose()?.flatten();
        let id_given = id.is_some();
        let id = id.unwrap_or_else(|| self.next_id());
        let m = build_match(given, &id, time, factors, self.spare.take())?;
        if let Err(e) = self.check(&m, id_given) {
            self.spare = Some(m);
            return Err(e);
        }
        let report = self.apply(&m, id_given);
        self.spare = Some(m);
        Ok(Table::from_rows(report.map_err(rate_error)?))
    }

    fn rate_batch(
        &mut self,
        py: Python<'_>,
        matches: &Bound<'_, PyAny>,
        skip_bad: bool,
        at_once: Option<bool>,
    ) -> PyResult<RateSummary> {
        // Matches given other than as a `Matches` are stored first, as `Matches(...)`
        // stores them: then rated as the matches of a `Matches` are (without building
        // the free-for-alls, in batches where that pays), and kept for the history as
        // they are.
        // Matches that cannot exist are left out of the store: then nothing is rated, or,
        // with `skip_bad`, they are listed among the skipped.
        let ((store, order), refused) = stored_from_py(matches, self.inner.matches_rated() + 1)?;
        if !skip_bad {
            if let Some(e) = refused.error("nothing rated", "pass skip_bad=True to rate the rest") {
                return Err(e);
            }
        }
        // Kept to undo the batch: on a bad match (without skip_bad) or on Ctrl-C.
        let snapshot = (self.inner.clone(), self.history.as_ref().map(History::mark));
        let latest = self.latest();
        // Room for the batch's ids at once, rather than growing the set as they come.
        let given_count = order.as_ref().map_or(store.len(), |o| o.len());
        self.ids_mut().reserve(given_count);
        let League {
            inner,
            history,
            ids,
            ..
        } = self;
        let (rated, bad, bad_count, skipped, interrupted, latest, added) = py.detach(|| {
            let mut rater = Rater {
                league: inner,
                history: history.as_mut(),
                skip_bad,
                bad: Vec::new(),
                bad_count: 0,
                skipped: Vec::new(),
                rated: 0,
                latest,
                ids: Arc::make_mut(ids),
                added: Vec::new(),
                since_signals: 0,
                interrupted: None,
            };
            rater.stored(&store, order.as_deref(), at_once);
            (
                rater.rated,
                rater.bad,
                rater.bad_count,
                rater.skipped,
                rater.interrupted,
                rater.latest,
                rater.added,
            )
        });
        // A signal that came after the last look still undoes the batch.
        let interrupted = interrupted.or_else(|| py.check_signals().err());
        if interrupted.is_some() || (bad_count > 0 && !skip_bad) {
            let (league, kept) = snapshot;
            self.inner = league;
            let ids = self.ids_mut();
            for fp in added {
                ids.remove(&fp);
            }
            if let (Some(h), Some(mark)) = (self.history.as_mut(), kept) {
                h.truncate(mark);
            }
            if let Some(e) = interrupted {
                return Err(e);
            }
            return Err(bad_matches(
                crate::errors::RateError::new_err,
                bad_count,
                &bad,
                "nothing rated",
                "pass skip_bad=True to rate the rest",
            ));
        }
        self.latest = Some(latest);
        let skipped_at = skipped.clone();
        if let Some(log) = self.log.as_mut() {
            // Rating again goes through the matches in order, passing over those left out.
            let mut skipped = skipped;
            skipped.sort_unstable();
            let small = given_count < OWN_BELOW
                && log.keep_stored((&store, order.as_deref()), &skipped, &self.inner);
            if !small {
                log.ops.push(Op::Stored {
                    store,
                    order,
                    skipped,
                });
            }
        }
        // The matches left out, in the order given: those the league could not take
        // (`skipped` and `bad` go together with `skip_bad`), and those that cannot exist.
        let mut left_out: Vec<(usize, String)> = skipped_at
            .iter()
            .map(|&k| refused.given_position(k))
            .zip(bad.into_iter().map(|b| b.message))
            .collect();
        if !refused.is_empty() {
            left_out.extend(refused.listed.into_iter().map(|(i, b)| (i, b.message)));
            left_out.sort_by_key(|(i, _)| *i);
        }
        Ok(RateSummary {
            rated,
            skipped: left_out.into_iter().map(|(_, m)| m).collect(),
        })
    }

    fn rate_paths(
        &mut self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        format: Option<&str>,
        skip_bad: bool,
        factors: Option<&Bound<'_, PyAny>>,
        reading: &Reading<'_>,
    ) -> PyResult<RateSummary> {
        let mut inputs = inputs_of(paths, format, skip_bad, factors)?;
        if !inputs.options.factors.is_empty() && !self.system.inner.capabilities().rates_factors {
            return Err(rate_error(RateError::FactorsUnsupported {
                system: self.system.inner.name(),
            }));
        }
        let before = self.inner.matches_rated();
        let snapshot = (self.inner.clone(), self.history.as_ref().map(History::mark));
        // The files keep the rules on times and ids among themselves (the readers see to
        // it), and are rated after the league's matches: the readers refuse a match of an
        // id the league rated, and after its dated matches, one without a time or before
        // its last, as they do for a league resumed from a file.
        let latest = self.latest();
        if latest.is_some() || !self.ids.is_empty() {
            inputs.resumed = Some(Resumed {
                file: None,
                ids: Vec::new(),
                shared_ids: Some(Arc::clone(&self.ids)),
                latest,
            });
        }
        inputs.note_ids = true;
        // The files change the league's matches (or a failure puts the league back):
        // when its last dated one was played is found again when next asked.
        self.latest = None;
        let League { inner, history, .. } = self;
        let mut since_signals = 0;
        let outcome = py.detach(|| {
            if history.is_none() && latest.is_none() {
                return Outcome::Plain(ingest::rate(&inputs, inner, reading));
            }
            // Match by match: to record every match's report, and to look for Ctrl-C
            // between matches (a league with dated matches has every file read the
            // general way).
            Outcome::Each(ingest::rate_each(
                &inputs,
                inner,
                &Reading::default(),
                |_, m, r| {
                    if let Some(h) = history.as_mut() {
                        record(h, m, r);
                    }
                    since_signals += 1;
                    if since_signals >= SIGNAL_EVERY {
                        since_signals = 0;
                        check_signals().map_err(Interrupted)?;
                    }
                    Ok(())
                },
            ))
        });
        let done = match outcome {
            // Ctrl-C during the plain reader (which cannot stop midway) undoes the call
            // at its end: nothing of it is kept.
            Outcome::Plain(Ok(done)) | Outcome::Each(Ok(done)) => py.check_signals().map(|()| done),
            Outcome::Each(Err(IngestError::Caller(Interrupted(signal)))) => Err(signal),
            Outcome::Each(Err(e)) => Err(ingest_failed(e)),
            Outcome::Plain(Err(e)) => Err(ingest_failed(e)),
        };
        let done = match done {
            Ok(done) => done,
            Err(e) => {
                let (league, kept) = snapshot;
                self.inner = league;
                if let (Some(h), Some(mark)) = (self.history.as_mut(), kept) {
                    h.truncate(mark);
                }
                return Err(e);
            }
        };
        if let Some(resumed) = inputs.resumed.as_mut() {
            // Read again for the history, the files must refuse what they refused here:
            // the league's ids are only needed for the matches they refused (no match of
            // those ids was rated), and the ids rated need not be noted. And the league's
            // set is its own again before it grows (one still shared would be copied).
            if self.log.is_some() {
                resumed.ids = done
                    .skipped
                    .iter()
                    .filter_map(bad_match_id)
                    .map(match_fingerprint)
                    .filter(|fp| self.ids.contains(fp))
                    .collect();
            }
            resumed.shared_ids = None;
        }
        if let Some(log) = self.log.as_mut() {
            inputs.note_ids = false;
            log.ops.push(Op::Files(inputs));
        }
        self.ids_mut().extend(done.rated_ids.iter().copied());
        Ok(RateSummary {
            rated: self.inner.matches_rated() - before,
            skipped: done.skipped.iter().map(ToString::to_string).collect(),
        })
    }

    fn predict_one(
        &self,
        entries: &Bound<'_, PyAny>,
        time: Option<&Bound<'_, PyAny>>,
        factors: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Prediction> {
        if let Ok(m) = entries.cast::<MatchObj>() {
            // A match's entries, with their factors, at its time: its results are left out.
            if factors.is_some() {
                return Err(PyTypeError::new_err(
                    "factors belong to the Match: give them to Match(...)",
                ));
            }
            let m = &m.get().inner;
            // Entries are predicted whole: a share of the match played is not read.
            if let Some(p) = m
                .entries()
                .iter()
                .flat_map(|e| &e.members)
                .find(|p| p.weight < 1.0)
            {
                return Err(PyValueError::new_err(format!(
                    "player {:?} plays a share {} of the match: predict reads whole entries, without partial play; give the Match without weights",
                    p.player, p.weight
                )));
            }
            let py = entries.py();
            let list = PyList::empty(py);
            let given = pyo3::types::PyDict::new(py);
            for e in m.entries() {
                let players: Vec<&str> = e.members.iter().map(|p| p.player.as_str()).collect();
                if !e.factors.is_empty() {
                    given.set_item(
                        pyo3::types::PyTuple::new(py, &players)?,
                        crate::matches::factor_dict(py, &e.factors)?,
                    )?;
                }
                list.append(players)?;
            }
            let at = match time {
                Some(t) => Some(t.clone()),
                None => m
                    .time()
                    .map(|t| crate::time::to_py(py, Some(t)))
                    .transpose()?
                    .map(|t| t.into_bound(py)),
            };
            let factors = (!given.is_empty()).then_some(given.into_any());
            return self.predict_one(list.as_any(), at.as_ref(), factors.as_ref());
        }
        if entries.is_instance_of::<PyString>() || entries.cast::<pyo3::types::PyMapping>().is_ok()
        {
            return Err(PyTypeError::new_err(
                "predict takes a list of entries: player ids, or lists of player ids (teams)",
            ));
        }
        let too_many = |n: usize| {
            podium::limits::check_predict_entries("entries", n)
                .map_err(|e| PyValueError::new_err(e.to_string()))
        };
        if let Ok(n) = entries.len() {
            too_many(n)?;
        }
        let mut proposed: Vec<RawEntry> = Vec::new();
        for e in entries.try_iter()? {
            let e = e?;
            let players = if let Ok(s) = e.cast::<PyString>() {
                vec![s.to_cow()?.into_owned()]
            } else if e.is_instance_of::<PyList>() || e.is_instance_of::<pyo3::types::PyTuple>() {
                e.try_iter()?
                    .map(|p| {
                        let p = p?;
                        p.cast::<PyString>()
                            .map_err(|_| PyTypeError::new_err("player ids are strings"))?
                            .to_cow()
                            .map(|c| c.into_owned())
                    })
                    .collect::<PyResult<Vec<_>>>()?
            } else {
                return Err(PyTypeError::new_err(format!(
                    "an entry is a player id or a list of player ids (a team), not {}",
                    e.get_type().name()?
                )));
            };
            proposed.push(RawEntry {
                team: None,
                players,
                finish: podium::Finish::Rank(1.0),
                factors: Vec::new(),
            });
            // An iterator without a length: refused as soon as there are too many.
            too_many(proposed.len())?;
        }
        if let Some(f) = factors {
            give_factors(&mut proposed, f)?;
        }
        let system = &self.system.inner;
        if proposed.iter().any(|e| !e.factors.is_empty()) && !system.capabilities().rates_factors {
            return Err(rate_error(RateError::FactorsUnsupported {
                system: system.name(),
            }));
        }
        let time = match time {
            Some(t) => crate::time::from_py(t)?,
            None => self
                .inner
                .players()
                .iter()
                .filter_map(|p| p.stats.last_time)
                .max(),
        };
        let mut b = podium::Match::builder("proposed");
        if let Some(t) = time {
            b = b.time(t);
        }
        for (i, e) in proposed.iter().enumerate() {
            b = b.entry(podium::Entry {
                team: (e.players.len() > 1).then(|| format!("entry {}", i + 1)),
                members: e
                    .players
                    .iter()
                    .map(|p| podium::Member {
                        player: p.clone(),
                        weight: 1.0,
                    })
                    .collect(),
                finish: e.finish,
                factors: e.factors.clone(),
            });
        }
        let game = b.build().map_err(crate::errors::match_error)?;
        // A kind the league has never rated is most likely misspelt: it adds nothing,
        // which the caller should hear of (the binary refuses a kind it did not read).
        let known: std::collections::HashSet<&str> = self
            .inner
            .factors()
            .iter()
            .map(|f| f.factor.kind.as_str())
            .collect();
        let mut warned: Vec<&str> = Vec::new();
        for f in proposed.iter().flat_map(|e| &e.factors) {
            let kind = f.kind.as_str();
            if !known.contains(kind) && !warned.contains(&kind) {
                warned.push(kind);
                let mut kinds: Vec<&str> = known.iter().copied().collect();
                kinds.sort_unstable();
                let msg = format!(
                    "the league has rated no factor of kind {kind:?} (kinds rated: {}); its factors add nothing to this prediction",
                    if kinds.is_empty() { "none".to_string() } else { kinds.join(", ") }
                );
                let category = entries.py().get_type::<pyo3::exceptions::PyUserWarning>();
                PyErr::warn(entries.py(), &category, &std::ffi::CString::new(msg)?, 1)?;
            }
        }
        // The players' ratings; the prediction reads them with the entries' factors added.
        let before = self.inner.ratings_before(&game);
        let p = self.inner.predict(&game).map_err(rate_error)?;
        let labels: Vec<String> = proposed.iter().map(|e| e.players.join("+")).collect();
        let (rating, sigma): (Vec<f64>, Vec<Option<f64>>) = (0..game.len())
            .map(|i| {
                let r = &before[game.member_range(i)];
                let n = r.len() as f64;
                (
                    r.iter().map(|x| x.value).sum::<f64>() / n,
                    r.iter()
                        .map(|x| x.sigma.map(|s| s * s))
                        .sum::<Option<f64>>()
                        .map(|v| (v / n).sqrt()),
                )
            })
            .unzip();
        let new_players = proposed
            .iter()
            .flat_map(|e| &e.players)
            .filter(|p| self.inner.get(p).is_none())
            .cloned()
            .collect();
        let known = |f: &podium::Factor| self.inner.factors().iter().any(|r| r.factor == *f);
        let mut new_factors: Vec<String> = Vec::new();
        for f in proposed.iter().flat_map(|e| &e.factors) {
            let name = f.to_string();
            if !known(f) && !new_factors.contains(&name) {
                new_factors.push(name);
            }
        }
        let factor_ratings = proposed
            .iter()
            .map(|e| {
                FactorValues(
                    e.factors
                        .iter()
                        .map(|f| (f.kind.clone(), self.inner.factor_rating(f).value))
                        .collect(),
                )
            })
            .collect();
        Ok(Prediction {
            entries: labels,
            players: proposed.iter().map(|e| e.players.clone()).collect(),
            factors: proposed.into_iter().map(|e| Factors(e.factors)).collect(),
            factor_ratings,
            rating,
            sigma,
            win: p.win,
            ahead: p.ahead,
            expected_place: p.expected_place,
            draw: p.draw,
            quality: p.quality,
            new_players,
            new_factors,
        })
    }

    /// Refuses (a `RateError`) a match whose id (when `id_given`, not numbered) the
    /// league rated, or whose time cannot follow the league's matches: none after a dated
    /// match, or one before the league's last.
    fn check(&mut self, m: &podium::Match, id_given: bool) -> PyResult<()> {
        if id_given && self.ids.contains(&match_fingerprint(m.id())) {
            return Err(crate::errors::RateError::new_err(id_refused(m.id())));
        }
        match time_refused(m.id(), m.time(), self.latest()) {
            Some(why) => Err(crate::errors::RateError::new_err(why)),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl League {
    #[new]
    #[pyo3(signature = (system=None, /, *, history=true, **params))]
    fn py_new(
        system: Option<&Bound<'_, PyAny>>,
        history: bool,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Ok(League::new_from(system_arg(system, params)?, history))
    }

    /// The league's rating system.
    #[getter]
    fn system(slf: &Bound<'_, Self>) -> PyResult<System> {
        Ok(crate::borrow::shared(slf, "system")?.system.clone())
    }

    /// The fairest splits of `players` into teams or tables (see `crate::groups`).
    #[pyo3(signature = (players, /, teams=None, sizes=None, tables=None, apart=None, together=None, fix=None, newcomers=None, top=Int::from(1)), text_signature = "(self, players, /, teams=None, sizes=None, tables=None, apart=(), together=(), fix=None, newcomers=(), top=1)")]
    #[allow(clippy::too_many_arguments)]
    fn balance<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
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
        let held = crate::borrow::shared(slf, "balance")?;
        let this = &*held;
        crate::groups::balance(
            py,
            &this.inner,
            players,
            teams,
            sizes,
            tables,
            apart,
            together,
            fix,
            newcomers,
            top,
        )
    }

    /// Number of matches rated so far.
    #[getter]
    fn matches_rated(slf: &Bound<'_, Self>) -> PyResult<u64> {
        Ok(crate::borrow::shared(slf, "matches_rated")?
            .inner
            .matches_rated())
    }

    /// Every player, in the order they were first met.
    #[getter]
    fn players(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let this = crate::borrow::shared(slf, "players")?;
        Ok(this
            .inner
            .players()
            .iter()
            .map(|p| p.name.clone())
            .collect())
    }

    /// What the system learned from every match rather than of one player, name →
    /// value (`kalman-mmr`: `tau`, `gamma` and `robust` of the filter in use, its
    /// `switches`, the `filters` scored on every match, the calibration's `kappa` and `c`, the
    /// newcomer's `prior_mean`); empty for a system that learns nothing. `podium explain`
    /// prints what each means.
    #[getter]
    fn learned<'py>(slf: &Bound<'py, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let held = crate::borrow::shared(slf, "learned")?;
        let this = &*held;
        let out = PyDict::new(py);
        if let Some(l) = this.inner.learned() {
            for v in this.inner.system().describe_learned(l) {
                out.set_item(v.name, v.value)?;
            }
        }
        Ok(out)
    }

    /// Whether the league keeps what it rated, for `history()`.
    #[getter]
    fn keeps_history(slf: &Bound<'_, Self>) -> PyResult<bool> {
        Ok(crate::borrow::shared(slf, "keeps_history")?.log.is_some())
    }

    fn __len__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        Ok(crate::borrow::shared(slf, "__len__")?.inner.players().len())
    }

    fn __contains__(slf: &Bound<'_, Self>, player: &str) -> PyResult<bool> {
        let this = crate::borrow::shared(slf, "__contains__")?;
        Ok(this.inner.get(player).is_some())
    }

    fn __repr__(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<String> {
        let held = crate::borrow::shared(slf, "__repr__")?;
        let this = &*held;
        let system = this.system.clone().into_pyobject(py)?.repr()?;
        Ok(format!(
            "League({system}, {} players, {} matches rated)",
            this.inner.players().len(),
            this.inner.matches_rated()
        ))
    }

    /// Rates one match and returns each player's change (a table of `Change`, players
    /// best first). The match is a ranking (`["ann", ["bo", "cy"], "di"]`: best first,
    /// an inner list is a team), a mapping of player (or tuple of players) to place
    /// (`{"ann": 1, "bo": 2, "cy": 2}`: equal places are ties) or a `Match`. `id`,
    /// `time` and `factors` (entry → `{kind: value}`, as `Match(...)` takes them) apply
    /// to a ranking or a mapping; a match without an id is numbered. The factors'
    /// changes are in `factor_history()`.
    ///
    /// Raises `MatchError` for a match that cannot exist and `RateError` for one the
    /// system cannot rate (factors that tell entries apart, for a system that does not
    /// rate factors), one whose id the league rated (a match id names one match; a
    /// numbered match is never refused for its number), or one whose time does not
    /// follow the league's matches (none after a match with a time, or one before the
    /// league's last dated match: a league rates its matches in time order); nothing
    /// changes then.
    #[pyo3(signature = (r#match, /, *, id=None, time=None, factors=None))]
    fn rate(
        slf: &Bound<'_, Self>,
        r#match: &Bound<'_, PyAny>,
        id: Option<String>,
        time: Option<&Bound<'_, PyAny>>,
        factors: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        let mut held = crate::borrow::exclusive(slf, "rate")?;
        let this = &mut *held;
        guarded(|| this.rate_one(r#match, id, time, factors))
    }

    /// Rates matches in order: a `Matches` (from `read_csv` and friends) or any
    /// iterable of matches in the forms `rate()` takes, stored first as `Matches(...)`
    /// stores them and then rated as a `Matches` is. Matches without an id are
    /// numbered. Returns a `RateSummary` (matches rated, matches skipped).
    ///
    /// All or nothing: if a match cannot be rated, nothing of the batch is applied and
    /// `RateError` lists every such match, unless `skip_bad=True`, which rates the
    /// others and lists the bad ones in the summary, in the order given. A match of the
    /// list that cannot exist is a bad match too, named by its position
    /// (`matches[500]: player "p1" appears more than once in the match`): `MatchError`
    /// lists every such match before anything is rated, unless `skip_bad=True`. An item
    /// that is no match at all raises `TypeError` naming its position. A league may begin with matches
    /// without a time, but once it has rated one with a time, every later match needs one,
    /// no earlier than the last (a match without, or before it, is a bad match naming the
    /// field `time`); a match whose id the league rated, here or before, is a bad match
    /// naming the field `match`. The interpreter's lock is released while rating; Ctrl-C
    /// stops it and leaves the league as it was (`KeyboardInterrupt`).
    ///
    /// `at_once`: free-for-alls rated in batches on every core (`True`), one by one
    /// (`False`), or, by default (`None`), the way the first matches, timed, show to be
    /// faster; the ratings are the same to the last bit either way.
    #[pyo3(signature = (matches, /, *, skip_bad=false, at_once=None))]
    fn rate_many(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        matches: &Bound<'_, PyAny>,
        skip_bad: bool,
        at_once: Option<bool>,
    ) -> PyResult<RateSummary> {
        let mut held = crate::borrow::exclusive(slf, "rate_many")?;
        let this = &mut *held;
        guarded(|| this.rate_batch(py, matches, skip_bad, at_once))
    }
    /// Rates match files (long CSV or JSON Lines, each by its extension unless `format`
    /// is given) as `podium rate` does: plain files of free-for-alls on several threads,
    /// rated as they are read, anything else the general way; matches with times in time
    /// order. `factors` names columns (CSV) or result fields (JSON Lines) to read as the
    /// entries' factors, as `--factor` does. Returns a `RateSummary`.
    ///
    /// All or nothing, as `rate_many`: a bad match raises `ReadError` (or `RateError`
    /// when every bad match is one the system cannot rate) listing every bad match by
    /// file and line, unless `skip_bad=True`. With `factors`, a system that does not
    /// rate factors raises `RateError` before anything is read. A league that keeps its
    /// history reads the files again when `history()` is first asked for. A file may
    /// begin with matches without a time (rated first, in order), but once a match has a
    /// time every later match needs one. The files are rated after the league's matches,
    /// as `podium rate --resume` rates them after the saved league's: a match whose id the
    /// league rated is a bad match (field `match`), and after the league's dated matches
    /// (read the general way, match by match), so is one without a time or one dated
    /// before the league's last (field `time`). The interpreter's lock is released while
    /// rating; Ctrl-C leaves the league as it was (`KeyboardInterrupt`).
    ///
    /// `at_once`: plain files' free-for-alls rated in batches on every core (`True`), one by one
    /// (`False`), or, by default (`None`), the way the first matches, timed, show to be
    /// faster; the ratings are the same to the last bit either way.
    #[pyo3(signature = (paths, /, *, format=None, skip_bad=false, factors=None, at_once=None))]
    fn rate_files(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        format: Option<&str>,
        skip_bad: bool,
        factors: Option<&Bound<'_, PyAny>>,
        at_once: Option<bool>,
    ) -> PyResult<RateSummary> {
        let mut held = crate::borrow::exclusive(slf, "rate_files")?;
        let this = &mut *held;
        let reading = Reading {
            at_once,
            ..Reading::default()
        };
        guarded(|| this.rate_paths(py, paths, format, skip_bad, factors, &reading))
    }
    /// The leaderboard, best first: a table of `Standing` (position, player, rating,
    /// sigma, games, avg_size, wins, win_pct, expected_win_pct, net_pct, last_played,
    /// last_match, provisional). `order="established"` (the default) lists players whose
    /// rating is no longer provisional first and the provisional ones after them;
    /// `order="rating"` ranks everyone together. `by="conservative"` ranks by μ − 3σ
    /// (systems with σ); `min_games` leaves out players with fewer games (positions count
    /// the players kept: 1, 2, 3, … without gaps, as `podium rate --min-games` shows them).
    /// After `new_season()`, the board is the season's: the players who played since it
    /// started, as `podium rate --seasons` prints each season's board; players who have
    /// not played in it are left out (their ratings stay: `rating()`).
    #[pyo3(signature = (*, min_games=Int::from(0), by="rating", order="established"), text_signature = "(self, *, min_games=0, by=\"rating\", order=\"established\")")]
    fn standings(slf: &Bound<'_, Self>, min_games: Int, by: &str, order: &str) -> PyResult<Table> {
        let held = crate::borrow::shared(slf, "standings")?;
        let this = &*held;
        // More games than a player can have leaves everyone out.
        let min_games: u32 = min_games.saturating("min_games")?;
        let order: podium::Order = order
            .parse()
            // The library's message names the argument: `unknown order "foo": expected …`.
            .map_err(|e: podium::OrderError| PyValueError::new_err(e.to_string()))?;
        let mut board = if this.in_season {
            podium::season::season_standings(&this.inner, order)
        } else {
            this.inner.standings_in(order)
        };
        match by {
            "rating" => {}
            "conservative" => {
                if !this.system.inner.capabilities().has_uncertainty {
                    return Err(PyValueError::new_err(format!(
                        "by=\"conservative\" ranks by μ − 3σ, but system {} keeps no σ; use one of the Bayesian systems (see podium.systems())",
                        this.system.spec.name
                    )));
                }
                let cons = |r: &podium::Rating| r.value - 3.0 * r.sigma.unwrap_or(0.0);
                board.sort_by(|a, b| {
                    cons(&b.rating)
                        .total_cmp(&cons(&a.rating))
                        .then_with(|| a.player.cmp(&b.player))
                });
                if order == podium::Order::Established {
                    board.sort_by_key(|s| s.provisional);
                }
                for (i, s) in board.iter_mut().enumerate() {
                    s.position = i + 1;
                }
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "by={other:?}: expected \"rating\" or \"conservative\""
                )))
            }
        }
        board.retain(|s| s.stats.games >= min_games);
        for (i, s) in board.iter_mut().enumerate() {
            s.position = i + 1;
        }
        let rows = board.iter().map(|s| this.standing(s)).collect();
        Ok(Table::new::<Standing>(rows))
    }

    /// A player's rating now (value, sigma, games). Raises `KeyError` for a player the
    /// league has not met.
    fn rating(slf: &Bound<'_, Self>, player: &str) -> PyResult<Rating> {
        let held = crate::borrow::shared(slf, "rating")?;
        let this = &*held;
        let i = this
            .inner
            .index_of(player)
            .ok_or_else(|| PyKeyError::new_err(format!("no player {player:?} in the league")))?;
        // The rating as the system reads it now (for a system that learns from every
        // match, the model it reports now).
        let r = this.inner.current(i);
        Ok(Rating {
            player: this.inner.player(i).name.clone(),
            value: r.value,
            sigma: r.sigma,
            games: r.games,
        })
    }

    /// The factors' table (`podium rate --factors`): every factor the league has met,
    /// by kind (alphabetical), then best rated first (then by value); a table of
    /// `FactorStanding` (kind, value, rating, sigma, matches, wins, win_pct,
    /// expected_win_pct). A factor's rating is what it adds to the strength of an entry
    /// that carries it; its matches are those where it told entries apart.
    fn factor_standings(slf: &Bound<'_, Self>) -> PyResult<Table> {
        let this = crate::borrow::shared(slf, "factor_standings")?;
        let rows = this
            .inner
            .factor_standings()
            .iter()
            .map(factor_standing)
            .collect();
        Ok(Table::new::<FactorStanding>(rows))
    }

    /// A factor's rating now, as a `FactorStanding` (`factor_rating("car", "ferrari")`).
    /// Raises `KeyError` for a factor the league has not met (a prediction starts it at
    /// no advantage).
    fn factor_rating(slf: &Bound<'_, Self>, kind: &str, value: &str) -> PyResult<FactorStanding> {
        let held = crate::borrow::shared(slf, "factor_rating")?;
        let this = &*held;
        this.inner
            .factors()
            .iter()
            .find(|f| f.factor.kind == kind && f.factor.value == value)
            .map(factor_standing)
            .ok_or_else(|| PyKeyError::new_err(format!("no factor {kind}={value} in the league")))
    }

    /// A player's changes, match by match, in rating order (a table of `Change`); every
    /// player's when `player` is `None`. Needs a league that keeps its history.
    #[pyo3(signature = (player=None, /))]
    fn history(slf: &Bound<'_, Self>, py: Python<'_>, player: Option<&str>) -> PyResult<Table> {
        let mut held = crate::borrow::exclusive(slf, "history")?;
        let this = &mut *held;
        this.keep_history(py)?;
        let h = this.history.as_ref().expect("kept");
        let rows: Vec<Change> = match player {
            Some(name) => {
                let i = this.inner.index_of(name).ok_or_else(|| {
                    PyKeyError::new_err(format!("no player {name:?} in the league"))
                })?;
                h.by_player
                    .get(i)
                    .map(|rows| {
                        rows.iter()
                            .map(|&r| h.change(&this.inner, &h.rows[r as usize]))
                            .collect()
                    })
                    .unwrap_or_default()
            }
            None => h.rows.iter().map(|r| h.change(&this.inner, r)).collect(),
        };
        Ok(Table::new(rows))
    }

    /// The factors' changes, match by match, in rating order (a table of
    /// `FactorChange`): of the factor `kind`=`value`, of every factor of `kind`, or of
    /// every factor. A match's factors move only where they tell its entries apart.
    /// Raises `KeyError` for a kind or factor the league has not met. Needs a league that
    /// keeps its history.
    #[pyo3(signature = (kind=None, value=None))]
    fn factor_history(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        kind: Option<&str>,
        value: Option<&str>,
    ) -> PyResult<Table> {
        let mut held = crate::borrow::exclusive(slf, "factor_history")?;
        let this = &mut *held;
        if value.is_some() && kind.is_none() {
            return Err(PyTypeError::new_err(
                "factor_history: a value needs its kind (factor_history(\"car\", \"ferrari\"))",
            ));
        }
        this.keep_history(py)?;
        let h = this.history.as_ref().expect("kept");
        let factors = this.inner.factors();
        let wanted: Vec<usize> = (0..factors.len())
            .filter(|&i| {
                let f = &factors[i].factor;
                kind.is_none_or(|k| f.kind == k) && value.is_none_or(|v| f.value == v)
            })
            .collect();
        if wanted.is_empty() {
            if let Some(k) = kind {
                return Err(PyKeyError::new_err(match value {
                    Some(v) => format!("no factor {k}={v} in the league"),
                    None => format!("no factor of kind {k:?} in the league"),
                }));
            }
        }
        let rows: Vec<FactorChange> = if kind.is_none() {
            h.factor_rows
                .iter()
                .map(|r| h.factor_change(&this.inner, r))
                .collect()
        } else {
            // The factors' rows merged back into rating order.
            let mut at: Vec<u32> = wanted
                .iter()
                .flat_map(|&i| h.by_factor.get(i).into_iter().flatten().copied())
                .collect();
            at.sort_unstable();
            at.iter()
                .map(|&r| h.factor_change(&this.inner, &h.factor_rows[r as usize]))
                .collect()
        };
        Ok(Table::new(rows))
    }

    /// What the system expects of a proposed match: `entries` are player ids or lists of
    /// player ids (teams), or a `Match`, whose entries (and their factors) are taken at
    /// its time (unless `time` is given), its results left out. `factors` gives entries factors as `Match(...)` takes them
    /// (`{"ann": {"car": "red"}, ("bo", "cy"): {"car": "blue"}}`, as `podium predict
    /// --players ann@car=red,bo+cy@car=blue`), for a system that rates factors; a factor
    /// the league has not met starts at no advantage. Players the league has not met
    /// start as the system starts a new player. Ratings of systems with σ are aged to
    /// `time` (by default the last time the league has seen). Returns a `Prediction`.
    #[pyo3(signature = (entries, /, *, time=None, factors=None))]
    fn predict(
        slf: &Bound<'_, Self>,
        entries: &Bound<'_, PyAny>,
        time: Option<&Bound<'_, PyAny>>,
        factors: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Prediction> {
        let held = crate::borrow::shared(slf, "predict")?;
        let this = &*held;
        guarded(|| this.predict_one(entries, time, factors))
    }
    /// Sets a player's starting rating (e.g. carried over from another league): `games`
    /// counts games already played elsewhere; without `sigma` a system with σ gives a
    /// newcomer's. Raises `RateError` for a rating the system cannot start from.
    #[pyo3(signature = (player, rating, /, *, sigma=None, games=Int::from(0)), text_signature = "(self, player, rating, /, *, sigma=None, games=0)")]
    fn set_initial(
        slf: &Bound<'_, Self>,
        player: &str,
        rating: f64,
        sigma: Option<f64>,
        games: Int,
    ) -> PyResult<()> {
        let mut held = crate::borrow::exclusive(slf, "set_initial")?;
        let this = &mut *held;
        podium::model::check_player_id(player).map_err(crate::errors::match_error)?;
        let games = games.whole("games")?;
        let rating = podium::Rating {
            value: rating,
            sigma,
            games,
        };
        this.inner.set_initial(player, rating).map_err(rate_error)?;
        if let Some(log) = &mut this.log {
            log.ops.push(Op::Initial(player.to_string(), rating));
        }
        Ok(())
    }

    /// Starts a new season (`podium rate --seasons`): `reset` is `"hard"` (everyone at
    /// the system's initial rating), `"soft"` (ratings pulled towards the mean of the
    /// season's active players by `pull`, default 0.5, and σ widened in quadrature by
    /// `widen` times a new player's σ, default 0.25) or `"none"` (ratings carry on).
    /// Games and wins start again, and `standings()` lists the new season's players only.
    /// Raises `ValueError` for an unknown reset, or a pull or widen out of range;
    /// nothing changes then.
    #[pyo3(signature = (*, reset="soft", pull=None, widen=None))]
    fn new_season(
        slf: &Bound<'_, Self>,
        reset: &str,
        pull: Option<f64>,
        widen: Option<f64>,
    ) -> PyResult<()> {
        let mut held = crate::borrow::exclusive(slf, "new_season")?;
        let this = &mut *held;
        use podium::season::{Reset, DEFAULT_PULL, DEFAULT_WIDEN};
        let reset = match reset {
            "hard" => Reset::Hard,
            "none" => Reset::None,
            "soft" => Reset::Soft {
                pull: pull.unwrap_or(DEFAULT_PULL),
                widen: widen.unwrap_or(DEFAULT_WIDEN),
            },
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "reset {other:?}: expected \"hard\", \"soft\" or \"none\""
                )))
            }
        };
        if !matches!(reset, Reset::Soft { .. }) && (pull.is_some() || widen.is_some()) {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "pull and widen are for reset=\"soft\" only",
            ));
        }
        this.inner = this
            .inner
            .new_season(&reset)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        this.latest = None;
        if let Some(log) = &mut this.log {
            log.ops.push(Op::Season(reset));
        }
        this.in_season = true;
        Ok(())
    }

    /// Sets starting ratings from a CSV file `player,rating[,games][,sigma]` (as
    /// `podium rate --initial` reads it). All or nothing: raises `ReadError` (or
    /// `RateError`) naming the file and line of the first bad row.
    fn load_initial(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        path: std::path::PathBuf,
    ) -> PyResult<()> {
        let mut held = crate::borrow::exclusive(slf, "load_initial")?;
        let this = &mut *held;
        let name = path.to_string_lossy().into_owned();
        let seeds = py.detach(|| {
            let f = std::fs::File::open(&path).map_err(|e| {
                Box::new(podium_io::ReadError::Io {
                    file: name.clone(),
                    source: e,
                })
            })?;
            podium_io::initial::read_initial_ratings(&name, f).map_err(Box::new)
        });
        let seeds = seeds.map_err(|e| crate::errors::read_error(&e))?;
        let before = this.inner.clone();
        for s in &seeds {
            if let Err(e) = this.inner.set_initial(&s.player, s.rating()) {
                this.inner = before;
                let field = match &e {
                    RateError::RatingOutOfRange { what, .. } => *what,
                    _ => "rating",
                };
                return Err(crate::errors::placed(
                    crate::errors::RateError::new_err,
                    BadMatch {
                        message: format!("{name}:{}: field `{field}`: {e}", s.line),
                        file: Some(name),
                        line: Some(s.line),
                        field: Some(field.to_string()),
                        match_id: None,
                    },
                ));
            }
        }
        if let Some(log) = &mut this.log {
            log.ops.extend(
                seeds
                    .into_iter()
                    .map(|s| Op::Initial(s.player.clone(), s.rating())),
            );
        }
        Ok(())
    }

    /// A copy of the league (the system is shared): a checkpoint to rate on from.
    fn copy(slf: &Bound<'_, Self>) -> PyResult<League> {
        Ok(crate::borrow::shared(slf, "copy")?.copied())
    }

    /// Saves the league to the file `path` (JSON), exactly: every player's rating, state
    /// and statistics, what the system learned, the factors, and the ids of the matches
    /// rated (by a 64-bit hash, as `podium rate --save` notes them). `League.load(path)`
    /// goes on from there. The file is written whole or not at all; the history is not
    /// saved.
    fn save(slf: &Bound<'_, Self>, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let held = crate::borrow::shared(slf, "save")?;
        let this = &*held;
        let name = path.to_string_lossy().into_owned();
        let ids = this.sorted_ids();
        py.detach(|| podium_io::saved::write_rated(&name, &this.inner, &[], ids))
            .map_err(saved_error)
    }

    /// The league saved in the file `path` by `save()`, rated by the system it was saved
    /// by; given a `system` (and keyword parameters), it must be that system with the
    /// same parameters. Raises `ReadError` for a file that is not a saved league,
    /// is damaged, or was saved by another system. Its `history()` starts at the load.
    /// It refuses the matches the file notes as rated (`save()` and `podium rate --save`
    /// note their ids), and matches dated before its last.
    #[staticmethod]
    #[pyo3(signature = (path, /, system=None, *, history=true, **params))]
    fn load(
        py: Python<'_>,
        path: std::path::PathBuf,
        system: Option<&Bound<'_, PyAny>>,
        history: bool,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<League> {
        let name = path.to_string_lossy().into_owned();
        let system = match (system, params) {
            (None, None) => None,
            (s, p) => Some(system_arg(s, p)?),
        };
        let bytes = std::fs::read(&path).map_err(|e| crate::errors::io_error(&name, &e))?;
        let text = py.detach(|| {
            String::from_utf8(bytes).map_err(|e| {
                saved_error(podium_io::saved::SavedFileError::NotALeague {
                    path: name.clone(),
                    why: format!("not UTF-8 text: {}", e.utf8_error()),
                })
            })
        })?;
        League::restored(&text, &name, system, history)
    }

    /// Pickling: the saved league (as `save()` writes it, but for the ids of the
    /// matches rated), whether the league keeps its history, whether a season was started
    /// (the board lists its players), and the ids of the matches rated (their 64-bit
    /// hashes, 8 bytes each, little-endian).
    fn __getstate__(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
    ) -> PyResult<(Py<PyAny>, bool, bool, Py<PyAny>)> {
        let held = crate::borrow::shared(slf, "__getstate__")?;
        let this = &*held;
        let text = podium_io::saved::to_json(&this.inner, "the league").map_err(saved_error)?;
        let bytes = pyo3::types::PyBytes::new(py, text.as_bytes());
        let ids: Vec<u8> = this
            .sorted_ids()
            .iter()
            .flat_map(|fp| fp.to_le_bytes())
            .collect();
        Ok((
            bytes.into_any().unbind(),
            this.log.is_some(),
            this.in_season,
            pyo3::types::PyBytes::new(py, &ids).into_any().unbind(),
        ))
    }

    /// Takes the state `__getstate__` gives (or, from an older package, its first two or
    /// three items: without the season, or the ids).
    fn __setstate__(
        slf: &Bound<'_, Self>,
        state: &Bound<'_, pyo3::types::PyTuple>,
    ) -> PyResult<()> {
        let mut held = crate::borrow::exclusive(slf, "__setstate__")?;
        let this = &mut *held;
        let bad = || {
            PodiumError::new_err(
                "not a pickled podium League: expected (bytes, bool[, bool[, bytes]])",
            )
        };
        if !(2..=4).contains(&state.len()) {
            return Err(bad());
        }
        let bytes: Vec<u8> = state.get_item(0)?.extract().map_err(|_| bad())?;
        let history: bool = state.get_item(1)?.extract().map_err(|_| bad())?;
        let in_season: bool = match state.get_item(2) {
            Ok(s) => s.extract().map_err(|_| bad())?,
            Err(_) => false,
        };
        let ids: Vec<u8> = match state.get_item(3) {
            Ok(s) => s.extract().map_err(|_| bad())?,
            Err(_) => Vec::new(),
        };
        if ids.len() % 8 != 0 {
            return Err(bad());
        }
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| PodiumError::new_err(format!("not a pickled podium League: {e}")))?;
        *this = League::restored(text, "the pickled league", None, history)?;
        this.in_season |= in_season;
        this.ids_mut().extend(
            ids.chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("chunks of 8 bytes"))),
        );
        Ok(())
    }

    fn __copy__(slf: &Bound<'_, Self>) -> PyResult<League> {
        Ok(crate::borrow::shared(slf, "__copy__")?.copied())
    }

    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> PyResult<League> {
        Ok(crate::borrow::shared(slf, "__deepcopy__")?.copied())
    }
}

/// Numbers by factor kind, shown to Python as a dict.
#[derive(Debug, Clone, PartialEq)]
pub struct FactorValues(Vec<(String, f64)>);

impl<'py> IntoPyObject<'py> for &FactorValues {
    type Target = PyDict;
    type Output = Bound<'py, PyDict>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        let d = PyDict::new(py);
        for (k, v) in &self.0 {
            d.set_item(k, v)?;
        }
        Ok(d)
    }
}

/// What a system expects of a proposed match (`League.predict()`). Lists follow the
/// entries' order as given.
#[pyclass(module = "podium", frozen, get_all)]
pub struct Prediction {
    /// Each entry's label: its players joined with `+`.
    entries: Vec<String>,
    /// Each entry's players.
    players: Vec<Vec<String>>,
    /// Each entry's factors, kind → value (empty without).
    factors: Vec<Factors>,
    /// Each entry's factors' ratings, kind → rating: what each adds to the entry's
    /// strength (a factor the league has not met at its starting rating).
    factor_ratings: Vec<FactorValues>,
    /// Each entry's rating: the mean of its players' (without its factors).
    rating: Vec<f64>,
    /// Each entry's σ (the root mean square of its players'), for systems with σ.
    sigma: Vec<Option<f64>>,
    /// Each entry's probability to finish first.
    win: Vec<f64>,
    /// `ahead[i][j]`: the probability that entry `i` finishes ahead of entry `j`.
    ahead: Vec<Vec<f64>>,
    /// Each entry's expected place, 1 = first.
    expected_place: Vec<f64>,
    /// The probability of a draw, for systems with a model of draws.
    draw: Option<f64>,
    /// Match quality, for systems that define it (TrueSkill).
    quality: Option<f64>,
    /// Players the league has not met (rated as newcomers).
    new_players: Vec<String>,
    /// Factors the league has not met, as `kind=value` (at no advantage).
    new_factors: Vec<String>,
}

#[pymethods]
impl Prediction {
    /// One dict per entry: entry, rating, sigma, win, expected_place; when an entry has
    /// factors, also factors (kind → value) and factor_ratings (kind → rating).
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let factors = self.factors.iter().any(|f| !f.0.is_empty());
        let rows = (0..self.entries.len())
            .map(|i| {
                let d = PyDict::new(py);
                d.set_item("entry", &self.entries[i])?;
                d.set_item("rating", self.rating[i])?;
                d.set_item("sigma", self.sigma[i])?;
                d.set_item("win", self.win[i])?;
                d.set_item("expected_place", self.expected_place[i])?;
                if factors {
                    d.set_item("factors", &self.factors[i])?;
                    d.set_item("factor_ratings", &self.factor_ratings[i])?;
                }
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)
    }

    /// The entries as a `pandas.DataFrame` (see `to_dicts`; needs pandas).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = import_pandas(py)?;
        pandas.getattr("DataFrame")?.call1((self.to_dicts(py)?,))
    }

    fn __repr__(&self) -> String {
        // Each entry as `podium predict --players` names it: `ann@car=red`.
        let parts: Vec<String> = (0..self.entries.len())
            .map(|i| {
                let factors: String = self.factors[i].0.iter().map(|f| format!("@{f}")).collect();
                format!(
                    "{}{factors}: win {:.4}, place {:.3}",
                    self.entries[i], self.win[i], self.expected_place[i]
                )
            })
            .collect();
        let mut s = format!("Prediction({}", parts.join("; "));
        if let Some(d) = self.draw {
            s.push_str(&format!("; draw {d:.4}"));
        }
        s.push(')');
        s
    }
}
