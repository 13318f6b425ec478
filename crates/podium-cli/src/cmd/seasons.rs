//! `podium rate --seasons`: the matches split into seasons by their times, each season's
//! final board printed, the league reset between seasons ([`podium::season`]).

use std::convert::Infallible;
use std::io::Write;

use anyhow::Context;
use podium::season::{season_standings, Boundaries, Reset, DEFAULT_PULL, DEFAULT_WIDEN};
use podium::{League, Match};
use podium_io::ingest::{BadMatch, IngestError, Ingested, Resumed};
use podium_io::ReadError;

use crate::ingest::{self, report_skipped, InputArgs};
use crate::output::{leaderboard_json, write_leaderboard, Format};

/// The reset between seasons, as `--reset` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ResetKind {
    /// Everyone starts new, at the system's initial rating.
    Hard,
    /// Ratings pulled towards the mean of the season's active players by --pull, σ
    /// widened by --widen in quadrature.
    Soft,
    /// Ratings carry on; only the season's games and wins start again.
    None,
}

/// The season options of `podium rate`.
#[derive(Debug, Clone, clap::Args)]
pub struct SeasonArgs {
    /// Split the matches into seasons by their times and print each season's final
    /// board, the last one last: `year` (one season per calendar year, UTC) or dates
    /// `YYYY-MM-DD,YYYY-MM-DD,…` at which seasons start (midnight UTC, so no match day
    /// is split). Every match needs a time (one without is a bad match). Not with
    /// --resume or --save: a saved league does not record where its seasons began, so
    /// rate the whole history with --seasons.
    #[arg(long, value_name = "year|DATES")]
    pub seasons: Option<String>,
    /// How each new season starts.
    #[arg(long, value_enum, default_value_t = ResetKind::Soft, requires = "seasons")]
    pub reset: ResetKind,
    /// With --reset soft (the default reset): the share of each rating's distance from
    /// the mean of the season's active players taken away, in [0, 1]. A hard or no reset
    /// refuses it.
    #[arg(
        long,
        value_name = "SHARE",
        requires = "seasons",
        allow_negative_numbers = true,
        help = format!("With --reset soft (the default reset): the share of each rating's distance from the mean of the season's active players taken away, in [0, 1] [default: {DEFAULT_PULL}]")
    )]
    pub pull: Option<f64>,
    /// With --reset soft (the default reset): added to σ in quadrature as a share of σ₀,
    /// a new player's σ (σ' = √(σ² + (widen · σ₀)²)), ≥ 0; ignored by systems without σ.
    /// A hard or no reset refuses it.
    #[arg(
        long,
        value_name = "SIGMA",
        requires = "seasons",
        allow_negative_numbers = true,
        help = format!("With --reset soft (the default reset): added to σ in quadrature as a share of σ₀, a new player's σ (σ' = √(σ² + (widen · σ₀)²)), ≥ 0; ignored by systems without σ [default: {DEFAULT_WIDEN}]")
    )]
    pub widen: Option<f64>,
}

impl SeasonArgs {
    /// The reset the options name, checked.
    ///
    /// # Errors
    /// A pull outside [0, 1], a widen below 0, or either with a hard or no reset (only a
    /// soft reset has them).
    pub fn reset(&self) -> anyhow::Result<Reset> {
        let kind = match self.reset {
            ResetKind::Hard => Some("hard"),
            ResetKind::None => Some("none"),
            ResetKind::Soft => None,
        };
        if let Some(kind) = kind {
            for (given, flag) in [
                (self.pull.is_some(), "--pull"),
                (self.widen.is_some(), "--widen"),
            ] {
                if given {
                    anyhow::bail!(
                        "--reset {kind} takes no {flag}: only a soft reset has --pull and --widen; leave out {flag} or give --reset soft"
                    );
                }
            }
        }
        let reset = match self.reset {
            ResetKind::Hard => Reset::Hard,
            ResetKind::None => Reset::None,
            ResetKind::Soft => Reset::Soft {
                pull: self.pull.unwrap_or(DEFAULT_PULL),
                widen: self.widen.unwrap_or(DEFAULT_WIDEN),
            },
        };
        reset
            .check()
            .map_err(|e| anyhow::anyhow!("--reset soft: {e}"))?;
        Ok(reset)
    }
}

