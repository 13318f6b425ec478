//! `podium systems`: the registered systems, one line each, the default first; with a
//! name, that system's parameters, defaults and meaning.

use std::io::Write;

use podium::{SystemSpec, DEFAULT_SYSTEM};

use crate::output::Format;

/// Arguments of `podium systems`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show this system's parameters, with their defaults and meaning (any case).
    /// Without it, one line per system, the default first.
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// Output format. CSV gives one row per parameter; JSON one object per system with
    /// its parameters (the object alone when NAME is given). Both list the systems in
    /// the registry's order.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Whether the system of this name, at its defaults, rates factors (`--factor`).
fn rates_factors(name: &str) -> bool {
    podium::system(name, &podium::Settings::new()).is_ok_and(|s| s.capabilities().rates_factors)
}

/// The system's name as the table shows it: the default marked.
fn shown_name(s: &SystemSpec) -> String {
    if s.name == DEFAULT_SYSTEM {
        format!("{} (default)", s.name)
    } else {
        s.name.to_string()
    }
}

/// A system as JSON: what it is, whether it rates factors, and its parameters.
fn json(s: &SystemSpec) -> serde_json::Value {
    serde_json::json!({
        "name": s.name,
        "default": s.name == DEFAULT_SYSTEM,
        "summary": s.summary,
        "source": s.source,
        "factors": rates_factors(s.name),
        "params": (s.defaults)().iter().map(|p| serde_json::json!({
            "name": p.name, "default": p.value.to_string(), "doc": p.doc,
        })).collect::<Vec<_>>(),
    })
}

/// Prints the systems, or the one named.
pub fn run(args: Args) -> anyhow::Result<()> {
    let chosen: Vec<&SystemSpec> = match &args.name {
        Some(name) => match podium::systems()
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
        {
            Some(s) => vec![s],
            // The error every command gives for a name it does not know.
            None => {
                return Err(podium::system(name, &podium::Settings::new())
                    .err()
                    .map_or_else(
                        || anyhow::anyhow!("unknown system {name:?}"),
                        anyhow::Error::from,
                    ))
            }
        },
        None => podium::systems().iter().collect(),
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            let text = match (&args.name, chosen.as_slice()) {
                (Some(_), [one]) => serde_json::to_string_pretty(&json(one))?,
                _ => serde_json::to_string_pretty(
                    &chosen.iter().map(|s| json(s)).collect::<Vec<_>>(),
                )?,
            };
            writeln!(out, "{text}")?;
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record(["system", "param", "default", "doc"])?;
            for s in chosen {
                for p in (s.defaults)() {
                    w.write_record([s.name, p.name, &p.value.to_string(), p.doc])?;
                }
            }
            w.flush()?;
        }
        Format::Table => match args.name {
            Some(_) => write_system(&mut out, chosen[0])?,
            None => write_list(&mut out)?,
        },
    }
    out.flush()?;
    Ok(())
}

/// One line per system, the default first: name, what it does, where it comes from, in
/// aligned columns.
fn write_list(out: &mut dyn Write) -> anyhow::Result<()> {
    let mut list: Vec<&SystemSpec> = podium::systems().iter().collect();
    // A stable sort: the others keep the registry's order.
    list.sort_by_key(|s| s.name != DEFAULT_SYSTEM);
    let names: Vec<String> = list.iter().map(|s| shown_name(s)).collect();
    let width =
        |texts: &mut dyn Iterator<Item = &str>| texts.map(|t| t.chars().count()).max().unwrap_or(0);
    let name_width = width(&mut names.iter().map(String::as_str).chain(["system"]));
    let summary_width = width(&mut list.iter().map(|s| s.summary).chain(["description"]));
    let line = |out: &mut dyn Write, name: &str, summary: &str, source: &str| {
        writeln!(
            out,
            "{name}{}  {summary}{}  {source}",
            " ".repeat(name_width - name.chars().count()),
            " ".repeat(summary_width - summary.chars().count()),
        )
    };
    line(out, "system", "description", "source")?;
    for (s, name) in list.iter().zip(&names) {
        line(out, name, s.summary, s.source)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "`podium systems NAME` shows a system's parameters, their defaults and meaning; `--system NAME` rates with it."
    )?;
    Ok(())
}

/// One system: what it does, its source, whether it rates factors, and each parameter
/// with its default and meaning, aligned.
fn write_system(out: &mut dyn Write, s: &SystemSpec) -> anyhow::Result<()> {
    writeln!(out, "{}  {}", shown_name(s), s.summary)?;
    writeln!(out, "    source: {}", s.source)?;
    let factors = if rates_factors(s.name) {
        "rated beside the players (--factor)"
    } else {
        "not rated: refuses --factor"
    };
    writeln!(out, "    factors (car, seat, faction): {factors}")?;
    let params = (s.defaults)();
    if params.is_empty() {
        writeln!(out, "    no parameters")?;
        return Ok(());
    }
    writeln!(
        out,
        "    parameters, set with --set NAME=VALUE (default shown):"
    )?;
    let settings: Vec<String> = params
        .iter()
        .map(|p| format!("{}={}", p.name, p.value))
        .collect();
    let width = settings
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0);
    for (p, setting) in params.iter().zip(&settings) {
        writeln!(
            out,
            "    --set {setting}{}  {}",
            " ".repeat(width - setting.chars().count()),
            p.doc
        )?;
    }
    Ok(())
}
