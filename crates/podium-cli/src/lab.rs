//! Shared front half of the evaluation commands (`simulate`, `backtest`, `tune`): which
//! systems with which settings, and the whole history read into memory.

use std::fs::File;
use std::io;

use anyhow::{bail, Context};
use podium::{Match, RatingSystem};
use podium_io::{InputFormat, ReadError};

use crate::ingest::{InputArgs, InputFormatArg, Skipped};

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

/// Reads every match of the inputs into memory, in rating order: file order, or time
/// order (stable) when the matches have times. Bad matches fail the whole read unless
/// `--skip-bad` is given, in which case they are returned to be reported.
///
/// # Errors
/// A file that cannot be read, or (without `--skip-bad`) the bad matches found.
pub fn load_matches(input: &InputArgs) -> anyhow::Result<(Vec<Match>, Vec<Skipped>)> {
    let mut all = Vec::new();
    let mut bad = Vec::new();
    for path in &input.files {
        let format = input
            .input_format
            .map(|f| match f {
                InputFormatArg::Csv => InputFormat::Csv,
                InputFormatArg::Jsonl => InputFormat::Jsonl,
            })
            .unwrap_or_else(|| InputFormat::from_path(path));
        let (name, reader): (String, Box<dyn io::Read + Send>) = if path == "-" {
            ("<stdin>".into(), Box::new(io::stdin()))
        } else {
            let f = File::open(path).with_context(|| format!("cannot open {path}"))?;
            (path.clone(), Box::new(f))
        };
        for item in podium_io::from_reader(name, reader, format) {
            match item {
                Ok(m) => all.push(m),
                Err(e) if e.is_recoverable() => bad.push(Skipped {
                    reason: e.to_string(),
                }),
                Err(e @ ReadError::Io { .. }) => return Err(e.into()),
                Err(e) => bail!(e),
            }
        }
    }
    if !bad.is_empty() && !input.skip_bad {
        let mut msg = format!(
            "{} bad match{} found, nothing evaluated (use --skip-bad to evaluate the rest):",
            bad.len(),
            if bad.len() == 1 { "" } else { "es" }
        );
        for b in bad.iter().take(20) {
            msg.push_str("\n  ");
            msg.push_str(&b.reason);
        }
        if bad.len() > 20 {
            msg.push_str(&format!("\n  … and {} more", bad.len() - 20));
        }
        bail!(msg);
    }
    if all.iter().any(|m| m.time().is_some()) {
        all.sort_by_key(Match::time);
    }
    Ok((all, bad))
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

/// Formats a fraction as a percentage with one decimal.
pub fn pct(v: f64) -> String {
    format!("{:.1}", 100.0 * v)
}
