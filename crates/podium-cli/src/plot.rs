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
/// ending in `.svg` or `.png`, and a file that may be written (see
/// [`podium_io::output`]). Returns the extension.
///
/// # Errors
/// Another extension, or a path that is not a file that may be written.
pub fn check(path: &Path) -> anyhow::Result<String> {
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
    podium_io::output::check(path, &[])?;
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
    let ext = check(path)?;
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

/// The y range shown: the data's, widened to whole 5 % steps, with no more than 100 %.
fn y_range(series: &[Series]) -> std::ops::Range<f64> {
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    let lo = ((lo * 20.0).floor() / 20.0).clamp(0.0, 0.95);
    let hi = ((hi * 20.0).ceil() / 20.0).clamp(lo + 0.05, 1.0);
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
    // Rounds spanning orders of magnitude read best on a log axis (needs round ≥ 1).
    let log = x_lo >= 1.0 && x_hi / x_lo >= 20.0;
    let x_hi = if x_hi > x_lo { x_hi } else { x_lo + 1.0 };
    // The default is drawn last, over the others.
    let mut order: Vec<usize> = (0..series.len()).collect();
    order.sort_by_key(|&i| series[i].name == podium::DEFAULT_SYSTEM);
    macro_rules! chart {
        ($x:expr) => {{
            let mut chart = ChartBuilder::on(&plot_area)
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d($x, y_range.clone())?;
            chart
                .configure_mesh()
                .x_desc(if log {
                    "rounds played (log scale)"
                } else {
                    "rounds played"
                })
                .y_desc("predictive ability (%)")
                .y_label_formatter(&|v| format!("{:.0}", v * 100.0))
                .x_label_formatter(&|v| format!("{v}"))
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 16))
                .light_line_style(BLACK.mix(0.05))
                .draw()?;
            for &i in &order {
                let (s, style) = (&series[i], styles[i]);
                let pts = s.points.clone();
                if s.dashed {
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
        }};
    }
    if log {
        chart!((x_lo..x_hi).log_scale());
    } else {
        chart!(x_lo..x_hi);
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

    #[test]
    fn the_y_axis_fits_the_data_in_five_percent_steps() {
        let r = y_range(&[series("a", &[0.607, 0.79]), series("b", &[0.846])]);
        assert!(
            (r.start - 0.60).abs() < 1e-12 && (r.end - 0.85).abs() < 1e-12,
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
