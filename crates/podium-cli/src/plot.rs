//! Line charts of predictive ability against rounds (`podium simulate --plot`), as SVG or
//! PNG, with plotters.
//!
//! Text is laid out with DejaVu Sans, which is compiled into the binary (the `dejavu`
//! crate) and registered with plotters' `ab_glyph` backend, so PNG charts render the same
//! on a machine without any system fonts. SVG charts write their text as `<text>`
//! elements in the `sans-serif` family.

use std::path::Path;
use std::sync::Once;

use anyhow::{anyhow, bail, Context};
use jiff::civil::Date;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use podium_io::output::OutputPath;

/// One curve.
#[derive(Debug, Clone)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// `(round, predictive ability as a fraction)`, rounds ascending.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (the references).
    pub dashed: bool,
}

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 600;

/// Registers the bundled font as `sans-serif` (once), for every chart podium draws.
pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            // The bytes are a valid TrueType font; a failure leaves text undrawn, not a crash.
            let _ = plotters::style::register_font("sans-serif", style, dejavu::sans::regular());
        }
    });
}

/// Checks that a chart can be drawn into `path` (before the work to draw it): a name
/// ending in `.svg` or `.png`, and a file that may be written, none of the command's
/// `inputs` (see [`podium_io::output`]). Returns the extension.
///
/// # Errors
/// Another extension, or a path that is not a file that may be written.
pub fn check(path: &Path, inputs: &[&str]) -> anyhow::Result<String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .filter(|e| e == "svg" || e == "png");
    let Some(ext) = ext else {
        bail!(
            "--plot {}: the file name must end in .svg or .png",
            path.display()
        );
    };
    podium_io::output::check(path, inputs)?;
    // A new file must be possible beside it (the directory exists and may be written):
    // found out now, not after the work whose curves are drawn.
    drop(
        OutputPath::create(&path.display().to_string(), &[])
            .with_context(|| format!("--plot {}", path.display()))?,
    );
    Ok(ext)
}

