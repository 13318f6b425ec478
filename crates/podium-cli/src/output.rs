//! Output formats shared by the subcommands: leaderboards as a table, CSV or JSON.

use std::io::Write;

use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use podium::{FactorRecord, RatingSystem, Standing};

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

/// When a player last played: the time of their last match, or nothing when the matches
/// have no times (a match id says nothing of when, and may look like a date).
pub fn last_played(s: &Standing) -> Option<String> {
    s.stats.last_time.map(podium_io::format_time)
}

/// `thing` as it reads after the number `n`: as given for 1, else in the plural
/// (`noun(2, "match")` is "matches", `noun(0, "team kill")` is "team kills").
#[must_use]
pub fn noun(n: u64, thing: &str) -> String {
    if n == 1 {
        thing.to_string()
    } else if ["s", "x", "ch", "sh"]
        .iter()
        .any(|end| thing.ends_with(end))
    {
        format!("{thing}es")
    } else {
        format!("{thing}s")
    }
}

/// `n` things, in the singular for one: `count(1, "game")` is "1 game",
/// `count(3, "match")` is "3 matches".
#[must_use]
pub fn count(n: u64, thing: &str) -> String {
    format!("{n} {}", noun(n, thing))
}

/// Leaderboards shorter than twice this many rows are written on one thread.
const ROWS_PER_PART: usize = 5_000;

/// Writes the leaderboard's CSV rows (no header) in `parts` parts formatted at the same
/// time, each on its own thread, and put out in order: the same bytes as one part.
fn write_csv_rows(
    out: &mut dyn Write,
    board: &[Standing],
    sigma: bool,
    cons: bool,
    parts: usize,
) -> anyhow::Result<()> {
    let size = board.len().div_ceil(parts.max(1)).max(1);
    let written: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let mut chunks = board.chunks(size);
        let first = chunks.next().unwrap_or_default();
        let others: Vec<_> = chunks
            .map(|part| scope.spawn(move || csv_rows(part, sigma, cons)))
            .collect();
        let first = csv_rows(first, sigma, cons);
        std::iter::once(first)
            .chain(others.into_iter().map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }))
            .collect()
    });
    for part in written {
        out.write_all(&part)?;
    }
    out.flush()?;
    Ok(())
}

/// The CSV rows of part of a leaderboard, as the `csv` crate's writer writes them (a test
/// holds them to it), built in one buffer: with 50,000 players the writer's work per
/// field had cost more than the numbers.
fn csv_rows(board: &[Standing], sigma: bool, cons: bool) -> Vec<u8> {
    let mut out = String::with_capacity(board.len() * 128);
    for s in board {
        out.push_str(itoa::Buffer::new().format(s.position));
        out.push(',');
        push_csv_field(&mut out, &s.player);
        out.push(',');
        push_f64(&mut out, s.rating.value);
        out.push(',');
        if sigma {
            if let Some(v) = s.rating.sigma {
                push_f64(&mut out, v);
            }
            out.push(',');
        }
        if cons {
            push_f64(&mut out, conservative(&s.rating));
            out.push(',');
        }
        let st = &s.stats;
        out.push_str(itoa::Buffer::new().format(st.games));
        out.push(',');
        push_f64(&mut out, st.average_size());
        out.push(',');
        push_f64(&mut out, st.win_pct());
        out.push(',');
        push_f64(&mut out, st.expected_win_pct());
        out.push(',');
        push_f64(&mut out, st.win_pct() - st.expected_win_pct());
        out.push(',');
        push_csv_field(&mut out, &last_played(s).unwrap_or_default());
        out.push_str(if s.provisional { ",true\n" } else { ",false\n" });
    }
    out.into_bytes()
}

