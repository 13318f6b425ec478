//! `podium frags`: rank shooter players from Quake 3 server logs, frag by frag, as
//! Michael Becker's article on frag rankings (2001) describes (see `podium::frags`).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use comfy_table::{presets::UTF8_BORDERS_ONLY, CellAlignment, Table};
use podium::frags::{static_strengths, FragConfig, FragStats};
use podium::Configure;
use podium_io::quake::ranking::QuakeRanking;
use podium_io::quake::site::{self, thousands, SiteData};
use podium_io::quake::{LineReader, LogSummary, NotUtf8, QuakeParser};

use crate::output::{count, noun, Format};

/// Arguments of `podium frags`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Quake 3 server logs (`games.log`; ioq3, OSP, OpenArena), read in the order given,
    /// each once; `-` reads standard input.
    #[arg(required = true, value_name = "LOG")]
    logs: Vec<String>,
    /// Rank by static strengths over the whole period (mean frag balance against the
    /// opponents met) instead of the dynamic ranking.
    #[arg(long = "static")]
    static_strengths: bool,
    /// With --static: rank only the core of players of which every pair exchanged at
    /// least M frags.
    #[arg(long, value_name = "M")]
    core: Option<u32>,
    /// Set a parameter of the ranking, e.g. `--set k=16` (repeatable; see docs/frags.md):
    /// k, scale, frag_points, capture_points, decay_per_game, decay_per_day.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Write a static HTML stats site (ranking, one page per player and per game) to DIR.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Keep reading the (last) log as the server appends to it, like `tail -f`, and print
    /// the ranking again whenever it changed. Stops on Ctrl-C.
    #[arg(long)]
    follow: bool,
    /// With --follow: how often to look for new lines, in milliseconds (default 500).
    #[arg(long, value_name = "MS")]
    poll_ms: Option<u64>,
    /// With --follow: stop after this many seconds without new lines (default: never).
    #[arg(long, value_name = "SECS")]
    idle_exit: Option<f64>,
}

/// The ranking and, with `--html`, what the site shows besides.
struct Reading {
    ranking: QuakeRanking,
    site: Option<SiteData>,
}

impl Reading {
    /// Reads a whole log.
    fn log(
        &mut self,
        parser: &mut QuakeParser,
        name: &str,
        input: &mut dyn Read,
    ) -> anyhow::Result<()> {
        // Without a site nothing is watched: `()` compiles the watching away.
        match &mut self.site {
            Some(site) => self.ranking.read_log(parser, name, input, site),
            None => self.ranking.read_log(parser, name, input, &mut ()),
        }
        .map_err(|e| read_error(name, e))
    }

    /// Reads `lines` to their present end; whether the ranking changed.
    fn available<R: Read>(
        &mut self,
        lines: &mut LineReader<R>,
        parser: &mut QuakeParser,
        name: &str,
    ) -> anyhow::Result<bool> {
        match &mut self.site {
            Some(site) => self.ranking.read_available(lines, parser, site),
            None => self.ranking.read_available(lines, parser, &mut ()),
        }
        .map_err(|e| read_error(name, e))
    }

    /// Ends the file `lines` reads: its last line even without a line break, and a game
    /// it cut off.
    fn finish_file<R: Read>(
        &mut self,
        lines: &mut LineReader<R>,
        parser: &mut QuakeParser,
        name: &str,
    ) -> anyhow::Result<()> {
        self.ranking
            .finish_file(lines, parser, &mut self.site)
            .map_err(|e| read_error(name, e))
    }
}

/// An error reading the log `name`: one in UTF-16 or UTF-32 is named at its first line,
/// as every reader names it (`games.log:1: the file is not UTF-8 text: …`).
fn read_error(name: &str, e: io::Error) -> anyhow::Error {
    match NotUtf8::of(&e) {
        Some(wide) => wide.in_file(name).into(),
        None => anyhow::Error::new(e).context(format!("reading {name}")),
    }
}

fn config(settings: &[String]) -> anyhow::Result<FragConfig> {
    let mut config = FragConfig::default();
    config.apply(&podium::Settings::parse(settings)?)?;
    Ok(config)
}

