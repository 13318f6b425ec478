//! Output formats shared by the subcommands: leaderboards as a table, CSV or JSON.

use std::io::Write;

use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use podium::{RatingSystem, Standing};

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for people (numbers rounded).
    Table,
    /// CSV with a header row, numbers at full precision.
    Csv,
    /// JSON, numbers at full precision.
    Json,
}

/// When a player last played: the time of their last match if matches have times, else its id.
pub fn last_played(s: &Standing) -> String {
    match (s.stats.last_time, &s.stats.last_match) {
        (Some(t), _) => podium_io::format_time(t),
        (None, Some(id)) => id.to_string(),
        (None, None) => String::new(),
    }
}

/// How a leaderboard ranks players with an uncertainty σ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Display {
    /// By the rating (μ for Bayesian systems).
    #[default]
    Rating,
    /// By the conservative rating μ − 3σ (shown in its own column); needs a system with σ.
    Conservative,
}

/// The conservative rating μ − 3σ (μ when the rating has no σ).
pub fn conservative(r: &podium::Rating) -> f64 {
    r.value - 3.0 * r.sigma.unwrap_or(0.0)
}

/// Re-ranks a leaderboard by the conservative rating μ − 3σ, best first (ties by name).
pub fn rank_conservative(board: &mut [Standing]) {
    board.sort_by(|a, b| {
        conservative(&b.rating)
            .total_cmp(&conservative(&a.rating))
            .then_with(|| a.player.cmp(&b.player))
    });
    for (i, s) in board.iter_mut().enumerate() {
        s.position = i + 1;
    }
}

/// Prints a leaderboard in `format`. `sigma` adds the uncertainty column.
pub fn write_leaderboard(
    out: &mut dyn Write,
    board: &[Standing],
    system: &dyn RatingSystem,
    format: Format,
) -> anyhow::Result<()> {
    write_leaderboard_as(out, board, system, format, Display::Rating)
}

/// As [`write_leaderboard`]; `Display::Conservative` adds a `conservative` (μ − 3σ) column
/// after `sigma` (the caller ranks the board, see [`rank_conservative`]).
pub fn write_leaderboard_as(
    out: &mut dyn Write,
    board: &[Standing],
    system: &dyn RatingSystem,
    format: Format,
    display: Display,
) -> anyhow::Result<()> {
    let sigma = system.has_uncertainty();
    let cons = display == Display::Conservative;
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header = vec!["position", "player", "rating"];
            if sigma {
                header.push("sigma");
            }
            if cons {
                header.push("conservative");
            }
            header.extend([
                "games",
                "avg_size",
                "win_pct",
                "expected_win_pct",
                "net_pct",
                "last_played",
                "provisional",
            ]);
            w.write_record(&header)?;
            for s in board {
                let mut row = vec![
                    s.position.to_string(),
                    s.player.clone(),
                    s.rating.value.to_string(),
                ];
                if sigma {
                    row.push(s.rating.sigma.map(|v| v.to_string()).unwrap_or_default());
                }
                if cons {
                    row.push(conservative(&s.rating).to_string());
                }
                row.extend([
                    s.stats.games.to_string(),
                    s.stats.average_size().to_string(),
                    s.stats.win_pct().to_string(),
                    s.stats.expected_win_pct().to_string(),
                    (s.stats.win_pct() - s.stats.expected_win_pct()).to_string(),
                    last_played(s),
                    s.provisional.to_string(),
                ]);
                w.write_record(&row)?;
            }
            w.flush()?;
        }
        Format::Json => {
            let rows: Vec<_> = board
                .iter()
                .map(|s| {
                    let mut o = serde_json::json!({
                        "position": s.position,
                        "player": s.player,
                        "rating": s.rating.value,
                        "games": s.stats.games,
                        "avg_size": s.stats.average_size(),
                        "win_pct": s.stats.win_pct(),
                        "expected_win_pct": s.stats.expected_win_pct(),
                        "net_pct": s.stats.win_pct() - s.stats.expected_win_pct(),
                        "last_played": last_played(s),
                        "provisional": s.provisional,
                    });
                    if sigma {
                        o["sigma"] = serde_json::json!(s.rating.sigma);
                    }
                    if cons {
                        o["conservative"] = serde_json::json!(conservative(&s.rating));
                    }
                    o
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        }
        Format::Table => {
            let mut t = Table::new();
            t.load_preset(UTF8_BORDERS_ONLY);
            let mut header = vec!["#", "player", "rating"];
            if sigma {
                header.push("σ");
            }
            if cons {
                header.push("μ − 3σ");
            }
            header.extend([
                "games",
                "avg size",
                "win %",
                "exp. win %",
                "net",
                "last played",
            ]);
            t.set_header(header);
            let mut any_provisional = false;
            for s in board {
                let name = if s.provisional {
                    any_provisional = true;
                    format!("{} (P)", s.player)
                } else {
                    s.player.clone()
                };
                let mut row = vec![
                    Cell::new(s.position),
                    Cell::new(name),
                    Cell::new(format!("{:.2}", s.rating.value)),
                ];
                if sigma {
                    row.push(Cell::new(
                        s.rating
                            .sigma
                            .map(|v| format!("{v:.2}"))
                            .unwrap_or_default(),
                    ));
                }
                if cons {
                    row.push(Cell::new(format!("{:.2}", conservative(&s.rating))));
                }
                let net = s.stats.win_pct() - s.stats.expected_win_pct();
                row.extend([
                    Cell::new(s.stats.games),
                    Cell::new(format!("{:.2}", s.stats.average_size())),
                    Cell::new(format!("{:.1}", s.stats.win_pct())),
                    Cell::new(format!("{:.1}", s.stats.expected_win_pct())),
                    Cell::new(format!("{net:+.1}")),
                    Cell::new(last_played(s)),
                ]);
                t.add_row(row);
            }
            let columns = t.column_count();
            for i in 0..columns {
                if let Some(c) = t.column_mut(i) {
                    if i != 1 && i + 1 != columns {
                        c.set_cell_alignment(CellAlignment::Right);
                    }
                }
            }
            writeln!(out, "{t}")?;
            if any_provisional {
                writeln!(
                    out,
                    "(P) provisional rating: too few games for the system to be sure"
                )?;
            }
        }
    }
    Ok(())
}