/// Appends a text field of a CSV row: quoted, with its quotes doubled, when it holds a
/// comma, a quote or a line break, as the `csv` crate's writer does by default.
fn push_csv_field(out: &mut String, field: &str) {
    if field
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Appends `x` exactly as `Display` writes it: the shortest digits that read back as `x`,
/// never with an exponent. Żmij finds the same digits several times faster; what it
/// writes differently (`1.0`, exponents, and a last digit exactly halfway between two
/// shortest candidates, which `Display` rounds up and Żmij to even) is written as
/// `Display` writes it.
pub fn push_f64(out: &mut String, x: f64) {
    if x.is_finite() {
        let mut buf = zmij::Buffer::new();
        let digits = buf.format_finite(x);
        // From the end: an exponent, or the point and how many digits follow it.
        let tail = digits.bytes().rev().position(|b| b == b'.' || b == b'e');
        let exponent = tail.is_some_and(|t| digits.as_bytes()[digits.len() - 1 - t] == b'e');
        // The digits end one place before x's exact decimal value does: only then can x
        // lie exactly halfway between two candidates for the last digit.
        let halfway = exact_fraction_digits(x) == tail.unwrap_or(0) + 1;
        if !exponent && !halfway {
            out.push_str(digits.strip_suffix(".0").unwrap_or(digits));
            return;
        }
    }
    push_display(out, x);
}

/// How many digits the exact decimal value of a finite `x` has after the point: a
/// binary fraction of k bits has exactly k decimal ones (2^-k = 5^k / 10^k).
fn exact_fraction_digits(x: f64) -> usize {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let mut mantissa = bits & ((1 << 52) - 1);
    let exponent = if biased == 0 {
        -1074
    } else {
        mantissa |= 1 << 52;
        biased - 1075
    };
    if mantissa == 0 {
        return 0;
    }
    let lowest_bit = exponent + mantissa.trailing_zeros() as i32;
    usize::try_from(-lowest_bit).unwrap_or(0)
}

/// Appends `x` as `Display` writes it.
fn push_display(out: &mut String, x: impl std::fmt::Display) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(out, "{x}");
}

/// What a leaderboard ranks players by (`--display`): systems with an uncertainty σ can
/// rank by the conservative rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Ranking {
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

/// Prints a leaderboard in `format`, with the uncertainty σ of each player when the
/// system keeps one.
pub fn write_leaderboard(
    out: &mut dyn Write,
    board: &[Standing],
    system: &dyn RatingSystem,
    format: Format,
) -> anyhow::Result<()> {
    write_leaderboard_as(out, board, system, format, Ranking::Rating)
}

/// The leaderboard's JSON rows.
pub fn leaderboard_json(board: &[Standing], sigma: bool, cons: bool) -> Vec<serde_json::Value> {
    board
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
        .collect()
}

/// The factors' JSON rows ([`write_factors`]).
pub fn factors_json(factors: &[FactorRecord], sigma: bool) -> Vec<serde_json::Value> {
    factors
        .iter()
        .map(|f| {
            let mut o = serde_json::json!({
                "kind": f.factor.kind,
                "value": f.factor.value,
                "rating": f.rating.value,
                "matches": f.stats.games,
                "wins": f.stats.wins,
                "win_pct": f.stats.win_pct(),
                "expected_win_pct": f.stats.expected_win_pct(),
            });
            if sigma {
                o["sigma"] = serde_json::json!(f.rating.sigma);
            }
            o
        })
        .collect()
}

/// Prints the factors' table ([`podium::League::factor_standings`]): kind, value, rating
/// (what the factor adds to an entry's strength), σ where the system keeps one, the
/// matches where it told entries apart, the wins of the entries that carried it (a tie
/// for first among k counts 1/k), their % of those matches, and an average entry's win %
/// in the same matches (the mean of 1/N), as the league server's and Python's tables.
/// As JSON, the rows of [`factors_json`].
pub fn write_factors(
    out: &mut dyn Write,
    factors: &[FactorRecord],
    system: &dyn RatingSystem,
    format: Format,
) -> anyhow::Result<()> {
    let sigma = system.capabilities().has_uncertainty;
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            let mut header = vec!["kind", "value", "rating"];
            if sigma {
                header.push("sigma");
            }
            header.extend(["matches", "wins", "win_pct", "expected_win_pct"]);
            w.write_record(&header)?;
            for f in factors {
                let mut row = vec![
                    f.factor.kind.clone(),
                    f.factor.value.clone(),
                    f.rating.value.to_string(),
                ];
                if sigma {
                    row.push(f.rating.sigma.map(|v| v.to_string()).unwrap_or_default());
                }
                row.extend([
                    f.stats.games.to_string(),
                    f.stats.wins.to_string(),
                    f.stats.win_pct().to_string(),
                    f.stats.expected_win_pct().to_string(),
                ]);
                w.write_record(&row)?;
            }
            w.flush()?;
        }
        Format::Json => {
            let rows = factors_json(factors, sigma);
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        }
        Format::Table => {
            let mut t = Table::new();
            t.load_preset(UTF8_BORDERS_ONLY);
            let mut header = vec!["kind", "value", "rating"];
            if sigma {
                header.push("σ");
            }
            header.extend(["matches", "win %", "exp. win %"]);
            t.set_header(header);
            for f in factors {
                let mut row = vec![
                    Cell::new(&f.factor.kind),
                    Cell::new(&f.factor.value),
                    Cell::new(format!("{:+.2}", f.rating.value)),
                ];
                if sigma {
                    row.push(Cell::new(
                        f.rating
                            .sigma
                            .map(|v| format!("{v:.2}"))
                            .unwrap_or_default(),
                    ));
                }
                row.extend([
                    Cell::new(f.stats.games),
                    Cell::new(format!("{:.1}", f.stats.win_pct())),
                    Cell::new(format!("{:.1}", f.stats.expected_win_pct())),
                ]);
                t.add_row(row);
            }
            for i in 2..t.column_count() {
                if let Some(c) = t.column_mut(i) {
                    c.set_cell_alignment(CellAlignment::Right);
                }
            }
            writeln!(out, "{t}")?;
        }
    }
    Ok(())
}