/// One line on what a log held, plus the lines skipped (control characters escaped).
pub fn describe(name: &str, s: &LogSummary) -> String {
    let mut out = format!("{}: {}", podium_io::escape_controls(name), s.in_words());
    if s.skipped() > 0 {
        for e in &s.examples {
            if e.reason == "too long" {
                // Only its beginning is shown: say how long it is.
                out.push_str(&format!(
                    "\n  line {} (too long, {} bytes): {}…",
                    e.line,
                    thousands(e.len),
                    podium_io::escape_controls(&e.text)
                ));
            } else {
                out.push_str(&format!(
                    "\n  line {} ({}): {}",
                    e.line,
                    e.reason,
                    podium_io::escape_controls(&e.text)
                ));
            }
        }
        if s.skipped() > s.examples.len() as u64 {
            out.push_str("\n  …");
        }
    }
    out
}

/// A row of the printed ranking.
struct Row<'a> {
    position: usize,
    player: &'a str,
    strength: f64,
    stats: FragStats,
    opponents: Option<u32>,
}

fn rows<'a>(reading: &'a Reading, args: &Args) -> Vec<Row<'a>> {
    let r = reading.ranking.ranking();
    if args.static_strengths {
        let g = static_strengths(reading.ranking.matrix(), args.core);
        let mut out: Vec<Row<'a>> = Vec::with_capacity(g.len());
        for (i, s) in g.iter().enumerate() {
            let position = match out.last() {
                Some(prev) if prev.strength == s.strength => prev.position,
                _ => i + 1,
            };
            out.push(Row {
                position,
                player: r.name(s.player),
                strength: s.strength,
                stats: *r.stats(s.player),
                opponents: Some(s.opponents),
            });
        }
        out
    } else {
        // The rows the site lists too: equal strengths (most often several at the floor
        // of 0) share their position, the better frag balance first.
        site::shown_standings(r)
            .into_iter()
            .map(|s| Row {
                position: s.position,
                player: r.name(s.standing.id),
                strength: s.standing.strength,
                stats: s.standing.stats,
                opponents: None,
            })
            .collect()
    }
}

