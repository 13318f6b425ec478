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

const WIDTH: u32 = 960;
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

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    series: &[Series],
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let y_lo = ys.fold(0.5f64, f64::min);
    let y_lo = ((y_lo * 20.0).floor() / 20.0).max(0.0);
    let y_range = y_lo..1.0;
    // Rounds spanning orders of magnitude read best on a log axis (needs round ≥ 1).
    let log = x_lo >= 1.0 && x_hi / x_lo >= 20.0;
    let x_hi = if x_hi > x_lo { x_hi } else { x_lo + 1.0 };
    macro_rules! chart {
        ($x:expr) => {{
            let mut chart = ChartBuilder::on(root)
                .caption(title, ("sans-serif", 22))
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
                .draw()?;
            let mut solid = 0usize;
            for s in series {
                let color = if s.dashed {
                    BLACK.mix(if s.name == podium_eval::simulate::IDEAL {
                        0.9
                    } else {
                        0.55
                    })
                } else {
                    let c = Palette99::pick(solid).to_rgba();
                    solid += 1;
                    c
                };
                let style = color.stroke_width(2);
                let pts = s.points.clone();
                if s.dashed {
                    chart
                        .draw_series(DashedLineSeries::new(pts, 8, 6, style))?
                        .label(s.name.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], style));
                } else {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), style))?
                        .label(s.name.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                    chart
                        .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
                }
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font(("sans-serif", 14))
                .draw()?;
        }};
    }
    if log {
        chart!((x_lo..x_hi).log_scale());
    } else {
        chart!(x_lo..x_hi);
    }
    Ok(())
}
