//! `podium frags`: rank shooter players from Quake 3 server logs, frag by frag (SPEC §3).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use comfy_table::{presets::UTF8_BORDERS_ONLY, CellAlignment, Table};
use podium::frags::{
    static_strengths, FragConfig, FragEvent, FragMatrix, FragRanking, FragStats, PlayerId,
};
use podium::Configure;
use podium_io::quake::{
    GameEnd, GameInfo, Killer, Line, LineReader, LogSummary, QuakeEvent, QuakeParser,
};

use crate::frag_site::{GameRow, KillRecord, SiteData};
use crate::output::Format;

/// Arguments of `podium frags`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Quake 3 server logs (`games.log`; ioq3, OSP, OpenArena), read in the order given;
    /// `-` reads standard input.
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
    /// With --follow: how often to look for new lines, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS")]
    poll_ms: u64,
    /// With --follow: stop after this many seconds without new lines (default: never).
    #[arg(long, value_name = "SECS")]
    idle_exit: Option<f64>,
}

/// The ranking being built from the events of the logs.
pub struct Engine {
    /// The dynamic ranking (also keeps every player's counters).
    pub ranking: FragRanking,
    /// Frags between pairs, for --static and the site.
    pub matrix: FragMatrix,
    /// The log's players → the ranking's.
    ids: Vec<Option<PlayerId>>,
    /// Data for the HTML site, when asked for.
    pub site: Option<SiteData>,
    /// The game being read: its info and whether anything was rated in it.
    game: Option<(GameInfo, bool)>,
    /// Games that had rated events.
    pub games_rated: u64,
    /// Reusable buffer of the opposing team's players.
    opponents: Vec<PlayerId>,
    /// The file being read, for the site's game pages.
    pub file: String,
}

impl Engine {
    /// An engine with `config`, collecting site data if `site`.
    pub fn new(config: FragConfig, site: bool) -> Engine {
        Engine {
            ranking: FragRanking::new(config),
            matrix: FragMatrix::new(),
            ids: Vec::new(),
            site: site.then(SiteData::default),
            game: None,
            games_rated: 0,
            opponents: Vec::new(),
            file: String::new(),
        }
    }

    /// A new log starts: its parser numbers players afresh.
    pub fn new_log(&mut self, name: &str) {
        self.ids.clear();
        self.file = name.to_string();
    }

    fn id(&mut self, parser: &QuakeParser, p: podium_io::quake::PlayerRef) -> PlayerId {
        let i = p.0 as usize;
        if self.ids.len() <= i {
            self.ids.resize(i + 1, None);
        }
        match self.ids[i] {
            Some(id) => id,
            None => {
                let id = self.ranking.player(parser.player_name(p));
                self.ids[i] = Some(id);
                if let Some(site) = &mut self.site {
                    site.ensure_player(id);
                }
                id
            }
        }
    }

    fn rated(&mut self) {
        if self.game.is_none() {
            // Events outside any game cannot happen (the parser opens one), but stay safe.
            self.game = Some((
                GameInfo {
                    number: 0,
                    line: 0,
                    game_type: podium_io::quake::GameType::Ffa,
                    map: String::new(),
                },
                false,
            ));
        }
        if let Some((_, any)) = &mut self.game {
            *any = true;
        }
    }

    /// Applies one event of the log.
    pub fn event(&mut self, parser: &QuakeParser, event: QuakeEvent) {
        match event {
            QuakeEvent::GameStart(info) => {
                if let Some(site) = &mut self.site {
                    site.start_game(&info, &self.file);
                }
                self.game = Some((info, false));
            }
            QuakeEvent::Day(day) => self.ranking.set_day(day),
            QuakeEvent::Player {
                player,
                renamed_from,
                ..
            } => {
                let id = self.id(parser, player);
                if let (Some(old), Some(site)) = (renamed_from, &mut self.site) {
                    let old = parser.player_name(old).to_string();
                    site.alias(id, old);
                }
            }
            QuakeEvent::Kill {
                time,
                killer,
                victim,
                weapon,
                team_kill,
            } => {
                self.rated();
                let v = self.id(parser, victim);
                let k = match killer {
                    Killer::World => None,
                    Killer::Player(p) => Some(self.id(parser, p)),
                };
                let _ = match k {
                    None => self.ranking.apply(FragEvent::WorldKill { victim: v }),
                    Some(k) if k == v => self.ranking.apply(FragEvent::Suicide { player: v }),
                    Some(k) if team_kill => self.ranking.apply(FragEvent::TeamKill {
                        killer: k,
                        victim: v,
                    }),
                    Some(k) => self.ranking.apply(FragEvent::Frag {
                        killer: k,
                        victim: v,
                    }),
                };
                if let Some(k) = k {
                    self.matrix.add(k, v);
                }
                if let Some(site) = &mut self.site {
                    site.kill(KillRecord {
                        time,
                        killer: k,
                        victim: v,
                        weapon: parser.weapon_name(weapon),
                        team_kill,
                    });
                }
            }
            QuakeEvent::Flag {
                player,
                team,
                action,
            } => {
                if action != podium_io::quake::FlagAction::Captured {
                    let id = self.id(parser, player);
                    if let Some(site) = &mut self.site {
                        site.flag(id, action);
                    }
                    return;
                }
                self.rated();
                let id = self.id(parser, player);
                let mut opponents = std::mem::take(&mut self.opponents);
                opponents.clear();
                if let Some(other) = team.other() {
                    for p in parser.team_members(other) {
                        opponents.push(self.id(parser, p));
                    }
                }
                let _ = self.ranking.apply(FragEvent::Capture {
                    player: id,
                    opponents: &opponents,
                });
                self.opponents = opponents;
                if let Some(site) = &mut self.site {
                    site.flag(id, action);
                }
            }
            QuakeEvent::TeamScore { red, blue } => {
                if let Some(site) = &mut self.site {
                    site.team_score(red, blue);
                }
            }
            QuakeEvent::Score { player, score, .. } => {
                let id = self.id(parser, player);
                if let Some(site) = &mut self.site {
                    site.score(id, score);
                }
            }
            QuakeEvent::Exit(reason) => {
                if let Some(site) = &mut self.site {
                    site.exit(reason);
                }
            }
            QuakeEvent::GameEnd { end, .. } => self.end_game(end),
        }
    }

