//! `podium systems`: every registered system with its parameters, defaults and meaning.

use std::io::Write;

use crate::output::Format;

/// Arguments of `podium systems`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Whether the system of this name, at its defaults, rates factors (`--factor`).
fn rates_factors(name: &str) -> bool {
    podium::system(name, &podium::Settings::new()).is_ok_and(|s| s.rates_factors())
}

/// Prints the registry.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            let list: Vec<_> = podium::systems()
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "name": s.name,
                        "summary": s.summary,
                        "source": s.source,
                        "factors": rates_factors(s.name),
                        "params": (s.defaults)().iter().map(|p| serde_json::json!({
                            "name": p.name, "default": p.value.to_string(), "doc": p.doc,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record(["system", "param", "default", "doc"])?;
            for s in podium::systems() {
                for p in (s.defaults)() {
                    w.write_record([s.name, p.name, &p.value.to_string(), p.doc])?;
                }
            }
            w.flush()?;
        }
        Format::Table => {
            for s in podium::systems() {
                writeln!(out, "{}  {}", s.name, s.summary)?;
                writeln!(out, "    source: {}", s.source)?;
                let factors = if rates_factors(s.name) {
                    "rated beside the players (--factor)"
                } else {
                    "not rated: refuses --factor"
                };
                writeln!(out, "    factors (car, seat, faction): {factors}")?;
                for p in (s.defaults)() {
                    writeln!(
                        out,
                        "    --set {}={:<8} {}",
                        p.name,
                        p.value.to_string(),
                        p.doc
                    )?;
                }
                writeln!(out)?;
            }
        }
    }
    Ok(())
}
