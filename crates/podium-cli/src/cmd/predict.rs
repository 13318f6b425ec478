//! `podium predict`: rate a history, then say what the system expects of a proposed match:
//! each entry's chance to win, the chance of every pairwise order, the expected place, and
//! the draw probability and match quality where the system has them.
//!
//! `--players ann,bo,cy` proposes a free-for-all; `ann+bo,cy+dee` proposes teams;
//! `ann@car=red,bo@car=blue` gives entries factors (rated from the history read with
//! `--factor car`; a factor the history never showed starts at no advantage). Players
//! the history has never seen start as the system starts a new player (its initial
//! rating; `mes` starts them at the median rating) and are flagged. When
//! the history has times, ratings of systems with σ are aged to its last match.

use std::collections::HashSet;
use std::io::Write;

use anyhow::{bail, Context};
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use podium::{Entry, Factor, Finish, League, Match, Member, Prediction};

use crate::ingest::{self, report_skipped, InitialArgs, InputArgs, SystemArgs};
use crate::output::Format;

/// Arguments of `podium predict`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    system: SystemArgs,
    /// The proposed match: entries separated by commas, teammates joined by `+`, an
    /// entry's factors after `@` as KIND=VALUE (e.g. `ann,bo,cy`, `ann+bo,cy+dee`, or
    /// `hamilton@constructor=mercedes,verstappen@constructor=red_bull` with the history
    /// read with `--factor constructor`).
    #[arg(long, required = true, value_name = "A,B[,...]")]
    players: String,
    #[command(flatten)]
    initial: InitialArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// One entry of the proposed match, as the user named it.
struct Proposed {
    label: String,
    players: Vec<String>,
    factors: Vec<Factor>,
}

fn parse_players(spec: &str) -> anyhow::Result<Vec<Proposed>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, entry) in spec.split(',').enumerate() {
        let mut parts = entry.split('@');
        let who = parts.next().unwrap_or_default();
        let mut factors: Vec<Factor> = Vec::new();
        for f in parts {
            let Some((kind, value)) = f.split_once('=') else {
                bail!(
                    "--players: entry {} ({entry:?}): factor {f:?} is not KIND=VALUE (e.g. ann@car=red)",
                    i + 1
                );
            };
            let (kind, value) = (kind.trim(), value.trim());
            if kind.is_empty() || value.is_empty() {
                bail!(
                    "--players: entry {} ({entry:?}): factor {f:?} needs a kind and a value (e.g. ann@car=red)",
                    i + 1
                );
            }
            if factors.iter().any(|g| g.kind == kind) {
                bail!(
                    "--players: entry {} ({entry:?}) gives the factor kind {kind:?} twice",
                    i + 1
                );
            }
            factors.push(Factor::new(kind, value));
        }
        let players: Vec<String> = who.split('+').map(|p| p.trim().to_string()).collect();
        if players.iter().any(String::is_empty) {
            bail!(
                "--players: entry {} ({entry:?}) has an empty player name; expected names separated by ',' (entries) and '+' (teammates)",
                i + 1
            );
        }
        for p in &players {
            if !seen.insert(p.clone()) {
                bail!("--players: player {p:?} appears more than once");
            }
        }
        out.push(Proposed {
            label: players.join("+"),
            players,
            factors,
        });
    }
    if out.len() < 2 {
        bail!(
            "--players: a match needs at least 2 entries, found {}",
            out.len()
        );
    }
    podium::limits::check_predict_entries("--players", out.len())?;
    Ok(out)
}

/// The most entries whose pairwise orders the table shows as columns; larger matches
/// show them in CSV and JSON only.
const TABLE_PAIRWISE: usize = 16;

