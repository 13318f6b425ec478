//! What the evaluation commands (`simulate`, `backtest`, `tune`) share: which systems
//! with which settings, match bounds, percentages. They read their history with
//! [`crate::ingest::load`].

use anyhow::{bail, Context};
use podium::RatingSystem;

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
            podium::system(name, &parsed.for_system(name)).with_context(|| format!("system {name}"))
        })
        .collect()
}

/// Parses `--from`/`--until`: a match number (1-based, in rating order) or a date/time.
///
/// # Errors
/// Text that is neither.
pub fn parse_bound(text: &str) -> anyhow::Result<podium_eval::Bound> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        if n == 0 {
            bail!("match numbers start at 1, got 0");
        }
        return Ok(podium_eval::Bound::Match(n));
    }
    podium_io::parse_time(t)
        .map(podium_eval::Bound::Time)
        .ok_or_else(|| {
            anyhow::anyhow!("{t:?} is neither a match number nor a date (YYYY-MM-DD or RFC 3339)")
        })
}

pub use podium_eval::worker_threads;

/// Formats a fraction as a percentage with one decimal.
pub fn pct(v: f64) -> String {
    format!("{:.1}", 100.0 * v)
}