/// Draws `series` into `path` (`.svg` or `.png`).
///
/// # Errors
/// Another extension, nothing to draw, or a file that cannot be written.
pub fn plot(path: &Path, title: &str, series: &[Series]) -> anyhow::Result<()> {
    register_font();
    if series.iter().all(|s| s.points.is_empty()) {
        bail!("nothing to plot");
    }
    let ext = check(path, &[])?;
    // The chart is drawn into a new file beside the one named, which replaces it only
    // once complete; the command reads no file that it could be.
    let out = OutputPath::create(&path.display().to_string(), &[])?;
    let file = out.path();
    if ext == "svg" {
        let root = SVGBackend::new(file, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, title, series).map_err(|e| anyhow!("drawing the chart: {e}"))?;
        root.present()
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    } else {
        let root = BitMapBackend::new(file, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, title, series).map_err(|e| anyhow!("drawing the chart: {e}"))?;
        root.present()
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    out.commit()?;
    Ok(())
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Width of the legend beside the chart, in pixels.
pub(crate) const LEGEND: u32 = 250;

/// Colours told apart at a glance, the first ten those of Tableau 10, then darker and
/// lighter shades; a chart with more curves than colours repeats them. Black is the
/// default system's.
pub(crate) const COLOURS: [(u8, u8, u8); 20] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (0, 0, 128),
    (128, 64, 0),
    (0, 100, 0),
    (128, 0, 0),
    (75, 0, 130),
    (255, 187, 120),
    (152, 223, 138),
    (255, 152, 150),
    (197, 176, 213),
    (158, 218, 229),
];

/// The y range shown: the data's, widened to whole 5 % steps (a step further where a
/// value lies on one, so that no curve runs along an axis), within 0 to 100 %.
fn y_range(series: &[Series]) -> std::ops::Range<f64> {
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    let lo = ((lo * 20.0 - 1e-9).floor() / 20.0).clamp(0.0, 0.95);
    let hi = ((hi * 20.0 + 1e-9).ceil() / 20.0).clamp(lo + 0.05, 1.0);
    lo..hi
}

/// How each curve is drawn: its colour and line width. The default system is solid
/// black and bold, the references dashed grey, the others in the palette's colours.
fn styles(series: &[Series]) -> Vec<ShapeStyle> {
    let mut solid = 0usize;
    series
        .iter()
        .map(|s| {
            if s.dashed {
                let shade = if s.name == podium_eval::simulate::IDEAL {
                    0.6
                } else {
                    0.4
                };
                return BLACK.mix(shade).stroke_width(2);
            }
            if s.name == podium::DEFAULT_SYSTEM {
                return BLACK.stroke_width(5);
            }
            let (r, g, b) = COLOURS[solid % COLOURS.len()];
            solid += 1;
            RGBColor(r, g, b).stroke_width(2)
        })
        .collect()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    series: &[Series],
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (width, _) = root.dim_in_pixel();
    let (plot_area, legend_area) = root.split_horizontally(width.saturating_sub(LEGEND));
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    let y_range = y_range(series);
    let styles = styles(series);
    let rounds = RoundAxis::new(x_lo, x_hi);
    let (axis_lo, axis_hi) = (rounds.lo, rounds.hi);
    // The default is drawn last, over the others.
    let mut order: Vec<usize> = (0..series.len()).collect();
    order.sort_by_key(|&i| series[i].name == podium::DEFAULT_SYSTEM);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(
            TickedAxis::new(rounds.lo, rounds.hi, rounds.ticks.clone()),
            y_range.clone(),
        )?;
    chart
        .configure_mesh()
        .x_desc(if rounds.log {
            "rounds played (log scale of rounds + 1)"
        } else {
            "rounds played"
        })
        .y_desc("predictive ability (%)")
        .y_label_formatter(&|v| format!("{:.0}", v * 100.0))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.1))
        .draw()?;
    for &i in &order {
        let (s, style) = (&series[i], styles[i]);
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (rounds.at(x), y)).collect();
        if s.dashed {
            // A reference known at one round only is a level across the axis.
            let pts = match pts[..] {
                [(_, y)] => vec![(axis_lo, y), (axis_hi, y)],
                _ => pts,
            };
            chart.draw_series(DashedLineSeries::new(pts, 8, 6, style))?;
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), style))?;
            let dot = style.stroke_width.max(2) + 1;
            chart.draw_series(
                pts.into_iter()
                    .map(|p| Circle::new(p, dot, style.color.filled())),
            )?;
        }
    }
    // The legend, outside the data: one row per curve in the order given.
    let row = 22i32;
    let top = 24i32;
    for (i, (s, style)) in series.iter().zip(&styles).enumerate() {
        let y = top + row * i as i32;
        let line = if s.dashed {
            vec![(8, y), (20, y), (26, y), (38, y)]
        } else {
            vec![(8, y), (38, y)]
        };
        if s.dashed {
            legend_area.draw(&PathElement::new(vec![line[0], line[1]], *style))?;
            legend_area.draw(&PathElement::new(vec![line[2], line[3]], *style))?;
        } else {
            legend_area.draw(&PathElement::new(line, *style))?;
        }
        let bold = s.name == podium::DEFAULT_SYSTEM;
        let name = if bold {
            format!("{} (default)", s.name)
        } else {
            s.name.clone()
        };
        let font = ("sans-serif", 14).into_font();
        let font = if bold {
            font.style(FontStyle::Bold)
        } else {
            font
        };
        legend_area.draw(&Text::new(name, (46, y - 8), font.color(&BLACK)))?;
    }
    Ok(())
}

/// The ticks of an axis: where each is and its label, ascending, no two labels alike.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ticks {
    /// The positions, in the axis's unit.
    pub at: Vec<f64>,
    /// The label of each position.
    pub labels: Vec<String>,
}

impl Ticks {
    /// The label of the tick at `v` (the nearest one; plotters hands the positions back).
    pub fn label(&self, v: f64) -> String {
        self.at
            .iter()
            .zip(&self.labels)
            .min_by(|a, b| (a.0 - v).abs().total_cmp(&(b.0 - v).abs()))
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }
}