/// Reads `--seasons`: `year`, or dates in increasing order.
///
/// # Errors
/// A boundary that is not a date (`YYYY-MM-DD`) — a time of day would split a match day
/// — or dates out of order.
pub fn boundaries(spec: &str) -> anyhow::Result<Boundaries> {
    if spec.trim().eq_ignore_ascii_case("year") {
        return Ok(Boundaries::Years);
    }
    let mut starts = Vec::new();
    for (k, part) in spec.split(',').enumerate() {
        let part = part.trim();
        // podium_io reads a plain date (10 characters) as its midnight UTC.
        let t = match podium_io::parse_time(part) {
            Some(t) if part.len() == 10 => t,
            within_day => anyhow::bail!(
                "--seasons: boundary {} {part:?} is not a date{}; give `year` or dates YYYY-MM-DD in increasing order, separated by commas",
                k + 1,
                if within_day.is_some() {
                    " but a time within a day, which would split that day's matches between two seasons"
                } else {
                    ""
                }
            ),
        };
        if let Some(&before) = starts.last() {
            if t <= before {
                anyhow::bail!(
                    "--seasons: boundary {} {part:?} does not come after {}; give the dates in increasing order, each once",
                    k + 1,
                    podium_io::format_time(before)
                );
            }
        }
        starts.push(t);
    }
    Boundaries::starts(starts).map_err(|e| anyhow::anyhow!("--seasons: {e}"))
}

/// One season as printed: its name, matches and final league.
struct Season {
    name: String,
    matches: usize,
    first: i64,
    last: i64,
    league: League,
}

/// The name of season `key` of `boundaries`.
fn name_of(boundaries: &Boundaries, key: i64) -> String {
    match boundaries {
        Boundaries::Years => key.to_string(),
        Boundaries::Starts(s) => {
            let at = |k: usize| podium_io::format_time(s[k]);
            let k = key as usize;
            match (k, s.len()) {
                (0, _) => format!("before {}", at(0)),
                (k, n) if k == n => format!("from {}", at(k - 1)),
                (k, _) => format!("{} to {}", at(k - 1), at(k)),
            }
        }
    }
}

/// What the `time` of a match without one must be under `--seasons`.
const SEASON_TIME: &str = "a time: --seasons splits the matches into seasons by their times, so every match needs one (a `time` column or field; or leave out --seasons)";

/// The matches of the inputs that `podium rate` would rate from `league`, in rating
/// order, with the rest of what reading them gave: read and rated as `podium rate`
/// reads and rates them ([`ingest::rate_each`]), so that a bad match is listed with its
/// file and line, skipped with `--skip-bad` and refused with the whole input otherwise,
/// in the same words. A match without a time is a bad match too: there is no season to
/// put it in.
///
/// # Errors
/// A file that cannot be read, or (without `--skip-bad`) every bad match found.
fn rated_matches(
    input: &InputArgs,
    league: &League,
) -> anyhow::Result<(League, Vec<Match>, Ingested)> {
    let mut inputs = input.inputs();
    // Read as after a league whose last match is at the earliest instant there is: every
    // match needs a time then, and a match without one is a bad match of its file and
    // line (its expected time said for seasons below).
    inputs.resumed = Some(Resumed {
        latest: Some(i64::MIN),
        ..Resumed::default()
    });
    let mut rated = league.clone();
    let mut matches = Vec::new();
    let mut done = ingest::with_progress(input, |reading| {
        podium_io::ingest::rate_each(&inputs, &mut rated, reading, |_, m, _| {
            matches.push(m.clone());
            Ok::<(), Infallible>(())
        })
        .map_err(|e| {
            let e = match e {
                IngestError::BadMatches { count, mut listed } => {
                    listed.iter_mut().for_each(undated_for_seasons);
                    IngestError::BadMatches { count, listed }
                }
                e => e,
            };
            ingest::explain(e, "rated", "rate")
        })
    })?;
    done.skipped.iter_mut().for_each(undated_for_seasons);
    Ok((rated, matches, done))
}

/// A bad match for want of a time says that `--seasons` needs one ([`SEASON_TIME`]).
fn undated_for_seasons(bad: &mut BadMatch) {
    if let BadMatch::Read(ReadError::Field {
        field,
        value,
        expected,
        ..
    }) = bad
    {
        if field == "time" && value.is_empty() && expected.starts_with(podium_io::times_expected())
        {
            *expected = SEASON_TIME.to_string();
        }
    }
}