/// The position as the table shows it: `8=` when others share it.
fn shown_position(rows: &[Row<'_>], i: usize) -> String {
    let p = rows[i].position;
    let shared = rows.iter().filter(|r| r.position == p).count() > 1;
    if shared {
        format!("{p}=")
    } else {
        p.to_string()
    }
}

/// Own suicides, without the deaths by the world that [`FragStats::suicides`] includes.
fn own_suicides(s: &FragStats) -> u32 {
    s.suicides.saturating_sub(s.world_deaths)
}

fn kd(s: &FragStats) -> f64 {
    f64::from(s.frags) / f64::from(s.deaths.max(1))
}

fn print(out: &mut dyn Write, reading: &Reading, args: &Args) -> anyhow::Result<()> {
    let rows = rows(reading, args);
    let opp = args.static_strengths;
    match args.format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header = vec![
                "position",
                "player",
                "strength",
                "frags",
                "deaths",
                "suicides",
                "world_deaths",
                "team_kills",
                "captures",
                "games",
            ];
            if opp {
                header.push("opponents");
            }
            w.write_record(&header)?;
            for r in &rows {
                let s = &r.stats;
                let mut rec = vec![
                    r.position.to_string(),
                    r.player.to_string(),
                    r.strength.to_string(),
                    s.frags.to_string(),
                    s.deaths.to_string(),
                    s.suicides.to_string(),
                    s.world_deaths.to_string(),
                    s.team_kills.to_string(),
                    s.captures.to_string(),
                    s.games.to_string(),
                ];
                if let Some(o) = r.opponents {
                    rec.push(o.to_string());
                }
                w.write_record(&rec)?;
            }
            w.flush()?;
        }
        Format::Json => {
            let list: Vec<_> = rows
                .iter()
                .map(|r| {
                    let s = &r.stats;
                    let mut o = serde_json::json!({
                        "position": r.position,
                        "player": r.player,
                        "strength": r.strength,
                        "frags": s.frags,
                        "deaths": s.deaths,
                        "suicides": s.suicides,
                        "world_deaths": s.world_deaths,
                        "team_kills": s.team_kills,
                        "captures": s.captures,
                        "games": s.games,
                    });
                    if let Some(n) = r.opponents {
                        o["opponents"] = serde_json::json!(n);
                    }
                    o
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        }
        Format::Table => {
            let mut t = Table::new();
            t.load_preset(UTF8_BORDERS_ONLY);
            // Suicides and deaths by the world in columns of their own, as the summary
            // line counts them.
            let mut header = vec![
                "#", "player", "strength", "frags", "deaths", "suicides", "world", "team k.",
                "caps", "games", "K/D",
            ];
            if opp {
                header.push("opponents");
            }
            t.set_header(header);
            for (i, r) in rows.iter().enumerate() {
                let s = &r.stats;
                let strength = if opp {
                    format!("{:+.3}", r.strength)
                } else {
                    format!("{:.1}", r.strength)
                };
                let mut row = vec![
                    shown_position(&rows, i),
                    podium_io::escape_controls(r.player).into_owned(),
                    strength,
                    s.frags.to_string(),
                    s.deaths.to_string(),
                    own_suicides(s).to_string(),
                    s.world_deaths.to_string(),
                    s.team_kills.to_string(),
                    s.captures.to_string(),
                    s.games.to_string(),
                    format!("{:.2}", kd(s)),
                ];
                if let Some(o) = r.opponents {
                    row.push(o.to_string());
                }
                t.add_row(row);
            }
            for i in 0..t.column_count() {
                if let Some(c) = t.column_mut(i) {
                    if i != 1 {
                        c.set_cell_alignment(CellAlignment::Right);
                    }
                }
            }
            writeln!(out, "{t}")?;
            let floor = rows.iter().filter(|r| r.strength == 0.0).count();
            if !opp && floor > 1 {
                writeln!(
                    out,
                    "{floor} players are at the floor of strength 0 and share their position, the better K/D first"
                )?;
            }
            if opp {
                let core = match args.core {
                    Some(m) if m > 0 => format!(", core of pairs with ≥ {m} frags"),
                    _ => String::new(),
                };
                writeln!(
                    out,
                    "static strength: mean frag balance (a−b)/(a+b) against the opponents met{core}"
                )?;
            }
        }
    }
    Ok(())
}

fn write_site(
    reading: &Reading,
    args: &Args,
    dir: &Path,
    summary: &LogSummary,
) -> anyhow::Result<()> {
    if let Some(site) = &reading.site {
        let logs: Vec<&str> = args.logs.iter().map(String::as_str).collect();
        podium_io::quake::site::write(
            dir,
            site,
            reading.ranking.ranking(),
            reading.ranking.matrix(),
            summary,
            &logs,
        )
        .with_context(|| format!("writing the site to {}", dir.display()))?;
    }
    Ok(())
}

/// Runs `podium frags`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.core.is_some() && !args.static_strengths {
        anyhow::bail!("--core M selects the core of the static ranking: add --static");
    }
    if !args.follow {
        if let Some(ms) = args.poll_ms {
            anyhow::bail!(
                "--poll-ms {ms} sets how often --follow looks for new lines: add --follow"
            );
        }
        if let Some(secs) = args.idle_exit {
            anyhow::bail!(
                "--idle-exit {secs} stops --follow after that long without new lines: add --follow"
            );
        }
    }
    // A log given twice (by one name or two) would count each of its frags twice.
    podium_io::ingest::given_once(&args.logs)?;
    let config = config(&args.settings)?;
    let mut reading = Reading {
        ranking: QuakeRanking::new(config),
        site: args.html.is_some().then(SiteData::default),
    };
    let mut total = LogSummary::default();
    let stdout = io::stdout();
    let last = args.logs.len() - 1;
    for (i, name) in args.logs.iter().enumerate() {
        let mut parser = QuakeParser::new();
        if args.follow && i == last {
            if name == "-" {
                anyhow::bail!("--follow needs a file, not standard input");
            }
            return follow(&args, name, reading, parser, total);
        }
        if name == "-" {
            reading.log(&mut parser, "<stdin>", &mut io::stdin().lock())?;
        } else {
            let mut f = File::open(name).with_context(|| format!("cannot open {name}"))?;
            reading.log(&mut parser, name, &mut f)?;
        }
        eprintln!("{}", describe(name, parser.summary()));
        total.merge(parser.summary());
    }
    if let Some(dir) = &args.html {
        write_site(&reading, &args, dir, &total)?;
        eprintln!("site written to {}", dir.display());
    }
    let mut out = stdout.lock();
    print(&mut out, &reading, &args)?;
    out.flush()?;
    Ok(())
}