/// A linear axis from `lo` to `hi` whose ticks and labels are [`Ticks`] (plotters would
/// pick its own positions and print `-0.0`), with no light mesh lines.
pub(crate) struct TickedAxis {
    range: RangedCoordf64,
    ticks: Ticks,
}

impl TickedAxis {
    /// The axis from `lo` to `hi` ticked at `ticks`.
    pub fn new(lo: f64, hi: f64, ticks: Ticks) -> Self {
        TickedAxis {
            range: (lo..hi).into(),
            ticks,
        }
    }
}

impl Ranged for TickedAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.range.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.at.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.range()
    }
}

impl ValueFormatter<f64> for TickedAxis {
    fn format_ext(&self, value: &f64) -> String {
        self.ticks.label(*value)
    }
}

/// The rounds axis of `podium simulate --plot`: linear, or, when the rounds span more
/// than an order of magnitude, a log scale of round + 1 (so that round 0, before any
/// game, has its place at the left); ticked at whole rounds and labelled by round.
#[derive(Debug, Clone, PartialEq)]
struct RoundAxis {
    /// A log scale of round + 1.
    log: bool,
    /// The axis's ends, in its unit (`log10(round + 1)` on a log scale).
    lo: f64,
    hi: f64,
    /// The ticks, in the axis's unit, labelled by round.
    ticks: Ticks,
}

impl RoundAxis {
    /// The axis of rounds `lo` to `hi` (≥ 0): log-scaled when `hi` is 20 times `lo` or
    /// more (1 standing for 0), one round wide around a single round.
    fn new(lo: f64, hi: f64) -> Self {
        let log = hi / lo.max(1.0) >= 20.0;
        if !log {
            let (lo, hi) = if hi > lo {
                (lo, hi)
            } else {
                (lo - 0.5, hi + 0.5)
            };
            return RoundAxis {
                log,
                lo,
                hi,
                ticks: number_ticks(lo, hi, true),
            };
        }
        // 0, then 1, 2, 5, 10, 20, … or, when those are too many, the powers of ten (or
        // of a hundred, …) between the ends.
        let steps: Vec<u32> = (0..=9).map(|k| 10u32.pow(k)).collect();
        let nice: Vec<f64> = steps
            .iter()
            .flat_map(|&p| [1, 2, 5].map(|m| f64::from(p) * f64::from(m)))
            .collect();
        let within = |v: &f64| (lo..=hi).contains(v);
        let zero = if lo == 0.0 { vec![0.0] } else { Vec::new() };
        let mut at: Vec<f64> = zero
            .iter()
            .copied()
            .chain(nice.into_iter().filter(within))
            .collect();
        let mut every = 1;
        while at.len() > MAX_TICKS {
            at = zero
                .iter()
                .copied()
                .chain(
                    steps
                        .iter()
                        .step_by(every)
                        .map(|&p| f64::from(p))
                        .filter(within),
                )
                .collect();
            every += 1;
        }
        let ticks = Ticks {
            at: at.iter().map(|&r| (r + 1.0).log10()).collect(),
            labels: at.iter().map(|r| format!("{r:.0}")).collect(),
        };
        RoundAxis {
            log,
            lo: (lo + 1.0).log10(),
            hi: (hi + 1.0).log10(),
            ticks,
        }
    }

    /// Where round `r` is, in the axis's unit.
    fn at(&self, r: f64) -> f64 {
        if self.log {
            (r + 1.0).log10()
        } else {
            r
        }
    }
}

/// The most ticks an axis is given.
const MAX_TICKS: usize = 10;

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The day the time axis counts from.
const EPOCH: Date = jiff::civil::date(1970, 1, 1);

/// The civil date (year, month 1–12, day 1–31) of a day counted from 1970-01-01; days
/// beyond jiff's calendar (years −9999 to 9999) are its first or last day.
fn civil(days: i64) -> (i64, i64, i64) {
    let d = jiff::Span::new()
        .try_days(days)
        .ok()
        .and_then(|span| EPOCH.checked_add(span).ok())
        .unwrap_or(if days < 0 { Date::MIN } else { Date::MAX });
    (d.year().into(), d.month().into(), d.day().into())
}

