//! `podium history`: every player's skill curve over a whole history, smoothed by
//! TrueSkill Through Time ([`podium::history`]): each estimate learns from the matches
//! before and after it. Prints one row per player and match time (mean, σ), and draws
//! the curves of chosen players (`--plot curves.svg`).

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use comfy_table::{presets::UTF8_BORDERS_ONLY, CellAlignment, Table};
use plotters::prelude::*;
use podium::history::{History, TttConfig};

use crate::ingest::{self, report_skipped, InputArgs};
use crate::output::{count, Format};
use crate::plot::TickedAxis;

/// Arguments of `podium history`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// The smoother: `ttt` (TrueSkill Through Time), the only one.
    #[arg(long, default_value = "ttt")]
    pub system: String,
    /// Set a parameter: mu (0), sigma (6), beta (1), gamma (0.03 per day), p_draw (0.1;
    /// ties need it above 0), epsilon (1e-6), iterations (30; 1 to 1000).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub settings: Vec<String>,
    /// Only these players (comma-separated), in the table and the plot.
    #[arg(long, value_name = "A,B,...")]
    pub players: Option<String>,
    /// Without --players: the plot shows this many players, those with the highest peak
    /// of mean − σ among players of at least 10 matches.
    #[arg(long, default_value_t = 8)]
    pub top: usize,
    /// Draw the curves (mean, with a band of ± one σ) into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

/// The parameters from `--set`.
fn config(settings: &[String]) -> anyhow::Result<TttConfig> {
    let mut c = TttConfig {
        p_draw: 0.1,
        ..TttConfig::default()
    };
    for s in settings {
        let Some((k, v)) = s.split_once('=') else {
            bail!("--set {s}: expected KEY=VALUE");
        };
        let (k, v) = (k.trim().trim_start_matches("ttt."), v.trim());
        if k == "iterations" {
            c.iterations = v
                .parse()
                .with_context(|| format!("--set {s}: iterations must be a whole number"))?;
            continue;
        }
        let x: f64 = v
            .parse()
            .with_context(|| format!("--set {s}: {v:?} is not a number"))?;
        match k {
            "mu" => c.mu = x,
            "sigma" => c.sigma = x,
            "beta" => c.beta = x,
            "gamma" => c.gamma = x,
            "p_draw" | "p-draw" => c.p_draw = x,
            "epsilon" => c.epsilon = x,
            _ => bail!(
                "--set {s}: unknown parameter {k:?} (known: mu, sigma, beta, gamma, p_draw, epsilon, iterations)"
            ),
        }
    }
    Ok(c)
}

/// A curve point's time as text: a date when the history has times (days since the
/// epoch), the match step otherwise.
fn when(t: f64, dated: bool) -> String {
    if dated {
        let day = podium_io::time::format_time((t * 86_400.0).round() as i64);
        day.get(..10).unwrap_or(&day).to_string()
    } else {
        format!("{t}")
    }
}

/// The fewest matches a player needs to be drawn without `--players`.
const TOP_MATCHES: usize = 10;

/// A value as the table prints it: three decimals, zero without a sign.
fn fixed(x: f64) -> String {
    let s = format!("{x:.3}");
    if s == "-0.000" {
        "0.000".to_string()
    } else {
        s
    }
}

/// A hint for a name in no match: names that contain it in any case
/// (`; did you mean "Maya"?`), else how many players there are.
fn suggest<'a>(names: impl Iterator<Item = &'a str>, player: &str) -> String {
    let wanted = player.to_lowercase();
    let mut all = 0usize;
    let mut close: Vec<&str> = names
        .inspect(|_| all += 1)
        .filter(|n| n.to_lowercase().contains(&wanted))
        .collect();
    close.sort_by_key(|n| (n.len(), *n));
    close.truncate(5);
    if close.is_empty() {
        return format!(
            " ({all} player{} play{})",
            if all == 1 { "" } else { "s" },
            if all == 1 { "s" } else { "" }
        );
    }
    let names: Vec<String> = close.iter().map(|n| format!("{n:?}")).collect();
    format!("; did you mean {}?", names.join(" or "))
}

