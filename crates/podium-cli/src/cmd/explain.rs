//! `podium explain`: one player's matches, each with why the rating moved, in words.

use std::fmt::Write as _;
use std::io::Write;

use anyhow::{bail, Context};
use podium::versus::{HeadToHead, Rivals, Versus};
use podium::League;

use crate::ingest::{self, report_skipped, InitialArgs, InputArgs, SystemArgs};
use crate::output::count;

/// Arguments of `podium explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    system: SystemArgs,
    /// The player to explain.
    #[arg(long, short = 'p')]
    player: String,
    #[command(flatten)]
    initial: InitialArgs,
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A number of a system's state: whole numbers as such, others to four significant
/// places after the point.
fn shown(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// "a", "a and b", "a, b and c".
fn join_and(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The player's place on the leaderboard now (as `standings` orders it: by rating,
/// then by name), without sorting the whole league.
fn rank_of(league: &League, player: &str) -> usize {
    let Some(me) = league.get(player) else {
        return 0;
    };
    let mine = me.rating.value;
    1 + league
        .players()
        .iter()
        .filter(|p| p.rating.value > mine || (p.rating.value == mine && p.name.as_str() < player))
        .count()
}

/// A hint for a player name that is not in the files, to follow the message: the same
/// name in other case, or names that contain it (`; did you mean "Maya"?`); else how many
/// players are rated.
pub(crate) fn suggest(league: &League, player: &str) -> String {
    let wanted = player.to_lowercase();
    let mut close: Vec<&str> = league
        .players()
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| n.to_lowercase().contains(&wanted))
        .collect();
    close.sort_by_key(|n| (n.len(), *n));
    close.truncate(5);
    match close.as_slice() {
        [] => {
            let n = league.players().len() as u64;
            format!(
                " ({} {} rated)",
                count(n, "player"),
                if n == 1 { "is" } else { "are" }
            )
        }
        names => format!(
            "; did you mean {}?",
            names
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    }
}

/// Rates the history and tells the player's story.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut league = ingest::new_league(&args.system, &args.initial)?;
    args.input.check_system(league.system())?;
    let spec = podium::systems()
        .iter()
        .find(|s| s.name == league.system().name())
        .copied();
    let mut text = String::new();
    let mut count = 0usize;
    let mut story = Story::default();
    // The player's meetings, each counted with the league as it stood before the match
    // ([`podium::versus`]): a second league, rated one match behind the first.
    let mut behind = ingest::new_league(&args.system, &args.initial)?;
    let mut h2h = HeadToHead::focused(&[args.player.as_str()]);
    let skipped = ingest::rate_each(&args.input, &mut league, |league, m, report| {
        if m.players().any(|(_, p)| p.player == args.player) {
            h2h.observe(&behind, m)
                .with_context(|| format!("match {:?}", m.id()))?;
        }
        behind
            .apply(m)
            .with_context(|| format!("match {:?}", m.id()))?;
        let Some(me) = m.players().position(|(_, p)| p.player == args.player) else {
            return Ok(());
        };
        count += 1;
        let (entry, _) = m.players().nth(me).expect("player is in the match");
        let (_, c) = report.changes[me];
        story.add(m.id(), m.place(entry), &c);
        let group = m.tie_group(entry);
        // The date, unless the match id already says it.
        let when = m
            .time()
            .map(podium_io::format_time)
            .filter(|t| !m.id().contains(t.as_str()))
            .map(|t| format!(" on {t}"))
            .unwrap_or_default();
        let tie = if group.len() > 1 {
            format!(
                ", tied with {} other{}",
                group.len() - 1,
                if group.len() == 2 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        let e = &m.entries()[entry];
        let team = match &e.team {
            Some(name) => {
                let mates: Vec<&str> = e
                    .members
                    .iter()
                    .map(|x| x.player.as_str())
                    .filter(|p| *p != args.player)
                    .collect();
                if mates.is_empty() {
                    format!(" (team {name})")
                } else {
                    format!(" (team {name}, with {})", join_and(&mates))
                }
            }
            None => String::new(),
        };
        let teams = m.entries().iter().any(|e| e.team.is_some());
        let of = if teams {
            format!("{} teams", m.len())
        } else {
            m.len().to_string()
        };
        writeln!(
            text,
            "Match {}{when}: finished {} of {of}{tie}{team}.",
            m.id(),
            ordinal(m.place(entry)),
        )?;
        // Opponents with their ratings before the match, a team as its members.
        let ratings: Vec<f64> = report.changes.iter().map(|(_, c)| c.before.value).collect();
        let opponents: Vec<String> = (0..m.len())
            .filter(|&o| o != entry)
            .map(|o| {
                let range = m.member_range(o);
                let names: Vec<String> = m.entries()[o]
                    .members
                    .iter()
                    .zip(&ratings[range])
                    .map(|(p, r)| format!("{} {r:.0}", p.player))
                    .collect();
                match &m.entries()[o].team {
                    Some(t) => format!("team {t} ({})", names.join(", ")),
                    None => names.join(", "),
                }
            })
            .collect();
        writeln!(
            text,
            "  Opponents (rating before): {}",
            opponents.join(if teams { "; " } else { ", " })
        )?;
        // What a system that remembers keeps of the player (Elo-MMR's performance in
        // this match, Glicko-2's volatility).
        let kept = report
            .states
            .get(me)
            .and_then(Option::as_ref)
            .map(|s| league.system().describe_state(s))
            .unwrap_or_default();
        // The factors of the player's entry that set it apart ([`podium::factor`]), with
        // their ratings before the match.
        let mine: Vec<(&podium::MatchFactor, &podium::PlayerChange)> = m
            .factors()
            .iter()
            .zip(&report.factors)
            .filter(|(f, _)| f.entries.contains(&entry))
            .map(|(f, (_, fc))| (f, fc))
            .collect();
        if league.system().capabilities().expects_performances {
            // The Elo-MMR family: the performance the result shows, against the entry's
            // expected performance (its players' skill plus its factors).
            writeln!(
                text,
                "  Performance {:.0} in this match; the system expected {:.0} from your rating{}.",
                c.actual,
                c.expected,
                if mine.is_empty() {
                    ""
                } else {
                    " and your entry's factors"
                }
            )?;
        } else {
            writeln!(
                text,
                "  The system expected a score of {:.3}; you scored {:.3}.",
                c.expected, c.actual
            )?;
        }
        // How much of the expected score or performance the entry's factors made.
        if !report.factors.is_empty() {
            if mine.is_empty() {
                writeln!(text, "  Your entry carried no factor that others lacked.")?;
            } else {
                let listed: Vec<String> = mine
                    .iter()
                    .map(|(f, fc)| format!("{} {:+.2}", f.factor, fc.before.value))
                    .collect();
                writeln!(
                    text,
                    "  Your entry's factors (rating before, added to your strength): {}.",
                    listed.join(", ")
                )?;
            }
            if league.system().capabilities().expects_performances {
                // The expected performance is the entry's mean skill plus its factors,
                // so their share is their sum.
                let share: f64 = mine.iter().map(|(_, fc)| fc.before.value).sum();
                writeln!(
                    text,
                    "  Without the factors it would have expected a performance of {:.0}: the factors' share of the expected {:.0} is {share:+.0}.",
                    c.expected - share,
                    c.expected
                )?;
            } else {
                // The same match rated without its factors: the expected score alone.
                let befores: Vec<podium::Rating> =
                    report.changes.iter().map(|(_, c)| c.before).collect();
                let plain = league.system().rate(&podium::Prior::new(m, &befores))?;
                let without = plain.changes[me].expected;
                writeln!(
                    text,
                    "  Without the factors it would have expected {without:.3}: the factors' share of the expected score is {:+.3}.",
                    c.expected - without
                )?;
            }
        }
        let step = match c.k {
            Some(k) if c.weight < 1.0 => format!(
                "With K = {k:.2} and {:.0}% of the match played: {k:.2} × {:.2} × ({:.3} − {:.3}) = {:+.2}.",
                c.weight * 100.0,
                c.weight,
                c.actual,
                c.expected,
                c.delta()
            ),
            Some(k) => format!("With K = {k:.2}: {k:.2} × ({:.3} − {:.3}) = {:+.2}.", c.actual, c.expected, c.delta()),
            None => format!("The change is {:+.2}.", c.delta()),
        };
        writeln!(text, "  {step}")?;
        let sigma = match (c.before.sigma, c.after.sigma) {
            (Some(a), Some(b)) => format!(" (uncertainty {a:.2} → {b:.2})"),
            _ => String::new(),
        };
        for v in kept.iter().filter(|v| v.name != "performance") {
            let mut chars = v.name.chars();
            let first = chars
                .next()
                .map(|c| c.to_uppercase().to_string())
                .unwrap_or_default();
            writeln!(
                text,
                "  {first}{} now {} ({}).",
                chars.as_str(),
                shown(v.value),
                v.doc
            )?;
        }
        writeln!(
            text,
            "  Rating {:.2} → {:.2}{sigma}; rank now {} of {}.\n",
            c.before.value,
            c.after.value,
            rank_of(league, &args.player),
            league.players().len()
        )?;
        let _ = league;
        Ok(())
    })?
    .skipped;
    report_skipped(&skipped);
    if count == 0 {
        bail!(
            "player {:?} plays in none of the matches{}",
            args.player,
            suggest(&league, &args.player)
        );
    }
    let mut out = std::io::stdout().lock();
    // The player's story first: where they stand and how they got there; then each
    // match; then how the system rates and what it learned from every match.
    let r = league.get(&args.player).expect("player was rated");
    let sigma = r
        .rating
        .sigma
        .map(|s| format!(" ± {s:.0}"))
        .unwrap_or_default();
    writeln!(
        out,
        "{} played {} match{}: rating now {:.0}{sigma}, rank {} of {}.",
        args.player,
        count,
        if count == 1 { "" } else { "es" },
        r.rating.value,
        rank_of(&league, &args.player),
        league.players().len()
    )?;
    writeln!(out, "{}", story.summary())?;
    write_rivals(
        &mut out,
        &h2h.rivals(&args.player, RIVAL_MEETINGS, RIVALS_LISTED),
        &args.input.files,
    )?;
    writeln!(out)?;
    out.write_all(text.as_bytes())?;
    if let Some(spec) = spec {
        writeln!(out, "How {} rates: {}.", spec.name, spec.summary)?;
    }
    // What the system learned from every match (kalman-mmr: the filter it chose), which
    // moves every rating above as much as the player's own results.
    let learned = league
        .learned()
        .map(|l| league.system().describe_learned(l))
        .unwrap_or_default();
    if !learned.is_empty() {
        let rated = league.matches_rated();
        if rated == 1 {
            writeln!(out, "Learned from the 1 match:")?;
        } else {
            writeln!(out, "Learned from all {rated} matches:")?;
        }
        for v in &learned {
            writeln!(out, "  {} {}: {}", v.name, shown(v.value), v.doc)?;
        }
    }
    Ok(())
}

/// The fewest meetings an opponent needs to be a nemesis or a favourite opponent.
const RIVAL_MEETINGS: u32 = 3;
/// The most frequent opponents listed.
const RIVALS_LISTED: usize = 5;

/// One opponent's record: "Lena, 3-9-0 in 12 meetings: a share of 25.0% where the
/// ratings expected 50.7%".
fn rival(v: &Versus) -> String {
    format!(
        "{}, {}-{}-{} in {} meetings: a share of {:.1}% where the ratings expected {:.1}%",
        v.opponent,
        v.ahead,
        v.behind,
        v.ties,
        v.meetings,
        100.0 * v.actual_share,
        100.0 * v.expected_share
    )
}

/// The head-to-head part of the story: nemesis, favourite opponent, most met opponents.
fn write_rivals(out: &mut dyn Write, r: &Rivals, files: &[String]) -> anyhow::Result<()> {
    if r.frequent.is_empty() {
        writeln!(
            out,
            "Head-to-head: no opponent met {RIVAL_MEETINGS} times or more."
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "Head-to-head (a meeting: a match with both on different sides; ahead-behind-tied):"
    )?;
    match &r.nemesis {
        Some(v) => writeln!(out, "  Nemesis: {}.", rival(v))?,
        None => writeln!(
            out,
            "  Nemesis: none (no opponent met {RIVAL_MEETINGS} times or more finished ahead more often than expected)."
        )?,
    }
    match &r.favourite {
        Some(v) => writeln!(out, "  Favourite opponent: {}.", rival(v))?,
        None => writeln!(
            out,
            "  Favourite opponent: none (no opponent met {RIVAL_MEETINGS} times or more was beaten more often than expected)."
        )?,
    }
    let most: Vec<String> = r
        .frequent
        .iter()
        .map(|v| format!("{} {}", v.opponent, v.meetings))
        .collect();
    // The command for a pair, on the files read: after one file the players go as they
    // are, after several they are named with --player and --opponent.
    let pair = match files {
        [file] => format!("podium versus {file} {} OPPONENT for a pair", r.player),
        _ => format!(
            "podium versus {} --player {} --opponent OPPONENT for a pair",
            files.join(" "),
            r.player
        ),
    };
    writeln!(out, "  Most met: {} ({pair}).", most.join(", "))?;
    Ok(())
}

/// What the player's matches add up to: wins, the rating's way from the first match to
/// now, and the matches that moved it most.
#[derive(Debug, Default)]
struct Story {
    wins: usize,
    first: Option<f64>,
    last: f64,
    peak: Option<(f64, String)>,
    rise: Option<(f64, String)>,
    fall: Option<(f64, String)>,
}

impl Story {
    fn add(&mut self, id: &str, place: usize, c: &podium::PlayerChange) {
        if place == 1 {
            self.wins += 1;
        }
        self.first.get_or_insert(c.before.value);
        self.last = c.after.value;
        let d = c.after.value - c.before.value;
        if self.peak.as_ref().map_or(true, |p| c.after.value > p.0) {
            self.peak = Some((c.after.value, id.to_string()));
        }
        if d > 0.0 && self.rise.as_ref().map_or(true, |r| d > r.0) {
            self.rise = Some((d, id.to_string()));
        }
        if d < 0.0 && self.fall.as_ref().map_or(true, |f| d < f.0) {
            self.fall = Some((d, id.to_string()));
        }
    }

    fn summary(&self) -> String {
        let first = self.first.unwrap_or(self.last);
        let mut s = format!(
            "First place (alone or shared) {} time{}; rating {first:.0} before the first match, {:.0} after the last ({:+.0}).",
            self.wins,
            if self.wins == 1 { "" } else { "s" },
            self.last,
            self.last - first
        );
        if let Some((v, id)) = &self.peak {
            s.push_str(&format!(" Highest {v:.0}, after {id}."));
        }
        if let Some((d, id)) = &self.rise {
            s.push_str(&format!(" Biggest rise {d:+.0} in {id}"));
            match &self.fall {
                Some((f, fid)) => s.push_str(&format!(", biggest fall {f:+.0} in {fid}.")),
                None => s.push('.'),
            }
        } else if let Some((f, fid)) = &self.fall {
            s.push_str(&format!(" Biggest fall {f:+.0} in {fid}."));
        }
        s
    }
}