/// The day, counted from 1970-01-01, of a civil date (month 1–12); a date beyond jiff's
/// calendar counts as its first or last day.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let date = match (i16::try_from(y), i8::try_from(m), i8::try_from(d)) {
        (Ok(y), Ok(m), Ok(d)) => Date::new(y, m, d).ok(),
        _ => None,
    }
    .unwrap_or(if y < 1970 { Date::MIN } else { Date::MAX });
    (date - EPOCH).get_days().into()
}

/// Ticks of a time axis in days since 1970-01-01 (UTC), labelled by what the span
/// needs: years (`2024`) over four years or more, months (`Sep 2024`) over two months or
/// more, days (`2024-09-03`) below; at most ten, each on the first day of its year or
/// month, or at the start of its day.
pub(crate) fn time_ticks(lo: f64, hi: f64) -> Ticks {
    let (first, last) = (lo.ceil() as i64, hi.floor() as i64);
    let span = hi - lo;
    let mut ticks: Vec<(i64, String)> = Vec::new();
    if span >= 4.0 * 365.2425 {
        let (y0, y1) = (civil(first).0, civil(last).0);
        let years: Vec<i64> = (y0..=y1 + 1)
            .filter(|&y| (first..=last).contains(&days_from_civil(y, 1, 1)))
            .collect();
        let step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000]
            .into_iter()
            .find(|s| years.iter().filter(|&&y| y % s == 0).count() <= MAX_TICKS)
            .unwrap_or(1_000);
        ticks = years
            .into_iter()
            .filter(|y| y % step == 0)
            .map(|y| (days_from_civil(y, 1, 1), y.to_string()))
            .collect();
    } else if span >= 60.0 {
        let index = |d: i64| {
            let (y, m, _) = civil(d);
            y * 12 + m - 1
        };
        let months: Vec<i64> = (index(first)..=index(last) + 1)
            .filter(|&k| {
                (first..=last).contains(&days_from_civil(k.div_euclid(12), k.rem_euclid(12) + 1, 1))
            })
            .collect();
        let step = [1, 2, 3, 6, 12, 24]
            .into_iter()
            .find(|s| months.iter().filter(|&&k| k % s == 0).count() <= MAX_TICKS)
            .unwrap_or(24);
        ticks = months
            .into_iter()
            .filter(|k| k % step == 0)
            .map(|k| {
                let (y, m) = (k.div_euclid(12), k.rem_euclid(12));
                (
                    days_from_civil(y, m + 1, 1),
                    format!("{} {y}", MONTHS[m as usize]),
                )
            })
            .collect();
    } else if first <= last {
        // Weeks start on Mondays (1970-01-05 was one).
        let step = [1, 2, 7, 14, 28]
            .into_iter()
            .find(|&s| ((last - first) / s + 1) as usize <= MAX_TICKS)
            .unwrap_or(28);
        let anchor = if step >= 7 { 4 } else { 0 };
        ticks = (first..=last)
            .filter(|d| (d - anchor).rem_euclid(step) == 0)
            .map(|d| (d, date(d)))
            .collect();
    }
    let mut ticks: Vec<(f64, String)> = ticks.into_iter().map(|(d, l)| (d as f64, l)).collect();
    if ticks.is_empty() {
        // A span within one day: that day, at the start of the axis.
        ticks.push((lo, date(lo.floor() as i64)));
    }
    Ticks {
        at: ticks.iter().map(|t| t.0).collect(),
        labels: ticks.into_iter().map(|t| t.1).collect(),
    }
}