/// Runs `podium history`.
///
/// # Errors
/// Bad arguments or input, a history that cannot be smoothed, or output that cannot be
/// written.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    if !args.system.eq_ignore_ascii_case("ttt") {
        bail!(
            "--system {}: podium history smooths with ttt (TrueSkill Through Time) only",
            args.system
        );
    }
    if let Some(p) = &args.plot {
        if p.extension().and_then(|e| e.to_str()) != Some("svg") {
            bail!("--plot {}: the file name must end in .svg", p.display());
        }
        // A plot that cannot be written is found out before the smoothing.
        let inputs: Vec<&str> = args.input.files.iter().map(String::as_str).collect();
        crate::plot::check(p, &inputs)?;
        if args.players.is_none() && args.top == 0 {
            bail!(
                "--top 0: the plot would draw no curve; give --top 1 or more, or name the players with --players A,B"
            );
        }
    }
    if !args.input.leave_out_factors("ttt") {
        bail!(
            "--factor {}: the ttt smoother of podium history does not rate factors; systems \
             that do (podium rate, backtest): {}; {}",
            args.input.factors.join(" --factor "),
            ingest::factor_systems().join(", "),
            ingest::FACTOR_NOT_NEEDED
        );
    }
    // A player named twice is shown once, where first named.
    let wanted: Option<Vec<&str>> = args.players.as_deref().map(|list| {
        let mut names: Vec<&str> = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    });
    if wanted.as_ref().is_some_and(Vec::is_empty) {
        bail!(
            "--players {:?}: expected at least one player name (A,B,...)",
            args.players.as_deref().unwrap_or_default()
        );
    }
    let config = config(&args.settings)?;
    let loaded = ingest::load(&args.input)?;
    report_skipped(&loaded.skipped);
    let matches = loaded.matches;
    // Each player's matches, to check --players and --plot before the smoothing.
    let mut played: HashMap<&str, usize> = HashMap::new();
    for m in &matches {
        for (_, member) in m.players() {
            *played.entry(member.player.as_str()).or_default() += 1;
        }
    }
    if let Some(list) = &wanted {
        if let Some(name) = list.iter().find(|n| !played.contains_key(*n)) {
            bail!(
                "--players: {name:?} plays no match of the history{}",
                suggest(played.keys().copied(), name)
            );
        }
    }
    if args.plot.is_some() && wanted.is_none() {
        let most = played.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)));
        if let Some((name, &n)) = most.filter(|(_, &n)| n < TOP_MATCHES) {
            bail!(
                "--plot: no curve to draw: without --players the plot shows the players of \
                 {TOP_MATCHES} matches or more (the --top {} highest), and the most any \
                 player has is {n} ({name}); name the players to draw with --players A,B",
                args.top
            );
        }
    }
    let dated = matches.iter().all(|m| m.time().is_some());
    let undated = matches.iter().filter(|m| m.time().is_none()).count();
    if !dated && undated < matches.len() {
        // A history may begin without times; the smoother then steps by match.
        eprintln!(
            "note: {undated} of the {} {} no time, so the history is smoothed by match number (times are used only when every match has one)",
            count(matches.len() as u64, "match"),
            if undated == 1 { "has" } else { "have" }
        );
    }
    let start = Instant::now();
    let (mut h, ids) = History::from_matches(&matches, &config)?;
    let (step, passes) = h.converge()?;
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "smoothed {} of {} in {} ({seconds:.2} s, last step {:.1e} in mean, {:.1e} in σ)",
        count(matches.len() as u64, "match"),
        count(ids.len() as u64, "player"),
        count(passes as u64, "pass"),
        step.0,
        step.1
    );
    let curves = h.curves();
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let chosen: Vec<usize> = match &wanted {
        Some(list) => {
            list.iter()
                .map(|name| {
                    index.get(name).copied().with_context(|| {
                        format!("--players: {name:?} plays no match of the history")
                    })
                })
                .collect::<anyhow::Result<_>>()?
        }
        None => (0..ids.len()).collect(),
    };
    // The curves drawn, chosen before anything is printed.
    let shown: Vec<usize> = match &wanted {
        Some(_) => chosen.clone(),
        None => {
            let counts: Vec<usize> = ids.iter().map(|id| played[id.as_str()]).collect();
            top(&curves, &counts, args.top)
        }
    };
    // -0 is written 0.
    let z = |x: f64| x + 0.0;
    let mut out = io::stdout().lock();
    match args.format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record(["player", "time", "mean", "sigma"])?;
            for &p in &chosen {
                for &(t, mu, sigma) in &curves[p] {
                    w.write_record([
                        ids[p].clone(),
                        when(t, dated),
                        z(mu).to_string(),
                        z(sigma).to_string(),
                    ])?;
                }
            }
            w.flush()?;
        }
        Format::Json => {
            let rows: Vec<serde_json::Value> = chosen
                .iter()
                .map(|&p| {
                    serde_json::json!({
                        "player": ids[p],
                        "curve": curves[p].iter().map(|&(t, mu, sigma)| serde_json::json!({"time": when(t, dated), "mean": z(mu), "sigma": z(sigma)})).collect::<Vec<_>>(),
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        }
        Format::Table => {
            let mut t = Table::new();
            t.load_preset(UTF8_BORDERS_ONLY);
            t.set_header(["player", "time", "mean", "σ"]);
            for &p in &chosen {
                for &(time, mu, sigma) in &curves[p] {
                    t.add_row([ids[p].clone(), when(time, dated), fixed(mu), fixed(sigma)]);
                }
            }
            // Numbers right-aligned, so that signs and decimal points line up.
            for i in 1..t.column_count() {
                if let Some(c) = t.column_mut(i) {
                    c.set_cell_alignment(CellAlignment::Right);
                }
            }
            writeln!(out, "{t}")?;
        }
    }
    out.flush()?;
    if let Some(path) = &args.plot {
        let series: Vec<Curve> = shown
            .iter()
            .map(|&p| (ids[p].clone(), curves[p].clone()))
            .collect();
        let inputs: Vec<&str> = args.input.files.iter().map(String::as_str).collect();
        draw(path, &inputs, &series, dated)?;
    }
    Ok(())
}

/// The `n` players with the highest peak of mean − σ, of those with
/// [`TOP_MATCHES`] matches or more (`counts`, by player).
fn top(curves: &[Vec<(f64, f64, f64)>], counts: &[usize], n: usize) -> Vec<usize> {
    let mut peaks: Vec<(usize, f64)> = curves
        .iter()
        .enumerate()
        .filter(|&(p, _)| counts[p] >= TOP_MATCHES)
        .map(|(p, c)| {
            (
                p,
                c.iter().map(|&(_, mu, s)| mu - s).fold(f64::MIN, f64::max),
            )
        })
        .collect();
    peaks.sort_by(|a, b| b.1.total_cmp(&a.1));
    peaks.into_iter().take(n).map(|(p, _)| p).collect()
}

/// The radius in pixels of a one-point curve's marker, and half the width of its bar's
/// caps.
const ONE_POINT_MARKER: i32 = 5;

/// The horizontal offset in pixels of each curve's marker: curves of one point at the
/// same time are set side by side, 3 marker radii apart and centred on their time; other
/// curves are not moved (0).
fn dodge(series: &[Curve]) -> Vec<i32> {
    let alone = |c: &Curve| match c.1[..] {
        [(t, _, _)] => Some(t),
        _ => None,
    };
    series
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let Some(t) = alone(c) else { return 0 };
            let same = |d: &Curve| alone(d) == Some(t);
            let before = series[..i].iter().filter(|d| same(d)).count() as i32;
            let all = series.iter().filter(|d| same(d)).count() as i32;
            (2 * before - (all - 1)) * 3 * ONE_POINT_MARKER / 2
        })
        .collect()
}

