//! What the evaluation commands (`simulate`, `backtest`, `tune`) share: which systems
//! with which settings, match bounds, percentages. They read their history with
//! [`crate::ingest::load`].

use anyhow::bail;
use podium::{ConfigError, RatingSystem};

/// The systems named by `--systems` (`all` or a comma-separated list), each with the
/// settings of `--set`: `system.key=value` for one system, `key=value` for every system
/// selected (an error for a system without that parameter).
///
/// # Errors
/// An unknown system, a malformed setting, or a setting a system does not accept.
pub fn select_systems(
    systems: &str,
    settings: &[String],
) -> anyhow::Result<Vec<Box<dyn RatingSystem>>> {
    let names: Vec<String> = if systems.trim().eq_ignore_ascii_case("all") {
        podium::systems()
            .iter()
            .map(|s| s.name.to_string())
            .collect()
    } else {
        let mut v: Vec<String> = Vec::new();
        for name in systems.split(',').map(|s| s.trim().to_ascii_lowercase()) {
            if name.is_empty() {
                continue;
            }
            if !v.contains(&name) {
                v.push(name);
            }
        }
        v
    };
    if names.is_empty() {
        bail!("--systems names no system (give `all` or a list such as `sme,pairwise`)");
    }
    let parsed = podium::Settings::parse(settings)?;
    for (sys, key) in parsed.prefixes() {
        let sys = sys.to_ascii_lowercase();
        if !names.contains(&sys) {
            bail!(
                "--set {key}: system {sys:?} is not among the selected systems ({})",
                names.join(", ")
            );
        }
    }
    names
        .iter()
        .map(|name| {
            podium::system(name, &parsed.for_system(name)).map_err(|e| match e {
                // These name the system already.
                ConfigError::UnknownSystem { .. }
                | ConfigError::UnknownParam { .. }
                | ConfigError::Inconsistent { .. } => anyhow::Error::from(e),
                e => anyhow::Error::from(e).context(format!("system {name}")),
            })
        })
        .collect()
}

/// Parses `--from`/`--until` (`flag`, which the errors name): a match number (1-based,
/// in rating order) or a date/time.
///
/// # Errors
/// Text that is neither, or match number 0.
pub fn parse_bound(flag: &str, text: &str) -> anyhow::Result<podium_eval::Bound> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        if n == 0 {
            bail!("{flag} 0: match numbers start at 1 (the first match rated)");
        }
        return Ok(podium_eval::Bound::Match(n));
    }
    podium_io::parse_time(t)
        .map(podium_eval::Bound::Time)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{flag} {t:?}: neither a match number (1 = the first match rated) nor a date (YYYY-MM-DD or RFC 3339)"
            )
        })
}

pub use podium_eval::worker_threads;

/// Formats a fraction as a percentage with one decimal.
pub fn pct(v: f64) -> String {
    format!("{:.1}", 100.0 * v)
}

/// Shows that long work runs: on standard error, only when it is a terminal (a pipe or
/// a file gets nothing). With `len`, a bar of that many steps; without, a spinner with
/// the time elapsed. Finish it with `finish_and_clear` before printing results.
pub fn progress(what: &str, len: Option<u64>) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match len {
        Some(n) => (
            ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            "{spinner} {msg} {pos}/{len} {wide_bar} {elapsed}",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "{spinner} {msg} {elapsed}",
        ),
    };
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar.set_message(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(150));
    bar
}