    fn end_game(&mut self, end: GameEnd) {
        let Some((_, any)) = self.game.take() else {
            return;
        };
        if !any {
            // Warm-ups and empty maps: no games counted, no decay.
            if let Some(site) = &mut self.site {
                site.drop_game();
            }
            return;
        }
        self.games_rated += 1;
        let players = self.ranking.end_game();
        if let Some(site) = &mut self.site {
            let rows: Vec<GameRow> = players
                .iter()
                .map(|&p| GameRow {
                    player: p,
                    strength_after: self.ranking.strength(p),
                })
                .collect();
            site.end_game(end, rows);
        }
    }
}

/// Reads a log to its end into the engine; returns the parser's summary.
fn read_log(
    engine: &mut Engine,
    parser: &mut QuakeParser,
    name: &str,
    input: &mut dyn Read,
) -> anyhow::Result<()> {
    engine.new_log(name);
    let mut lines = LineReader::new(input);
    read_available(&mut lines, parser, engine, name)?;
    parser.set_bytes(lines.consumed());
    finish_file(&mut lines, parser, engine);
    Ok(())
}

/// Reads `lines` to their present end into the parser and the engine. Returns whether a
/// kill, capture or game end came (something that changes the rankings).
fn read_available<R: Read>(
    lines: &mut LineReader<R>,
    parser: &mut QuakeParser,
    engine: &mut Engine,
    name: &str,
) -> anyhow::Result<bool> {
    let mut changed = false;
    loop {
        match lines
            .next_line()
            .with_context(|| format!("reading {name}"))?
        {
            Line::Full(line) => parser.feed_line(line),
            Line::Overlong => parser.overlong_line(),
            Line::End => return Ok(changed),
        }
        while let Some(e) = parser.next_event() {
            changed |= matches!(
                e,
                QuakeEvent::Kill { .. } | QuakeEvent::Flag { .. } | QuakeEvent::GameEnd { .. }
            );
            engine.event(parser, e);
        }
    }
}

/// Ends a file: its last line even without a line break, then what the parser still
/// holds (a game cut off by the end of the file).
fn finish_file<R: Read>(lines: &mut LineReader<R>, parser: &mut QuakeParser, engine: &mut Engine) {
    if let Some(last) = lines.take_partial() {
        parser.feed_line(last);
    }
    parser.finish();
    while let Some(e) = parser.next_event() {
        engine.event(parser, e);
    }
}