/// A player's name and smoothed curve: `(time, mean, σ)` per match day.
type Curve = (String, Vec<(f64, f64, f64)>);

/// Draws the curves into `path` (SVG), replacing it only once the chart is complete.
/// Time is in days since the epoch when `dated`, match numbers otherwise.
fn draw(
    path: &std::path::Path,
    inputs: &[&str],
    series: &[Curve],
    dated: bool,
) -> anyhow::Result<()> {
    let pts = || series.iter().flat_map(|s| s.1.iter());
    let (x_lo, x_hi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
        (a.min(p.0), b.max(p.0))
    });
    let (y_lo, y_hi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
        (a.min(p.1 - p.2), b.max(p.1 + p.2))
    });
    if !(x_lo <= x_hi && y_lo <= y_hi) {
        bail!("--plot {}: no curve to draw", path.display());
    }
    // All on one day (or match): that day in the middle of an axis one day wide.
    let (x_lo, x_hi) = if x_hi > x_lo {
        (x_lo, x_hi)
    } else {
        (x_lo - 0.5, x_hi + 0.5)
    };
    let y_hi = if y_hi > y_lo { y_hi } else { y_lo + 1.0 };
    let x_ticks = if dated {
        crate::plot::time_ticks(x_lo, x_hi)
    } else {
        crate::plot::number_ticks(x_lo, x_hi, true)
    };
    let y_ticks = crate::plot::number_ticks(y_lo, y_hi, false);
    crate::plot::register_font();
    let out = podium_io::output::OutputPath::create(&path.display().to_string(), inputs)?;
    let root = SVGBackend::new(out.path(), (1200, 700)).into_drawing_area();
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let root = root.titled(
            "Skill curves, TrueSkill Through Time (mean ± σ)",
            ("sans-serif", 22),
        )?;
        // The legend beside the chart, not over the curves.
        let (width, _) = root.dim_in_pixel();
        let (plot_area, legend_area) =
            root.split_horizontally(width.saturating_sub(crate::plot::LEGEND));
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(
                TickedAxis::new(x_lo, x_hi, x_ticks),
                TickedAxis::new(y_lo, y_hi, y_ticks),
            )?;
        chart
            .configure_mesh()
            .x_desc(if dated { "date" } else { "match" })
            .y_desc("skill (performance noise β = 1)")
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .bold_line_style(BLACK.mix(0.1))
            .draw()?;
        let dodge = dodge(series);
        let colours = &crate::plot::COLOURS;
        for (i, (name, c)) in series.iter().enumerate() {
            let (r, g, b) = colours[i % colours.len()];
            let color = RGBColor(r, g, b);
            let band: Vec<(f64, f64)> = c
                .iter()
                .map(|p| (p.0, p.1 + p.2))
                .chain(c.iter().rev().map(|p| (p.0, p.1 - p.2)))
                .collect();
            if let [(t, mu, sigma)] = c[..] {
                // A curve of one point has no band or line to draw: a marker at the mean
                // with a bar over the band's height, mean ± σ; markers of one time stand
                // side by side.
                let y = chart.backend_coord(&(t, mu)).1;
                let up = chart.backend_coord(&(t, mu + sigma)).1 - y;
                let down = chart.backend_coord(&(t, mu - sigma)).1 - y;
                let dx = dodge[i];
                let style = color.stroke_width(2);
                let cap = ONE_POINT_MARKER;
                let marker = EmptyElement::at((t, mu))
                    + PathElement::new(vec![(dx, up), (dx, down)], style)
                    + PathElement::new(vec![(dx - cap, up), (dx + cap, up)], style)
                    + PathElement::new(vec![(dx - cap, down), (dx + cap, down)], style)
                    + Circle::new((dx, 0), ONE_POINT_MARKER, color.filled());
                chart.draw_series(std::iter::once(marker))?;
            } else {
                chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.15))))?;
                chart.draw_series(LineSeries::new(
                    c.iter().map(|p| (p.0, p.1)),
                    color.stroke_width(2),
                ))?;
            }
            let y = 24 + 22 * i as i32;
            legend_area.draw(&PathElement::new(
                vec![(8, y), (38, y)],
                color.stroke_width(3),
            ))?;
            legend_area.draw(&Text::new(
                name.clone(),
                (46, y - 8),
                ("sans-serif", 14).into_font().color(&BLACK),
            ))?;
        }
        root.present()?;
        Ok(())
    })();
    result.map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
    drop(root);
    out.commit()?;
    Ok(())
}