/// The identity of a file, to notice that the path now names another one (rotation).
fn identity(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

/// `--follow`: read the log, then keep polling for appended lines. A file that shrinks
/// was truncated (read again from its start); a path that names a new file was rotated
/// (the old one is read to its end, then the new one from its start). A half-written
/// last line waits for its newline.
fn follow(
    args: &Args,
    name: &str,
    mut reading: Reading,
    mut parser: QuakeParser,
    done: LogSummary,
) -> anyhow::Result<()> {
    reading.ranking.new_log(name);
    let open = |name: &str| -> anyhow::Result<(File, u64)> {
        let f = File::open(name).with_context(|| format!("cannot open {name}"))?;
        let id = identity(&f.metadata()?);
        Ok((f, id))
    };
    let (file, mut id) = open(name)?;
    let mut lines = LineReader::new(file);
    let poll = Duration::from_millis(args.poll_ms.unwrap_or(500).max(10));
    let mut idle_since = Instant::now();
    let mut printed = false;
    let mut base = 0u64;
    // Prints the ranking (again) and rewrites the site.
    let show = |reading: &Reading, parser: &QuakeParser, printed: bool| -> anyhow::Result<()> {
        let mut summary = done.clone();
        summary.merge(parser.summary());
        if let Some(dir) = &args.html {
            write_site(reading, args, dir, &summary)?;
        }
        let mut out = io::stdout().lock();
        if printed && args.format == Format::Table {
            writeln!(out)?;
        }
        if args.format == Format::Table {
            writeln!(
                out,
                "{}: {} rated, {}",
                podium_io::escape_controls(name),
                count(reading.ranking.games_rated(), "game"),
                format_args!(
                    "{} {}",
                    thousands(summary.kills),
                    noun(summary.kills, "kill")
                )
            )?;
        }
        print(&mut out, reading, args)?;
        out.flush()?;
        Ok(())
    };
    loop {
        let changed = reading.available(&mut lines, &mut parser, name)?;
        parser.set_bytes(base + lines.consumed());
        if changed || !printed {
            show(&reading, &parser, printed)?;
            printed = true;
            idle_since = Instant::now();
        }
        if let Some(limit) = args.idle_exit {
            if idle_since.elapsed().as_secs_f64() >= limit {
                // The input ends here: as at the end of a file read whole, its last line
                // is read even without a newline and an open game ends as cut off, so
                // the last ranking is the one `podium frags FILE` prints.
                let before = (parser.summary().clone(), reading.ranking.games_rated());
                reading.finish_file(&mut lines, &mut parser, name)?;
                parser.set_bytes(base + lines.consumed());
                if (parser.summary().clone(), reading.ranking.games_rated()) != before {
                    show(&reading, &parser, printed)?;
                }
                eprintln!("{}", describe(name, parser.summary()));
                return Ok(());
            }
        }
        std::thread::sleep(poll);
        // Truncated or rotated?
        let Ok(meta) = std::fs::metadata(name) else {
            continue; // removed for a moment during rotation
        };
        let position = lines.get_mut().stream_position()?;
        if identity(&meta) != id {
            // Rotated: finish the old file (already read to its end), start the new one.
            if let Ok((f, new_id)) = open(name) {
                reading.finish_file(&mut lines, &mut parser, name)?;
                base += lines.consumed();
                lines = LineReader::new(f);
                id = new_id;
                eprintln!(
                    "{}: a new file, reading it from its start",
                    podium_io::escape_controls(name)
                );
            }
        } else if meta.len() < position {
            // Truncated: the server started a new log in the same file.
            lines.get_mut().seek(SeekFrom::Start(0))?;
            base += lines.consumed();
            lines.reset();
            reading
                .ranking
                .finish_parser(&mut parser, &mut reading.site);
            eprintln!(
                "{}: truncated, reading it again from its start",
                podium_io::escape_controls(name)
            );
        }
    }
}