/// A day as `YYYY-MM-DD`.
fn date(days: i64) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Ticks of a numeric axis from `lo` to `hi`: at most ten, at multiples of 1, 2 or 5
/// times a power of ten (whole numbers only when `whole`), each with the decimals its
/// step needs and zero written `0`, never `-0`.
pub(crate) fn number_ticks(lo: f64, hi: f64, whole: bool) -> Ticks {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / MAX_TICKS as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * mag)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    if whole {
        step = step.max(1.0);
    }
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let (k0, k1) = (
        (lo / step - 1e-9).ceil() as i64,
        (hi / step + 1e-9).floor() as i64,
    );
    let at: Vec<f64> = (k0..=k1)
        .map(|k| if k == 0 { 0.0 } else { k as f64 * step })
        .collect();
    let labels = at
        .iter()
        .map(|v| {
            let s = format!("{v:.decimals$}");
            if s.trim_start_matches('-')
                .chars()
                .all(|c| c == '0' || c == '.')
            {
                s.trim_start_matches('-').to_string()
            } else {
                s
            }
        })
        .collect();
    Ticks { at, labels }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(name: &str, ys: &[f64]) -> Series {
        Series {
            name: name.into(),
            points: ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect(),
            dashed: false,
        }
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date.
    fn day(s: &str) -> f64 {
        let p: Vec<i64> = s.split('-').map(|x| x.parse().unwrap()).collect();
        days_from_civil(p[0], p[1], p[2]) as f64
    }

    #[test]
    fn dates_go_to_days_and_back() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil(11_017), (2000, 3, 1));
        assert_eq!(civil(-1), (1969, 12, 31));
        for d in (-800_000..800_000).step_by(997) {
            let (y, m, dd) = civil(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }

    #[test]
    fn spans_under_four_years_are_labelled_by_month() {
        // The F1 example season: 2030-03-03 to 2030-11-24.
        let t = time_ticks(day("2030-03-03"), day("2030-11-24"));
        assert_eq!(
            t.labels,
            [
                "Apr 2030", "May 2030", "Jun 2030", "Jul 2030", "Aug 2030", "Sep 2030", "Oct 2030",
                "Nov 2030"
            ]
        );
        assert_eq!(t.at[0], day("2030-04-01"));
        // Game night: September 2024 to March 2025.
        let t = time_ticks(day("2024-09-06"), day("2025-03-14"));
        assert_eq!(
            t.labels,
            ["Oct 2024", "Nov 2024", "Dec 2024", "Jan 2025", "Feb 2025", "Mar 2025"]
        );
        // Two and a half years: every third month.
        let t = time_ticks(day("2021-02-10"), day("2023-08-01"));
        assert_eq!(t.labels.len(), 10, "{:?}", t.labels);
        assert_eq!(
            (t.labels[0].as_str(), t.labels[9].as_str()),
            ("Apr 2021", "Jul 2023")
        );
    }

    #[test]
    fn long_spans_go_by_years_and_short_ones_by_days() {
        // 1950 to 2024: every tenth year.
        let t = time_ticks(day("1950-05-13"), day("2024-12-08"));
        assert_eq!(
            t.labels,
            ["1960", "1970", "1980", "1990", "2000", "2010", "2020"]
        );
        assert_eq!(t.at[1], 0.0);
        let t = time_ticks(day("2019-06-01"), day("2024-06-01"));
        assert_eq!(t.labels, ["2020", "2021", "2022", "2023", "2024"]);
        // Three weeks: every other day would be 11, so Mondays.
        let t = time_ticks(day("2024-09-01"), day("2024-09-22"));
        assert_eq!(t.labels, ["2024-09-02", "2024-09-09", "2024-09-16"]);
        let t = time_ticks(day("2024-09-01"), day("2024-09-05"));
        assert_eq!(t.labels.len(), 5);
        // Within one day: that day.
        let t = time_ticks(day("2024-09-01") + 0.25, day("2024-09-01") + 0.75);
        assert_eq!(t.labels, ["2024-09-01"]);
        assert_eq!(t.at, [day("2024-09-01") + 0.25]);
    }

    #[test]
    fn numbers_step_by_one_two_or_five_and_zero_has_no_sign() {
        let t = number_ticks(-0.37, 2.6, false);
        assert_eq!(t.labels, ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]);
        let t = number_ticks(-1.2, 0.9, false);
        assert_eq!(t.labels, ["-1.0", "-0.5", "0.0", "0.5"]);
        assert_eq!(t.label(-1e-12), "0.0");
        // Match numbers are whole.
        assert_eq!(number_ticks(1.0, 3.0, true).labels, ["1", "2", "3"]);
        assert_eq!(
            number_ticks(1.0, 45.0, true).labels,
            ["5", "10", "15", "20", "25", "30", "35", "40", "45"]
        );
        assert_eq!(
            number_ticks(-30.0, 0.0, true).labels,
            ["-30", "-25", "-20", "-15", "-10", "-5", "0"]
        );
    }

    #[test]
    fn rounds_are_ticked_whole_and_on_a_log_scale_of_round_plus_one_when_wide() {
        let a = RoundAxis::new(1.0, 2.0);
        assert!(!a.log);
        assert_eq!((a.lo, a.hi), (1.0, 2.0));
        assert_eq!(a.ticks.labels, ["1", "2"]);
        // One round: in the middle of an axis one round wide.
        let a = RoundAxis::new(0.0, 0.0);
        assert_eq!(
            (a.lo, a.hi, a.ticks.labels.clone()),
            (-0.5, 0.5, vec!["0".to_string()])
        );
        let a = RoundAxis::new(0.0, 5.0);
        assert_eq!(a.ticks.labels, ["0", "1", "2", "3", "4", "5"]);
        // Kerrigan's rounds: 1 to 1000, by 1, 2 and 5 times a power of ten.
        let a = RoundAxis::new(1.0, 1000.0);
        assert!(a.log);
        assert_eq!(
            a.ticks.labels,
            ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"]
        );
        assert!((a.lo - 2f64.log10()).abs() < 1e-12 && (a.hi - 1001f64.log10()).abs() < 1e-12);
        assert!((a.at(9.0) - 1.0).abs() < 1e-12);
        // Round 0 at the left end, then the powers of ten once 1, 2, 5 are too many.
        let a = RoundAxis::new(0.0, 1000.0);
        assert_eq!(a.ticks.labels, ["0", "1", "10", "100", "1000"]);
        assert_eq!((a.lo, a.at(0.0), a.ticks.at[0]), (0.0, 0.0, 0.0));
        let a = RoundAxis::new(0.0, 20.0);
        assert!(a.log);
        assert_eq!(a.ticks.labels, ["0", "1", "2", "5", "10", "20"]);
        let a = RoundAxis::new(0.0, 19.0);
        assert!(!a.log);
        // Up to the most rounds there are: at most ten ticks.
        let a = RoundAxis::new(0.0, f64::from(u32::MAX));
        assert_eq!(
            a.ticks.labels,
            ["0", "1", "100", "10000", "1000000", "100000000"]
        );
    }

    #[test]
    fn the_y_axis_fits_the_data_in_five_percent_steps() {
        let r = y_range(&[series("a", &[0.607, 0.79]), series("b", &[0.846])]);
        assert!(
            (r.start - 0.60).abs() < 1e-12 && (r.end - 0.85).abs() < 1e-12,
            "{r:?}"
        );
        // A value on a step gets the step beyond it: 50 % (mean-score before any game)
        // above the axis.
        let r = y_range(&[series("a", &[0.5, 0.8]), series("b", &[0.85])]);
        assert!(
            (r.start - 0.45).abs() < 1e-12 && (r.end - 0.90).abs() < 1e-12,
            "{r:?}"
        );
        // A flat curve still gets a band, and nothing goes past 100 %.
        let r = y_range(&[series("a", &[1.0, 1.0])]);
        assert!(
            (r.start - 0.95).abs() < 1e-12 && (r.end - 1.0).abs() < 1e-12,
            "{r:?}"
        );
    }

    #[test]
    fn the_default_is_black_and_bold_the_others_distinct() {
        let list = [
            series("sme", &[0.5]),
            series(podium::DEFAULT_SYSTEM, &[0.5]),
            series("pairwise", &[0.5]),
        ];
        let s = styles(&list);
        assert_eq!(s[1].stroke_width, 5);
        assert_eq!(s[1].color.rgb(), (0, 0, 0));
        assert_ne!(s[0].color.rgb(), s[2].color.rgb());
        assert_eq!((s[0].stroke_width, s[2].stroke_width), (2, 2));
    }
}