/// Rates `matches` (in time order, each with a time) season by season from `league`,
/// the reset applied once at each boundary crossed between two matches.
///
/// # Errors
/// A match the system refuses after a reset (the ratings it starts from are not those
/// it was read with), or a reset the system refuses.
fn rate_seasons(
    mut league: League,
    matches: &[Match],
    boundaries: &Boundaries,
    reset: &Reset,
) -> anyhow::Result<Vec<Season>> {
    let mut seasons: Vec<Season> = Vec::new();
    let mut key = None;
    for m in matches {
        // Read so that a match without a time is a bad match ([`rated_matches`]).
        let Some(t) = m.time() else {
            anyhow::bail!("match {:?} has no time, nothing rated", m.id());
        };
        let k = boundaries.season_of(t);
        match key {
            Some(prev) if prev == k => {}
            Some(prev) => {
                let mut next = league.new_season(reset)?;
                for _ in prev + 1..k {
                    next = next.new_season(reset)?;
                }
                let done = std::mem::replace(&mut league, next);
                let s = seasons.last_mut().expect("a season is open");
                s.league = done;
                seasons.push(Season {
                    name: name_of(boundaries, k),
                    matches: 0,
                    first: t,
                    last: t,
                    league: League::shared(league.system_arc()),
                });
            }
            None => seasons.push(Season {
                name: name_of(boundaries, k),
                matches: 0,
                first: t,
                last: t,
                league: League::shared(league.system_arc()),
            }),
        }
        key = Some(k);
        let s = seasons.last_mut().expect("a season is open");
        league.apply(m).with_context(|| {
            format!(
                "match {:?} of season {} ({}), nothing rated",
                m.id(),
                s.name,
                after(reset)
            )
        })?;
        s.matches += 1;
        s.last = t;
    }
    if let Some(s) = seasons.last_mut() {
        s.league = league;
    }
    Ok(seasons)
}

/// How a season after the first started: "after a hard reset", "after a soft reset",
/// or "ratings carried over" (no reset).
fn after(reset: &Reset) -> &'static str {
    match reset {
        Reset::Hard => "after a hard reset",
        Reset::Soft { .. } => "after a soft reset",
        Reset::None => "ratings carried over",
    }
}

/// Rates the inputs season by season from `league` and prints every season's board.
///
/// # Errors
/// Bad options, inputs or matches (see [`boundaries`] and [`SeasonArgs::reset`]).
pub fn run(
    input: &InputArgs,
    league: League,
    args: &SeasonArgs,
    spec: &str,
    format: Format,
    order: podium::Order,
    min_games: u32,
) -> anyhow::Result<()> {
    let boundaries = boundaries(spec)?;
    let reset = args.reset()?;
    let (rated, matches, done) = rated_matches(input, &league)?;
    super::rate::none_rated(&rated, &done.skipped)?;
    if matches.is_empty() {
        anyhow::bail!("no match read, so there is no season to show");
    }
    let seasons = rate_seasons(league, &matches, &boundaries, &reset)?;
    report_skipped(&done.skipped);
    let mut out = std::io::stdout().lock();
    let board = |s: &Season| {
        let mut b = season_standings(&s.league, order);
        b.retain(|r| r.stats.games >= min_games);
        for (k, r) in b.iter_mut().enumerate() {
            r.position = k + 1;
        }
        b
    };
    if format == Format::Json {
        let sigma = seasons[0].league.system().capabilities().has_uncertainty;
        let all: Vec<serde_json::Value> = seasons
            .iter()
            .map(|s| {
                serde_json::json!({
                    "season": s.name,
                    "matches": s.matches,
                    "first": podium_io::format_time(s.first),
                    "last": podium_io::format_time(s.last),
                    "reset": reset,
                    "board": leaderboard_json(&board(s), sigma, false),
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&all)?)?;
        out.flush()?;
        return Ok(());
    }
    for (k, s) in seasons.iter().enumerate() {
        if k > 0 {
            writeln!(out)?;
        }
        let heading = format!(
            "Season {}: {} match{}, {} to {}{}",
            s.name,
            s.matches,
            if s.matches == 1 { "" } else { "es" },
            podium_io::format_time(s.first),
            podium_io::format_time(s.last),
            if k > 0 {
                format!(", {}", after(&reset))
            } else {
                String::new()
            }
        );
        match format {
            Format::Csv => writeln!(out, "# {heading}")?,
            _ => writeln!(out, "{heading}")?,
        }
        write_leaderboard(&mut out, &board(s), s.league.system(), format)?;
    }
    out.flush()?;
    Ok(())
}