/// Rates the history and prints the prediction.
pub fn run(args: Args) -> anyhow::Result<()> {
    let proposed = parse_players(&args.players)?;
    // A kind the history was not read with has no rating to add: most likely a missing
    // --factor (or a misspelt kind), which would otherwise predict without the factor.
    for (i, e) in proposed.iter().enumerate() {
        if let Some(f) = e
            .factors
            .iter()
            .find(|f| !args.input.factors.contains(&f.kind))
        {
            bail!(
                "--players: entry {} ({}) gives the factor kind {:?}, but the history is not read with it; add --factor {} (kinds read: {})",
                i + 1,
                e.label,
                f.kind,
                f.kind,
                if args.input.factors.is_empty() {
                    "none".to_string()
                } else {
                    args.input.factors.join(", ")
                }
            );
        }
    }
    let mut league = ingest::new_league(&args.system, &args.initial)?;
    args.input.check_system(league.system())?;
    if proposed.iter().any(|e| !e.factors.is_empty())
        && !league.system().capabilities().rates_factors
    {
        bail!(
            "--players gives factors, but system {} does not rate factors; systems that do: {}",
            league.system().name(),
            ingest::factor_systems().join(", ")
        );
    }
    let skipped = ingest::rate(&args.input, &mut league)?.skipped;
    report_skipped(&skipped);
    // The proposed match, all entries level (finishes are not used), at the history's last
    // time so that ratings with σ are aged to it.
    let now = league
        .players()
        .iter()
        .filter_map(|p| p.stats.last_time)
        .max();
    let mut b = Match::builder("proposed");
    if let Some(t) = now {
        b = b.time(t);
    }
    for (i, e) in proposed.iter().enumerate() {
        b = b.entry(Entry {
            team: (e.players.len() > 1).then(|| format!("entry {}", i + 1)),
            members: e
                .players
                .iter()
                .map(|p| Member {
                    player: p.clone(),
                    weight: 1.0,
                })
                .collect(),
            finish: Finish::Rank(1.0),
            factors: e.factors.clone(),
        });
    }
    let game = b.build().context("--players")?;
    // The players' ratings; the prediction reads them with the entries' factors added.
    let before = league.ratings_before(&game);
    let prediction = league
        .predict(&game)
        .context("cannot predict the proposed match")?;
    let unknown: Vec<Vec<String>> = proposed
        .iter()
        .map(|e| {
            e.players
                .iter()
                .filter(|p| league.get(p).is_none())
                .cloned()
                .collect()
        })
        .collect();
    // A new name that is a rated player's in other case is most likely that player:
    // say so, since it is rated as a newcomer (names are matched exactly).
    for name in unknown.iter().flatten() {
        let lower = name.to_lowercase();
        if let Some(p) = league
            .players()
            .iter()
            .find(|p| p.name.to_lowercase() == lower)
        {
            eprintln!(
                "note: {name:?} is not in the history, so it is rated as a new player; did you mean {:?}?",
                p.name
            );
        }
    }
    let entries: Vec<EntryView> = proposed
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let r = &before[game.member_range(i)];
            let n = r.len() as f64;
            let mu = r.iter().map(|x| x.value).sum::<f64>();
            let var = r
                .iter()
                .map(|x| x.sigma.map(|s| s * s))
                .sum::<Option<f64>>();
            let summed = sums_teams(league.system().name());
            EntryView {
                label: e.label.clone(),
                size: r.len(),
                rating: mu / n,
                sigma: var.map(|v| (v / n).sqrt()),
                team_rating: if summed { mu } else { mu / n },
                team_sigma: if summed {
                    var.map(f64::sqrt)
                } else {
                    var.map(|v| (v / n).sqrt())
                },
                unknown: unknown[i].clone(),
                factors: e
                    .factors
                    .iter()
                    .map(|f| {
                        let known = league.factors().iter().any(|r| r.factor == *f);
                        (f.clone(), league.factor_rating(f).value, known)
                    })
                    .collect(),
            }
        })
        .collect();
    let mut out = std::io::stdout().lock();
    let system = league.system().name();
    match args.format {
        Format::Table => write_table(&mut out, system, &league, &entries, &prediction)?,
        Format::Csv => write_csv(&mut out, &entries, &prediction)?,
        Format::Json => write_json(&mut out, system, &league, &entries, &prediction)?,
    }
    out.flush()?;
    Ok(())
}

/// Whether the system rates a team as the sum of its players' skills (μ and σ²
/// summed: TrueSkill, Herbrich et al. 2006, and the Weng-Lin models, Weng & Lin 2011);
/// every other system takes the mean of its players' ratings.
fn sums_teams(system: &str) -> bool {
    matches!(
        system,
        "trueskill"
            | "plackett-luce"
            | "bradley-terry-full"
            | "bradley-terry-part"
            | "thurstone-mosteller-full"
            | "thurstone-mosteller-part"
    )
}