/// As [`write_leaderboard`]; `Ranking::Conservative` adds a `conservative` (μ − 3σ) column
/// after `sigma` (the caller ranks the board, see [`rank_conservative`]).
pub fn write_leaderboard_as(
    out: &mut dyn Write,
    board: &[Standing],
    system: &dyn RatingSystem,
    format: Format,
    ranking: Ranking,
) -> anyhow::Result<()> {
    let sigma = system.capabilities().has_uncertainty;
    let cons = ranking == Ranking::Conservative;
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
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
            w.flush()?;
            drop(w);
            // Large leaderboards are written in parts, one per core, put out in order.
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let parts = cores.min(board.len() / ROWS_PER_PART).max(1);
            write_csv_rows(out, board, sigma, cons, parts)?;
        }
        Format::Json => {
            let rows = leaderboard_json(board, sigma, cons);
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
                    Cell::new(last_played(s).unwrap_or_else(|| "-".to_string())),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fast(x: f64) -> String {
        let mut s = String::new();
        push_f64(&mut s, x);
        s
    }

    #[test]
    fn counts_read_in_the_singular_for_one_only() {
        assert_eq!(count(1, "game"), "1 game");
        assert_eq!(count(0, "game"), "0 games");
        assert_eq!(count(2, "match"), "2 matches");
        assert_eq!(count(1, "match"), "1 match");
        assert_eq!(count(12, "team kill"), "12 team kills");
        assert_eq!(noun(1, "time"), "time");
        assert_eq!(noun(5, "time"), "times");
        assert_eq!(noun(3, "box"), "boxes");
    }

    #[test]
    fn floats_are_written_as_display_writes_them() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            50.0,
            1500.0,
            1024.3125,
            0.1,
            1.0 / 3.0,
            100.0 * (2.0 / 3.0),
            1e-7,
            // 1130763335147182.25, halfway between …182.2 and …182.3: Display writes .3.
            f64::from_bits(4_832_381_853_881_760_441),
            0.5,
            0.125,
            1e16,
            1e21,
            -1.5e300,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(fast(x), x.to_string(), "{x:e}");
        }
    }

    /// A leaderboard written in parts gives the bytes of one written whole, in order,
    /// with names that need quoting and ratings with and without σ.
    #[test]
    fn rows_written_in_parts_are_the_rows_written_whole() {
        let board: Vec<Standing> = (0..1000)
            .map(|i| Standing {
                position: i + 1,
                player: if i % 7 == 0 {
                    format!("p,{i}")
                } else {
                    format!("p{i}")
                },
                rating: podium::Rating::with_sigma(1500.0 - i as f64 / 3.0, 1.0 + i as f64),
                stats: podium::PlayerStats {
                    games: i as u32,
                    wins: i as f64 / 2.0,
                    ..Default::default()
                },
                provisional: i % 2 == 0,
            })
            .collect();
        let write = |parts: usize, sigma: bool| {
            let mut out = Vec::new();
            write_csv_rows(&mut out, &board, sigma, sigma, parts).unwrap();
            String::from_utf8(out).unwrap()
        };
        for sigma in [false, true] {
            let whole = write(1, sigma);
            assert_eq!(whole.lines().count(), 1000);
            assert!(whole.starts_with(if sigma {
                "1,\"p,0\",1500,1,"
            } else {
                "1,\"p,0\",1500,0,"
            }));
            for parts in [2, 3, 7, 1000, 5000] {
                assert_eq!(write(parts, sigma), whole, "{parts} parts");
            }
        }
        let mut out = Vec::new();
        write_csv_rows(&mut out, &[], false, false, 3).unwrap();
        assert!(out.is_empty());
    }

    /// The rows as the `csv` crate's writer writes them, field by field.
    fn rows_by_the_csv_crate(board: &[Standing], sigma: bool, cons: bool) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for s in board {
            let mut record = vec![
                s.position.to_string(),
                s.player.clone(),
                fast(s.rating.value),
            ];
            if sigma {
                record.push(s.rating.sigma.map(fast).unwrap_or_default());
            }
            if cons {
                record.push(fast(conservative(&s.rating)));
            }
            let st = &s.stats;
            record.extend([
                st.games.to_string(),
                fast(st.average_size()),
                fast(st.win_pct()),
                fast(st.expected_win_pct()),
                fast(st.win_pct() - st.expected_win_pct()),
                last_played(s).unwrap_or_default(),
                s.provisional.to_string(),
            ]);
            w.write_record(&record).unwrap();
        }
        w.into_inner().unwrap()
    }

    fn standing() -> impl Strategy<Value = Standing> {
        (
            1..100_000usize,
            prop_oneof!["[a-z0-9]{1,12}", "[ a-z,\"\r\n]{0,8}", any::<String>()],
            -1e4f64..1e4,
            prop::option::of(0.0f64..500.0),
            (0..1000u32, 0..5000u64, 0.0f64..1.0),
            (
                prop::option::of(prop_oneof!["m[0-9]{1,6}", "[a-z,\"\n]{0,6}"]),
                prop::option::of(-1_000_000_000i64..300_000_000_000),
            ),
            any::<bool>(),
        )
            .prop_map(
                |(
                    position,
                    player,
                    value,
                    sigma,
                    (games, extra, share),
                    (last, time),
                    provisional,
                )| {
                    Standing {
                        position,
                        player,
                        rating: podium::Rating {
                            value,
                            sigma,
                            games,
                        },
                        stats: podium::PlayerStats {
                            games,
                            wins: f64::from(games) * share,
                            expected_wins: f64::from(games) * share / 2.0,
                            entries_total: u64::from(games) * 2 + extra,
                            last_time: time,
                            last_match: last.map(Into::into),
                        },
                        provisional,
                    }
                },
            )
    }

    proptest! {
        /// The rows are the bytes the `csv` crate's writer gives, whatever the names hold
        /// (commas, quotes, line breaks, any character) and with or without σ.
        #[test]
        fn rows_are_what_the_csv_crate_writes(
            board in prop::collection::vec(standing(), 0..20),
            sigma in any::<bool>(),
            cons in any::<bool>(),
        ) {
            prop_assert_eq!(
                String::from_utf8(csv_rows(&board, sigma, cons)).unwrap(),
                String::from_utf8(rows_by_the_csv_crate(&board, sigma, cons)).unwrap()
            );
        }

        /// Every bit pattern, so every exponent and every special value.
        #[test]
        fn any_float_is_written_as_display_writes_it(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(fast(x), x.to_string());
        }

        /// Numbers with few bits after the point, from 2^-8 to 2^53, where a last digit
        /// can fall exactly halfway.
        #[test]
        fn short_binary_fractions_are_written_as_display_writes_them(
            mantissa in any::<u64>(), exponent in -8i32..53,
        ) {
            let x = (mantissa >> 11) as f64 * 2f64.powi(exponent - 52);
            prop_assert_eq!(fast(x), x.to_string());
            prop_assert_eq!(fast(-x), (-x).to_string());
        }

        /// Ratings and percentages: the values leaderboards hold.
        #[test]
        fn leaderboard_values_are_written_as_display_writes_them(x in -1e5f64..1e5) {
            prop_assert_eq!(fast(x), x.to_string());
        }
    }
}