fn config(settings: &[String]) -> anyhow::Result<FragConfig> {
    let mut config = FragConfig::default();
    config.apply(&podium::Settings::parse(settings)?)?;
    Ok(config)
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line on what a log held, plus the lines skipped.
pub fn describe(name: &str, s: &LogSummary) -> String {
    let mut out = format!(
        "{name}: {} lines, {} games ({} cut off), {} kills ({} by the world, {} suicides, {} team kills)",
        thousands(s.lines),
        thousands(u64::from(s.games)),
        thousands(u64::from(s.cut_off)),
        thousands(s.kills),
        thousands(s.world_kills),
        thousands(s.suicides),
        thousands(s.team_kills)
    );
    if s.repaired > 0 {
        out.push_str(&format!(", {} repaired", s.repaired));
    }
    if s.skipped() == 0 {
        out.push_str("; no lines skipped");
    } else {
        out.push_str(&format!(
            "; skipped {} lines ({} not recognised, {} malformed, {} too long)",
            s.skipped(),
            s.unrecognised,
            s.malformed,
            s.overlong
        ));
        for e in &s.examples {
            out.push_str(&format!("\n  line {} ({}): {}", e.line, e.reason, e.text));
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

fn rows<'a>(engine: &'a Engine, args: &Args) -> Vec<Row<'a>> {
    let r = &engine.ranking;
    if args.static_strengths {
        let g = static_strengths(&engine.matrix, args.core);
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
        let mut out = Vec::new();
        let mut position = 0;
        let mut last = None;
        for s in r.standings() {
            if s.stats.games == 0 && s.stats.deaths == 0 && s.stats.frags == 0 {
                continue; // connected, never fragged or died
            }
            if last != Some(s.strength) {
                position = out.len() + 1;
                last = Some(s.strength);
            }
            out.push(Row {
                position,
                player: r.name(s.id),
                strength: s.strength,
                stats: s.stats,
                opponents: None,
            });
        }
        out
    }
}

fn kd(s: &FragStats) -> f64 {
    f64::from(s.frags) / f64::from(s.deaths.max(1))
}

fn print(out: &mut dyn Write, engine: &Engine, args: &Args) -> anyhow::Result<()> {
    let rows = rows(engine, args);
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
            let mut header = vec![
                "#", "player", "strength", "frags", "deaths", "suicides", "team k.", "caps",
                "games", "K/D",
            ];
            if opp {
                header.push("opponents");
            }
            t.set_header(header);
            for r in &rows {
                let s = &r.stats;
                let strength = if opp {
                    format!("{:+.3}", r.strength)
                } else {
                    format!("{:.1}", r.strength)
                };
                let mut row = vec![
                    r.position.to_string(),
                    r.player.to_string(),
                    strength,
                    s.frags.to_string(),
                    s.deaths.to_string(),
                    s.suicides.to_string(),
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

fn write_site(engine: &Engine, dir: &Path, summary: &LogSummary) -> anyhow::Result<()> {
    if let Some(site) = &engine.site {
        crate::frag_site::write(dir, site, &engine.ranking, &engine.matrix, summary)
            .with_context(|| format!("writing the site to {}", dir.display()))?;
    }
    Ok(())
}

/// Runs `podium frags`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.core.is_some() && !args.static_strengths {
        anyhow::bail!("--core M selects the core of the static ranking: add --static");
    }
    let config = config(&args.settings)?;
    let mut engine = Engine::new(config, args.html.is_some());
    let mut total = LogSummary::default();
    let stdout = io::stdout();
    let last = args.logs.len() - 1;
    for (i, name) in args.logs.iter().enumerate() {
        let mut parser = QuakeParser::new();
        if args.follow && i == last {
            if name == "-" {
                anyhow::bail!("--follow needs a file, not standard input");
            }
            return follow(&args, name, engine, parser, total);
        }
        if name == "-" {
            read_log(&mut engine, &mut parser, "<stdin>", &mut io::stdin().lock())?;
        } else {
            let mut f = File::open(name).with_context(|| format!("cannot open {name}"))?;
            read_log(&mut engine, &mut parser, name, &mut f)?;
        }
        eprintln!("{}", describe(name, parser.summary()));
        total.merge(parser.summary());
    }
    if let Some(dir) = &args.html {
        write_site(&engine, dir, &total)?;
        eprintln!("site written to {}", dir.display());
    }
    let mut out = stdout.lock();
    print(&mut out, &engine, &args)?;
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
    mut engine: Engine,
    mut parser: QuakeParser,
    mut done: LogSummary,
) -> anyhow::Result<()> {
    engine.new_log(name);
    let open = |name: &str| -> anyhow::Result<(File, u64)> {
        let f = File::open(name).with_context(|| format!("cannot open {name}"))?;
        let id = identity(&f.metadata()?);
        Ok((f, id))
    };
    let (file, mut id) = open(name)?;
    let mut lines = LineReader::new(file);
    let poll = Duration::from_millis(args.poll_ms.max(10));
    let mut idle_since = Instant::now();
    let mut printed = false;
    let mut base = 0u64;
    loop {
        let changed = read_available(&mut lines, &mut parser, &mut engine, name)?;
        parser.set_bytes(base + lines.consumed());
        if changed || !printed {
            let mut summary = done.clone();
            summary.merge(parser.summary());
            if let Some(dir) = &args.html {
                write_site(&engine, dir, &summary)?;
            }
            let mut out = io::stdout().lock();
            if printed && args.format == Format::Table {
                writeln!(out)?;
            }
            if args.format == Format::Table {
                writeln!(
                    out,
                    "{}: {} games rated, {} kills",
                    name,
                    engine.games_rated,
                    thousands(summary.kills)
                )?;
            }
            print(&mut out, &engine, args)?;
            out.flush()?;
            printed = true;
            idle_since = Instant::now();
        }
        if let Some(limit) = args.idle_exit {
            if idle_since.elapsed().as_secs_f64() >= limit {
                eprintln!("{}", describe(name, parser.summary()));
                done.merge(parser.summary());
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
                finish_file(&mut lines, &mut parser, &mut engine);
                base += lines.consumed();
                lines = LineReader::new(f);
                id = new_id;
                eprintln!("{name}: a new file, reading it from its start");
            }
        } else if meta.len() < position {
            // Truncated: the server started a new log in the same file.
            lines.get_mut().seek(SeekFrom::Start(0))?;
            base += lines.consumed();
            lines.reset();
            parser.finish();
            while let Some(e) = parser.next_event() {
                engine.event(&parser, e);
            }
            eprintln!("{name}: truncated, reading it again from its start");
        }
    }
}