/// What is printed of one entry besides the prediction.
struct EntryView {
    label: String,
    /// How many players the entry has.
    size: usize,
    /// Mean rating of the entry's players (`--format csv` and `json`).
    rating: f64,
    /// Root mean square σ of the entry's players, for systems with σ.
    sigma: Option<f64>,
    /// The entry's rating as the system compares it with the others' (the table): the
    /// sum of its players' where the system sums them, else their mean.
    team_rating: f64,
    /// σ of `team_rating`: √(Σσ²) where the system sums, else the root mean square.
    team_sigma: Option<f64>,
    /// Players the history has not seen.
    unknown: Vec<String>,
    /// The entry's factors with their ratings, and whether the history showed each.
    factors: Vec<(Factor, f64, bool)>,
}

impl EntryView {
    /// The factors as `car=red +12.50`, joined by `; `; a factor the history did not
    /// show is marked `(new)`.
    fn factor_text(&self) -> String {
        self.factors
            .iter()
            .map(|(f, r, known)| format!("{f} {r:+.2}{}", if *known { "" } else { " (new)" }))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

fn pct(p: f64) -> String {
    format!("{:.1}", 100.0 * p)
}

fn write_table(
    out: &mut dyn Write,
    system: &str,
    league: &League,
    entries: &[EntryView],
    p: &Prediction,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "{system}, after {} rated match{}:",
        league.matches_rated(),
        if league.matches_rated() == 1 {
            ""
        } else {
            "es"
        }
    )?;
    let sigma = entries.iter().any(|e| e.sigma.is_some());
    let factors = entries.iter().any(|e| !e.factors.is_empty());
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    // A team's rating as the system compares it: the sum of its players' for the
    // systems that sum them, so that the rating column explains the win chance.
    let teams = entries.iter().any(|e| e.size > 1);
    let rating = match (teams, sums_teams(system)) {
        (false, _) => "rating",
        (true, true) => "rating (team: sum)",
        (true, false) => "rating (team: mean)",
    };
    let mut header = vec!["entry".to_string(), rating.to_string()];
    if sigma {
        header.push("σ".into());
    }
    if factors {
        header.push("factors (rating)".into());
    }
    header.extend(["win %".into(), "exp. place".into()]);
    let pairwise = entries.len() <= TABLE_PAIRWISE;
    if pairwise {
        header.extend((1..=entries.len()).map(|j| format!("ahead of {j} %")));
    }
    t.set_header(header);
    let mut any_new = false;
    for (i, e) in entries.iter().enumerate() {
        let mut label = format!("{}. {}", i + 1, e.label);
        if !e.unknown.is_empty() {
            any_new = true;
            label.push_str(" (new)");
        }
        let mut row = vec![Cell::new(label), Cell::new(format!("{:.2}", e.team_rating))];
        if sigma {
            row.push(Cell::new(
                e.team_sigma.map(|s| format!("{s:.2}")).unwrap_or_default(),
            ));
        }
        if factors {
            row.push(Cell::new(e.factor_text()));
        }
        row.push(Cell::new(pct(p.win[i])));
        row.push(Cell::new(format!("{:.2}", p.expected_place[i])));
        for j in (0..entries.len()).filter(|_| pairwise) {
            row.push(Cell::new(if i == j {
                "–".to_string()
            } else {
                pct(p.ahead[i][j])
            }));
        }
        t.add_row(row);
    }
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{t}")?;
    if !pairwise {
        writeln!(
            out,
            "the chance of each pairwise order of the {} entries: --format csv or --format json",
            entries.len()
        )?;
    }
    if let Some(d) = p.draw {
        writeln!(out, "draw probability: {} %", pct(d))?;
    }
    if let Some(q) = p.quality {
        writeln!(out, "match quality: {} %", pct(q))?;
    }
    if any_new {
        let names: Vec<&str> = entries
            .iter()
            .flat_map(|e| e.unknown.iter().map(String::as_str))
            .collect();
        writeln!(
            out,
            "(new) not in the history, rated as a new player: {}",
            names.join(", ")
        )?;
    }
    Ok(())
}

fn write_csv(out: &mut dyn Write, entries: &[EntryView], p: &Prediction) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header: Vec<String> = [
        "entry",
        "players",
        "rating",
        "sigma",
        "win_probability",
        "expected_place",
        "draw_probability",
        "quality",
        "unknown_players",
    ]
    .map(String::from)
    .to_vec();
    let factors = entries.iter().any(|e| !e.factors.is_empty());
    if factors {
        header.push("factors".into());
    }
    header.extend(entries.iter().map(|e| format!("ahead_of:{}", e.label)));
    w.write_record(&header)?;
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for (i, e) in entries.iter().enumerate() {
        let mut row = vec![
            (i + 1).to_string(),
            e.label.clone(),
            e.rating.to_string(),
            opt(e.sigma),
            p.win[i].to_string(),
            p.expected_place[i].to_string(),
            opt(p.draw),
            opt(p.quality),
            e.unknown.join("+"),
        ];
        if factors {
            row.push(
                e.factors
                    .iter()
                    .map(|(f, _, _)| f.to_string())
                    .collect::<Vec<_>>()
                    .join(";"),
            );
        }
        row.extend((0..entries.len()).map(|j| {
            if i == j {
                String::new()
            } else {
                p.ahead[i][j].to_string()
            }
        }));
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

fn write_json(
    out: &mut dyn Write,
    system: &str,
    league: &League,
    entries: &[EntryView],
    p: &Prediction,
) -> anyhow::Result<()> {
    // Written as it is serialised, entry by entry: a tree of JSON values of every pairwise
    // order would take hundreds of bytes per pair. Keys in the order of the sorted maps
    // this document was first written with.
    let doc = JsonPrediction {
        system,
        matches_rated: league.matches_rated(),
        entries,
        p,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}

/// The JSON document of a prediction.
struct JsonPrediction<'a> {
    system: &'a str,
    matches_rated: u64,
    entries: &'a [EntryView],
    p: &'a Prediction,
}

impl serde::Serialize for JsonPrediction<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // The labels in sorted order, once for every entry's `ahead_of`.
        let mut by_label: Vec<usize> = (0..self.entries.len()).collect();
        by_label.sort_by(|&a, &b| self.entries[a].label.cmp(&self.entries[b].label));
        let entries: Vec<JsonEntry<'_>> = (0..self.entries.len())
            .map(|i| JsonEntry {
                i,
                e: &self.entries[i],
                all: self.entries,
                by_label: &by_label,
                p: self.p,
            })
            .collect();
        let mut st = s.serialize_struct("Prediction", 5)?;
        st.serialize_field("draw_probability", &self.p.draw)?;
        st.serialize_field("entries", &entries)?;
        st.serialize_field("matches_rated", &self.matches_rated)?;
        st.serialize_field("quality", &self.p.quality)?;
        st.serialize_field("system", self.system)?;
        st.end()
    }
}

/// One entry of [`JsonPrediction`].
struct JsonEntry<'a> {
    i: usize,
    e: &'a EntryView,
    all: &'a [EntryView],
    by_label: &'a [usize],
    p: &'a Prediction,
}

impl serde::Serialize for JsonEntry<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let i = self.i;
        let players: Vec<&str> = self.e.label.split('+').collect();
        let mut st = s.serialize_struct("Entry", 8)?;
        st.serialize_field("ahead_of", &AheadOf(self))?;
        st.serialize_field("entry", &(i + 1))?;
        st.serialize_field("expected_place", &self.p.expected_place[i])?;
        if !self.e.factors.is_empty() {
            let factors: std::collections::BTreeMap<String, FactorJson> = self
                .e
                .factors
                .iter()
                .map(|(f, r, known)| {
                    (
                        f.to_string(),
                        FactorJson {
                            rating: *r,
                            known: *known,
                        },
                    )
                })
                .collect();
            st.serialize_field("factors", &factors)?;
        }
        st.serialize_field("players", &players)?;
        st.serialize_field("rating", &self.e.rating)?;
        st.serialize_field("sigma", &self.e.sigma)?;
        st.serialize_field("unknown_players", &self.e.unknown)?;
        st.serialize_field("win_probability", &self.p.win[i])?;
        st.end()
    }
}

/// A factor of an entry in [`JsonEntry`]: its rating, and whether the history showed it.
#[derive(serde::Serialize)]
struct FactorJson {
    rating: f64,
    known: bool,
}

/// An entry's chance to finish ahead of each other entry, by label.
struct AheadOf<'a>(&'a JsonEntry<'a>);

impl serde::Serialize for AheadOf<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let e = self.0;
        let mut map = s.serialize_map(Some(e.all.len() - 1))?;
        for &j in e.by_label.iter().filter(|&&j| j != e.i) {
            map.serialize_entry(&e.all[j].label, &e.p.ahead[e.i][j])?;
        }
        map.end()
    }
}
