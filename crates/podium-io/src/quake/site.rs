//! The static HTML stats site of a frag ranking (`podium frags --html DIR`): a ranking
//! page, one page per player, one page per game. Self-contained: inline CSS, inline SVG
//! charts, no scripts, no fonts or files from elsewhere, so it works offline and from
//! `file://`.
//!
//! [`SiteData`] collects what the pages show beyond the ranking, as the [`Watch`] of a
//! [`QuakeRanking`](super::ranking::QuakeRanking); [`write()`] writes the pages, each built
//! by a function of its own ([`index_page`], [`player_page`], [`game_page`]).
//!
//! Layout: `index.html`, `players/<id>-<name>.html`, `games/<n>.html`, and the list of
//! these pages, [`PAGE_LIST`], by which a new site removes the pages of an old one that
//! it does not write again. Player file names
//! keep only ASCII letters and digits of the name (other characters become `-`) behind
//! the player's number, so every name maps to a distinct, safe file name. Every page is
//! written as [`crate::output`] writes files: never over an input, replaced only once
//! complete.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;

use podium::frags::{FragMatrix, FragRanking, FragStanding, PlayerId};

use super::ranking::{GameRow, KillRecord, Watch};
use super::{FlagAction, GameEnd, GameInfo, GameType, LogSummary, Team};
use crate::output::{Inputs, Output, OutputError};

#[derive(Debug, Default)]
struct PlayerData {
    aliases: BTreeSet<String>,
    weapons: HashMap<String, u32>,
    victims: HashMap<PlayerId, u32>,
    killers: HashMap<PlayerId, u32>,
    /// (index into games, strength after).
    history: Vec<(usize, f64)>,
    flags: [u32; 4],
}

#[derive(Debug, Default, Clone, Copy)]
struct PlayerGame {
    frags: u32,
    deaths: u32,
    /// Own suicides (the killer is the victim), as the table of `podium frags` counts them.
    suicides: u32,
    /// Deaths by the world (`<world>` killed the player).
    world_deaths: u32,
    team_kills: u32,
    captures: u32,
    score: Option<i32>,
    streak: u32,
    best_streak: u32,
    strength_after: f64,
    order: usize,
}

impl PlayerGame {
    /// The score a game without the log's own scoreboard is ordered by: frags less own
    /// suicides and deaths by the world, as Quake 3 counts it.
    fn frag_score(&self) -> i64 {
        i64::from(self.frags) - i64::from(self.suicides) - i64::from(self.world_deaths)
    }
}

#[derive(Debug, Clone)]
struct FeedLine {
    time: u32,
    killer: Option<PlayerId>,
    victim: PlayerId,
    weapon: String,
    team_kill: bool,
}

#[derive(Debug)]
struct GameData {
    number: u32,
    file: String,
    map: String,
    game_type: String,
    kind: GameType,
    end: Option<GameEnd>,
    exit: Option<String>,
    /// The log's final team score (`red:r  blue:b`), as it gives it.
    team_score: Option<(i32, i32)>,
    /// Each player's team, the last the log gave them in this game.
    teams: HashMap<PlayerId, Team>,
    /// Flag captures counted from the `CTF:` lines, by the capturer's team: red, blue.
    team_captures: [u32; 2],
    /// Whether the game has `CTF:` lines at all (OpenArena writes them, ioq3 does not).
    flag_lines: bool,
    rows: HashMap<PlayerId, PlayerGame>,
    weapons: HashMap<String, u32>,
    kills: u32,
    first: Vec<FeedLine>,
    last: std::collections::VecDeque<FeedLine>,
}

/// Everything the site shows that the ranking does not keep.
#[derive(Debug, Default)]
pub struct SiteData {
    players: Vec<PlayerData>,
    games: Vec<GameData>,
    current: Option<GameData>,
}

const FEED: usize = 8;

impl SiteData {
    /// Makes room for a player.
    fn ensure_player(&mut self, id: PlayerId) {
        if self.players.len() <= id.index() {
            self.players
                .resize_with(id.index() + 1, PlayerData::default);
        }
    }

    fn row(&mut self, p: PlayerId) -> Option<&mut PlayerGame> {
        let g = self.current.as_mut()?;
        let order = g.rows.len();
        Some(g.rows.entry(p).or_insert(PlayerGame {
            order,
            ..PlayerGame::default()
        }))
    }
}

impl Watch for SiteData {
    fn new_player(&mut self, id: PlayerId) {
        self.ensure_player(id);
    }

    fn alias(&mut self, id: PlayerId, old: &str) {
        self.ensure_player(id);
        self.players[id.index()].aliases.insert(old.to_string());
    }

    fn game_start(&mut self, info: &GameInfo, file: &str) {
        self.current = Some(GameData {
            number: info.number,
            file: std::path::Path::new(file)
                .file_name()
                .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned()),
            map: info.map.clone(),
            game_type: info.game_type.label(),
            kind: info.game_type,
            end: None,
            exit: None,
            team_score: None,
            teams: HashMap::new(),
            team_captures: [0; 2],
            flag_lines: false,
            rows: HashMap::new(),
            weapons: HashMap::new(),
            kills: 0,
            first: Vec::new(),
            last: std::collections::VecDeque::new(),
        });
    }

    fn team(&mut self, id: PlayerId, team: Team) {
        if let Some(g) = &mut self.current {
            g.teams.insert(id, team);
        }
    }

    fn kill(&mut self, k: KillRecord<'_>) {
        self.ensure_player(k.victim);
        let suicide = k.killer.map_or(true, |x| x == k.victim);
        if let Some(r) = self.row(k.victim) {
            r.deaths += 1;
            r.streak = 0;
            match k.killer {
                None => r.world_deaths += 1,
                Some(_) if suicide => r.suicides += 1,
                Some(_) => {}
            }
        }
        if let Some(killer) = k.killer.filter(|_| !suicide) {
            self.ensure_player(killer);
            let p = &mut self.players[killer.index()];
            *p.weapons.entry(k.weapon.to_string()).or_default() += 1;
            *p.victims.entry(k.victim).or_default() += 1;
            *self.players[k.victim.index()]
                .killers
                .entry(killer)
                .or_default() += 1;
            if let Some(r) = self.row(killer) {
                r.frags += 1;
                if k.team_kill {
                    r.team_kills += 1;
                } else {
                    r.streak += 1;
                    r.best_streak = r.best_streak.max(r.streak);
                }
            }
        }
        if let Some(g) = &mut self.current {
            g.kills += 1;
            *g.weapons.entry(k.weapon.to_string()).or_default() += 1;
            let line = FeedLine {
                time: k.time,
                killer: k.killer,
                victim: k.victim,
                weapon: k.weapon.to_string(),
                team_kill: k.team_kill,
            };
            if g.first.len() < FEED {
                g.first.push(line);
            } else {
                if g.last.len() == FEED {
                    g.last.pop_front();
                }
                g.last.push_back(line);
            }
        }
    }

    fn flag(&mut self, p: PlayerId, action: FlagAction) {
        self.ensure_player(p);
        let i = match action {
            FlagAction::Taken => 0,
            FlagAction::Captured => 1,
            FlagAction::Returned => 2,
            FlagAction::CarrierFragged => 3,
        };
        self.players[p.index()].flags[i] += 1;
        if let Some(g) = &mut self.current {
            g.flag_lines = true;
        }
        if action == FlagAction::Captured {
            if let Some(g) = &mut self.current {
                match g.teams.get(&p) {
                    Some(Team::Red) => g.team_captures[0] += 1,
                    Some(Team::Blue) => g.team_captures[1] += 1,
                    _ => {}
                }
            }
            if let Some(r) = self.row(p) {
                r.captures += 1;
            }
        }
    }

    fn team_score(&mut self, red: i32, blue: i32) {
        if let Some(g) = &mut self.current {
            g.team_score = Some((red, blue));
        }
    }

    fn score(&mut self, p: PlayerId, score: i32) {
        self.ensure_player(p);
        if let Some(r) = self.row(p) {
            r.score = Some(score);
        }
    }

    fn exit(&mut self, reason: String) {
        if let Some(g) = &mut self.current {
            g.exit = Some(reason);
        }
    }

    fn drop_game(&mut self) {
        self.current = None;
    }

    fn end_game(&mut self, end: GameEnd, rows: Vec<GameRow>) {
        let Some(mut g) = self.current.take() else {
            return;
        };
        g.end = Some(end);
        let index = self.games.len();
        for r in rows {
            self.ensure_player(r.player);
            self.players[r.player.index()]
                .history
                .push((index, r.strength_after));
            let order = g.rows.len();
            g.rows
                .entry(r.player)
                .or_insert(PlayerGame {
                    order,
                    ..PlayerGame::default()
                })
                .strength_after = r.strength_after;
        }
        self.games.push(g);
    }
}

/// `&`, `<`, `>`, `"`, `'` escaped for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The file name of a player's page: `<id>-<ascii letters and digits of the name>.html`.
pub fn player_file(id: PlayerId, name: &str) -> String {
    let mut slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(40)
        .collect();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        format!("{}.html", id.0)
    } else {
        format!("{}-{}.html", id.0, slug)
    }
}

/// Over a wide table, shown on a narrow screen only (`.swipe` in [`STYLE`]).
const SWIPE: &str = "<p class=\"swipe\">Swipe the table sideways for more columns →</p>\n";

/// The pages' style. A table wider than the page scrolls within itself (so the page never
/// scrolls sideways), with a shadow at the side where more columns are (backgrounds that
/// scroll with the content cover the shadows that stay put, Lea Verou's scrolling
/// shadows); the first column of `.pin1` and the second of `.pin2` stay in view while the
/// others scroll under them. Header cells keep to one line.
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f4;color:#222}\
header{background:#2b2d42;color:#fff;padding:.8em 1.2em}header a{color:#fff}\
main{padding:1em 1.2em;max-width:66em}\
table{border-collapse:collapse;margin:.5em 0 1.5em;display:block;max-width:100%;overflow-x:auto;\
background:linear-gradient(to right,#f6f6f4 30%,#f6f6f400) left/2.5em 100% no-repeat local,\
linear-gradient(to left,#f6f6f4 30%,#f6f6f400) right/2.5em 100% no-repeat local,\
radial-gradient(farthest-side at 0 50%,#0003,#0000) left/.8em 100% no-repeat scroll,\
radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/.8em 100% no-repeat scroll}\
th,td{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:right}\
th{background:#e9e9e6;white-space:nowrap}td.l,th.l{text-align:left}a{color:#1d4e89}.swipe{display:none}\
.pin1 tr>:first-child,.pin2 tr>:nth-child(2){position:sticky;left:0;z-index:1;background:#f6f6f4;box-shadow:inset -1px 0 #ddd}\
.pin1 tr>th:first-child,.pin2 tr>th:nth-child(2){background:#e9e9e6}\
.muted{color:#777}svg{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}h2{margin-top:1.5em}\
.chart{margin:0;max-width:44rem;font-size:.8rem;color:#555}.chart .plot{position:relative;padding-left:3.5em}\
.chart svg{display:block;width:100%}.chart .y{position:absolute;left:0;width:3em;text-align:right;transform:translateY(-50%)}\
.chart .plot,.chart .x{margin-right:1.5em}.chart .x{position:relative;height:1.4em;margin-left:3.5em}\
.chart .x span{position:absolute;top:.2em;transform:translateX(-50%);white-space:nowrap}\
.chart figcaption{text-align:center;padding:.3em 1.5em 0 3.5em}\
@media (max-width:40em){main{padding:.8em .6em}th,td{padding:.25em .35em}\
.swipe{display:block;margin:.5em 0 -.3em;font-size:.85em;color:#555}}";

fn page(title: &str, root: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header><a href=\"{root}index.html\">podium frags</a> · {}</header>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title),
        escape(title)
    )
}

fn name_link(ranking: &FragRanking, id: PlayerId, root: &str) -> String {
    let name = ranking.name(id);
    format!(
        "<a href=\"{root}players/{}\">{}</a>",
        escape(&player_file(id, name)),
        escape(name)
    )
}

fn clock(tenths: u32) -> String {
    let s = tenths / 10;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The strength-over-time chart of one player: the line and its points as inline SVG,
/// which shrinks with the page; the axis labels as HTML text beside and under it, in
/// CSS px, so that they keep their size on a phone (`.chart` in [`STYLE`]). The y axis
/// has a tick and a grid line at every multiple of a round step ([`y_step`]) up to the
/// first at or above the best strength; the x axis labels the points with the numbers of
/// their games, at most [`X_LABELS`] of them, evenly spread, the first and the last
/// always.
fn chart(history: &[(usize, f64)]) -> String {
    // The plot's own margins, in viewBox units: the points' circles stay inside.
    let (w, h, pad) = (600.0, 200.0, 8.0);
    let max = history
        .iter()
        .map(|&(_, g)| g)
        .fold(0.0f64, f64::max)
        .max(1.0);
    let step = y_step(max);
    let ticks = (max / step).ceil().max(1.0);
    let top_value = ticks * step;
    let n = history.len();
    let x = |i: usize| {
        if n <= 1 {
            w / 2.0
        } else {
            pad + (w - 2.0 * pad) * i as f64 / (n - 1) as f64
        }
    };
    let y = |g: f64| pad + (h - 2.0 * pad) * (1.0 - g / top_value);
    let values: Vec<f64> = (0..=ticks as u64).map(|k| k as f64 * step).collect();
    let mut out = String::from("<figure class=\"chart\">\n<div class=\"plot\">\n");
    // The labels' heights, in percent of the plot's, from the top.
    for &v in values.iter().rev() {
        let _ = write!(
            out,
            "<span class=\"y\" style=\"top:{}%\">{v:.0}</span>",
            percent(y(v) / h)
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"strength after each game\">"
    );
    for &v in &values[1..] {
        let _ = writeln!(
            out,
            "<line x1=\"{pad}\" y1=\"{gy:.1}\" x2=\"{r}\" y2=\"{gy:.1}\" stroke=\"#e4e4e4\" vector-effect=\"non-scaling-stroke\"/>",
            gy = y(v),
            r = w - pad
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"#999\" vector-effect=\"non-scaling-stroke\"/><line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#999\" vector-effect=\"non-scaling-stroke\"/>",
        b = h - pad,
        r = w - pad
    );
    let points: Vec<String> = history
        .iter()
        .enumerate()
        .map(|(i, &(_, g))| format!("{:.1},{:.1}", x(i), y(g)))
        .collect();
    let _ = writeln!(
        out,
        "<polyline fill=\"none\" stroke=\"#1d4e89\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\" points=\"{}\"/>",
        points.join(" ")
    );
    for (i, &(game, g)) in history.iter().enumerate() {
        let _ = writeln!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#1d4e89\"><title>game {}: {g:.1}</title></circle>",
            x(i),
            y(g),
            game + 1
        );
    }
    out.push_str("</svg>\n</div>\n<div class=\"x\">");
    for i in x_labels(n) {
        let _ = write!(
            out,
            "<span style=\"left:{}%\">{}</span>",
            percent(x(i) / w),
            history[i].0 + 1
        );
    }
    let games = count(n as u64, "game");
    let _ = writeln!(
        out,
        "</div>\n<figcaption>game number ({games} played)</figcaption>\n</figure>"
    );
    out
}

/// At most this many games are labelled under a chart: their numbers fit side by side on
/// a phone.
const X_LABELS: usize = 6;

/// The points of a chart of `n` games that get a label: all when they are at most
/// [`X_LABELS`], else that many evenly spread, the first and the last among them.
fn x_labels(n: usize) -> Vec<usize> {
    if n <= X_LABELS {
        return (0..n).collect();
    }
    let spans = X_LABELS - 1;
    (0..X_LABELS)
        .map(|k| (k * (n - 1) + spans / 2) / spans)
        .collect()
}

/// The step between the y axis's ticks: the least of 1, 2, 5, 10, 20, 50, … that needs
/// at most 5 steps to reach `max`.
fn y_step(max: f64) -> f64 {
    let mut magnitude = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            let step = m * magnitude;
            if max / step <= 5.0 || !step.is_finite() {
                return step;
            }
        }
        magnitude *= 10.0;
    }
}

/// A fraction as a percentage for CSS, to a tenth at most: `0.04` is `4`, `0.27` is `27`,
/// `1.0 / 3.0` is `33.3`.
fn percent(fraction: f64) -> String {
    let p = (fraction * 1000.0).round() / 10.0;
    format!("{p}")
}

fn top<K: Copy + Ord>(map: &HashMap<K, u32>) -> Option<(K, u32)> {
    map.iter()
        .map(|(&k, &v)| (k, v))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
}

/// The file in the site's directory that lists the pages the site wrote, one path a line
/// relative to the directory: the pages a later site does not write again are removed,
/// and nothing else.
pub const PAGE_LIST: &str = ".podium-frags-pages";

/// Whether `path` (relative to the site's directory) names a page the site writes:
/// `index.html`, `players/<letters, digits and ->.html`, `games/<digits>.html`.
fn is_page(path: &str) -> bool {
    if path == "index.html" {
        return true;
    }
    let Some((folder, file)) = path.split_once('/') else {
        return false;
    };
    let Some(stem) = file.strip_suffix(".html") else {
        return false;
    };
    !stem.is_empty()
        && match folder {
            "players" => stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "games" => stem.chars().all(|c| c.is_ascii_digit()),
            _ => false,
        }
}

/// The pages listed in `dir`'s [`PAGE_LIST`] (none when there is no list); lines that
/// do not name a page of the site are left out, so never removed.
fn listed_pages(dir: &Path) -> Result<BTreeSet<String>, OutputError> {
    let path = dir.join(PAGE_LIST);
    match fs::read(&path) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| is_page(l))
            .map(str::to_string)
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeSet::new()),
        Err(source) => Err(OutputError::Io {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Writes `pages` as `dir`'s [`PAGE_LIST`].
fn list_pages(dir: &Path, pages: &BTreeSet<String>, inputs: &Inputs) -> Result<(), OutputError> {
    let mut text = String::new();
    for p in pages {
        text.push_str(p);
        text.push('\n');
    }
    put(&dir.join(PAGE_LIST), &text, inputs)
}

/// Writes the site into `dir` (created if missing), never over one of `inputs` (see
/// [`crate::output`]). Pages of an earlier site in `dir` are replaced; those it listed in
/// [`PAGE_LIST`] that this site does not write (players and games no longer in it) are
/// removed, and no other file. The list is written first with the pages of both sites,
/// so that a run stopped halfway leaves none unlisted.
///
/// # Errors
/// [`OutputError`] naming the page or directory that cannot be written, or the old page
/// that cannot be removed.
pub fn write(
    dir: &Path,
    site: &SiteData,
    ranking: &FragRanking,
    matrix: &FragMatrix,
    summary: &LogSummary,
    inputs: &[&str],
) -> Result<(), OutputError> {
    if dir.exists() && !dir.is_dir() {
        return Err(OutputError::NotADirectory {
            path: dir.display().to_string(),
        });
    }
    let inputs = Inputs::new(inputs);
    let standings = shown_standings(ranking);
    let players: Vec<String> = standings
        .iter()
        .map(|s| player_file(s.standing.id, ranking.name(s.standing.id)))
        .collect();
    let mut pages = BTreeSet::from(["index.html".to_string()]);
    pages.extend(players.iter().map(|p| format!("players/{p}")));
    pages.extend((1..=site.games.len()).map(|n| format!("games/{n}.html")));
    // Every page may be written (none is an input, a directory, …) before any is.
    inputs.check(&dir.join(PAGE_LIST))?;
    for page in &pages {
        inputs.check(&dir.join(page))?;
    }
    for sub in ["players", "games"] {
        let d = dir.join(sub);
        fs::create_dir_all(&d).map_err(|source| OutputError::Io {
            path: d.display().to_string(),
            source,
        })?;
    }
    let old = listed_pages(dir)?;
    let stale: Vec<&String> = old.difference(&pages).collect();
    list_pages(dir, &old.union(&pages).cloned().collect(), &inputs)?;
    put(
        &dir.join("index.html"),
        &index_page(site, ranking, &standings, summary),
        &inputs,
    )?;
    for (s, name) in standings.iter().zip(&players) {
        put(
            &dir.join("players").join(name),
            &player_page(site, ranking, matrix, &standings, s),
            &inputs,
        )?;
    }
    for i in 0..site.games.len() {
        put(
            &dir.join("games").join(format!("{}.html", i + 1)),
            &game_page(site, ranking, i),
            &inputs,
        )?;
    }
    if !stale.is_empty() {
        for page in stale {
            let path = dir.join(page);
            if inputs.check(&path).is_err() {
                continue; // read as an input: never removed
            }
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(OutputError::Io {
                        path: path.display().to_string(),
                        source,
                    })
                }
            }
        }
        list_pages(dir, &pages, &inputs)?;
    }
    Ok(())
}

/// Writes one page.
fn put(path: &Path, text: &str, inputs: &Inputs) -> Result<(), OutputError> {
    let mut out = Output::file(path, inputs)?;
    out.write_all(text.as_bytes())
        .map_err(|source| OutputError::Io {
            path: path.display().to_string(),
            source,
        })?;
    out.commit()
}

/// A row of the ranking as the site shows it: the rows, their order and their positions
/// are those of the table of `podium frags`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownStanding {
    /// The player's standing (its `position` is the ranking's, before players who only
    /// connected are left out).
    pub standing: FragStanding,
    /// The 1-based position among the rows shown: rows of equal strength share one.
    pub position: usize,
    /// Whether another row shares the position.
    pub shared: bool,
}

impl ShownStanding {
    /// The position as the table writes it: `8=` when shared, else `8`.
    #[must_use]
    pub fn mark(&self) -> String {
        if self.shared {
            format!("{}=", self.position)
        } else {
            self.position.to_string()
        }
    }
}

/// The rows of the ranking, best first, as the table of `podium frags` lists them: every
/// player who fragged, died or played a rated game (not those who only connected); equal
/// strengths share a position, and among them the better K/D comes first, then more
/// frags, then the name.
#[must_use]
pub fn shown_standings(ranking: &FragRanking) -> Vec<ShownStanding> {
    let mut rows: Vec<ShownStanding> = Vec::new();
    let mut last = None;
    let mut position = 0;
    for s in ranking.standings() {
        if s.stats.games == 0 && s.stats.deaths == 0 && s.stats.frags == 0 {
            continue;
        }
        if last != Some(s.strength) {
            position = rows.len() + 1;
            last = Some(s.strength);
        }
        rows.push(ShownStanding {
            standing: s,
            position,
            shared: false,
        });
    }
    rows.sort_by(|a, b| {
        let (sa, sb) = (&a.standing.stats, &b.standing.stats);
        a.position
            .cmp(&b.position)
            .then(kd(sb).total_cmp(&kd(sa)))
            .then(sb.frags.cmp(&sa.frags))
            .then(a.standing.player.cmp(&b.standing.player))
    });
    for i in 0..rows.len() {
        let p = rows[i].position;
        rows[i].shared = rows.iter().filter(|r| r.position == p).count() > 1;
    }
    rows
}

/// Frags per death, a death at least.
fn kd(s: &podium::frags::FragStats) -> f64 {
    f64::from(s.frags) / f64::from(s.deaths.max(1))
}

/// `n` with its thousands marked (`5,306`), as the summary line of `podium frags` and
/// the site write it.
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and `thing`, plural unless `n` is 1: `1 game`, `2,000 kills`.
pub(crate) fn count(n: u64, thing: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {thing}{s}", thousands(n))
}

/// What the logs held, as the summary line of `podium frags` on standard error says it,
/// and which games and players the site shows.
fn read_sentence(site: &SiteData, shown: usize, summary: &LogSummary) -> String {
    let read = format!("Read {}.", summary.in_words());
    let rated = site.games.len() as u64;
    let without = u64::from(summary.games).saturating_sub(rated);
    let left_out = if without == 0 {
        String::new()
    } else {
        format!(" (the other {} had none)", thousands(without))
    };
    let players = if shown == 1 { "player" } else { "players" };
    format!(
        "<p>{}</p>\n<p>Rated and listed below: the {} with kills or captures{left_out}, and the {} {players} in them.</p>",
        escape(&read),
        count(rated, "game"),
        thousands(shown as u64)
    )
}

/// The ranking page, `index.html`: the ranking and the list of games.
#[must_use]
pub fn index_page(
    site: &SiteData,
    ranking: &FragRanking,
    standings: &[ShownStanding],
    summary: &LogSummary,
) -> String {
    let mut body = String::new();
    let _ = writeln!(body, "{}", read_sentence(site, standings.len(), summary));
    // The table's columns: own suicides apart from deaths by the world.
    body.push_str(&format!("<h2>Ranking</h2>\n{SWIPE}<table class=\"pin2\">\n<tr><th>#</th><th class=\"l\">player</th><th>strength</th><th>frags</th><th>deaths</th><th>suicides</th><th>world</th><th>team k.</th><th>caps</th><th>games</th><th>K/D</th></tr>\n"));
    for s in standings {
        let st = &s.standing.stats;
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td class=\"l\">{}</td><td>{:.1}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td></tr>",
            s.mark(),
            name_link(ranking, s.standing.id, ""),
            s.standing.strength,
            st.frags,
            st.deaths,
            st.suicides.saturating_sub(st.world_deaths),
            st.world_deaths,
            st.team_kills,
            st.captures,
            st.games,
            kd(st)
        );
    }
    let floor = standings
        .iter()
        .filter(|s| s.standing.strength == 0.0)
        .count();
    if floor > 1 {
        let _ = writeln!(
            body,
            "</table>\n<p class=\"muted\">{floor} players are at the floor of strength 0 and share their position, the better K/D first.</p>"
        );
    } else {
        body.push_str("</table>\n");
    }
    body.push_str("<h2>Games</h2>\n<table>\n<tr><th>#</th><th class=\"l\">map</th><th class=\"l\">type</th><th>players</th><th>kills</th><th class=\"l\">winner</th></tr>\n");
    for (i, g) in site.games.iter().enumerate() {
        let winner = if g.kind.is_team() {
            match g.team_score {
                Some((red, blue)) if red > blue => format!("Red {red} : {blue}"),
                Some((red, blue)) if blue > red => format!("Blue {blue} : {red}"),
                Some((red, blue)) => format!("draw {red} : {blue}"),
                None => "<span class=\"muted\">no team score</span>".to_string(),
            }
        } else {
            best_of(g)
                .map(|p| name_link(ranking, p, ""))
                .unwrap_or_default()
        };
        let _ = writeln!(
            body,
            "<tr><td><a href=\"games/{n}.html\">{n}</a></td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{winner}</td></tr>",
            escape(&g.map),
            escape(&g.game_type),
            g.rows.len(),
            g.kills,
            n = i + 1
        );
    }
    body.push_str("</table>\n<p class=\"muted\">Winner: the best score of the game's scoreboard (the log's, else frags less suicides and deaths by the world); in a team game the team ahead in the final team score the log gives (its line <code>red: blue:</code>), with that score.</p>\n<p class=\"muted\">Strength: the dynamic frag ranking of Michael Becker's article on frag rankings (2001; every frag a 1:0 duel, Elo-like update, floored at 0).</p>\n");
    page("Ranking", "", &body)
}

/// The page of player `s`, one of `standings`: their games, strength chart, rivals and
/// weapons.
#[must_use]
pub fn player_page(
    site: &SiteData,
    ranking: &FragRanking,
    matrix: &FragMatrix,
    standings: &[ShownStanding],
    s: &ShownStanding,
) -> String {
    let id = s.standing.id;
    let p = &site.players[id.index()];
    let st = &s.standing.stats;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<h1>{}</h1>\n<p>Place {} of {}, strength <b>{:.1}</b>. {}, {}, {}, {} by the world, {}, {} in {}.</p>",
        escape(ranking.name(id)),
        s.mark(),
        standings.len(),
        s.standing.strength,
        count(u64::from(st.frags), "frag"),
        count(u64::from(st.deaths), "death"),
        count(u64::from(st.suicides.saturating_sub(st.world_deaths)), "suicide"),
        count(u64::from(st.world_deaths), "death"),
        count(u64::from(st.team_kills), "team kill"),
        count(u64::from(st.captures), "capture"),
        count(u64::from(st.games), "game")
    );
    if !p.aliases.is_empty() {
        let names: Vec<String> = p.aliases.iter().map(|a| escape(a)).collect();
        let _ = writeln!(body, "<p>Also played as: {}.</p>", names.join(", "));
    }
    body.push_str("<h2>Strength after each game</h2>\n");
    body.push_str(&chart(&p.history));
    body.push_str("<h2>Rivals</h2>\n<ul>\n");
    match top(&p.victims) {
        Some((v, n)) => {
            let back = matrix.get(v, id);
            let _ = writeln!(
                body,
                "<li>Favourite victim: {} (fragged {}, fragged back {})</li>",
                name_link(ranking, v, "../"),
                count(u64::from(n), "time"),
                count(u64::from(back), "time")
            );
        }
        None => body.push_str("<li>Favourite victim: none</li>\n"),
    }
    match top(&p.killers) {
        Some((k, n)) => {
            let back = matrix.get(id, k);
            let _ = writeln!(
                body,
                "<li>Nemesis: {} (fragged this player {}, fragged back {})</li>",
                name_link(ranking, k, "../"),
                count(u64::from(n), "time"),
                count(u64::from(back), "time")
            );
        }
        None => body.push_str("<li>Nemesis: none</li>\n"),
    }
    body.push_str("</ul>\n<h2>Weapons</h2>\n");
    let mut weapons: Vec<(&String, &u32)> = p.weapons.iter().collect();
    weapons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if weapons.is_empty() {
        body.push_str("<p class=\"muted\">No frags.</p>\n");
    } else {
        body.push_str(
            "<table>\n<tr><th class=\"l\">means of death</th><th>frags</th><th>share</th></tr>\n",
        );
        let counts: Vec<u32> = weapons.iter().map(|w| *w.1).collect();
        for ((w, n), tenths) in weapons.iter().zip(shares(&counts, 1000)) {
            let _ = writeln!(
                body,
                "<tr><td class=\"l\">{}</td><td>{n}</td><td>{}.{}%</td></tr>",
                escape(&weapon_name(w)),
                tenths / 10,
                tenths % 10
            );
        }
        body.push_str("</table>\n");
    }
    if p.flags.iter().any(|&n| n > 0) {
        let _ = writeln!(
            body,
            "<p>Flags: {} taken, {} captured, {} returned, {} carriers fragged.</p>",
            p.flags[0], p.flags[1], p.flags[2], p.flags[3]
        );
    }
    body.push_str(&format!("<h2>Games</h2>\n{SWIPE}<table class=\"pin1\">\n<tr><th>game</th><th class=\"l\">map</th><th>frags</th><th>deaths</th><th>suicides</th><th>world</th><th>score</th><th>strength after</th></tr>\n"));
    for &(gi, g) in &p.history {
        let game = &site.games[gi];
        let r = game.rows.get(&id).copied().unwrap_or_default();
        let _ = writeln!(
            body,
            "<tr><td><a href=\"../games/{n}.html\">{n}</a></td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{g:.1}</td></tr>",
            escape(&game.map),
            r.frags,
            r.deaths,
            r.suicides,
            r.world_deaths,
            r.score.map(|s| s.to_string()).unwrap_or_default(),
            n = gi + 1
        );
    }
    body.push_str("</table>\n");
    page(ranking.name(id), "../", &body)
}

/// The page of game `i` (0-based) of the site: scoreboard, weapons and kill feed.
#[must_use]
pub fn game_page(site: &SiteData, ranking: &FragRanking, i: usize) -> String {
    let g = &site.games[i];
    let mut body = String::new();
    let end = match g.end {
        Some(GameEnd::Shutdown) | None => "shut down",
        Some(GameEnd::CutOff) => "cut off (no shutdown line)",
        Some(GameEnd::EndOfInput) => "still running when the log ended",
    };
    let _ = writeln!(
        body,
        "<h1>Game {}</h1>\n<p>Map <b>{}</b>, {}; game {} of {}. Ended: {}{}.</p>",
        i + 1,
        escape(&g.map),
        escape(&g.game_type),
        g.number,
        escape(&g.file),
        end,
        // The log's own reason ("Timelimit hit.") without its full stop: the sentence
        // ends after it.
        g.exit
            .as_ref()
            .map(|e| format!(" ({})", escape(e.trim_end_matches('.'))))
            .unwrap_or_default()
    );
    let teams = g.kind.is_team();
    if teams {
        body.push_str(&teams_part(g));
    }
    let team_th = if teams {
        "<th class=\"l\">team</th>"
    } else {
        ""
    };
    let _ = writeln!(
        body,
        "<h2>Scoreboard</h2>\n{SWIPE}<table class=\"pin1\">\n<tr><th class=\"l\">player</th>{team_th}<th>score</th><th>frags</th><th>deaths</th><th>suicides</th><th>world</th><th>team kills</th><th>captures</th><th>best streak</th><th>strength after</th></tr>"
    );
    let mut rows: Vec<(&PlayerId, &PlayerGame)> = g.rows.iter().collect();
    // In a team game the players of a team together: red, blue, then any others.
    let side = |p: &PlayerId| {
        if teams {
            team_order(g.teams.get(p).copied())
        } else {
            0
        }
    };
    rows.sort_by(|a, b| {
        let sa = a.1.score.map_or_else(|| a.1.frag_score(), i64::from);
        let sb = b.1.score.map_or_else(|| b.1.frag_score(), i64::from);
        side(a.0)
            .cmp(&side(b.0))
            .then(sb.cmp(&sa))
            .then(a.1.order.cmp(&b.1.order))
    });
    for (&p, r) in rows {
        let team_td = if teams {
            format!(
                "<td class=\"l\">{}</td>",
                team_name(g.teams.get(&p).copied())
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            body,
            "<tr><td class=\"l\">{}</td>{team_td}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td></tr>",
            name_link(ranking, p, "../"),
            r.score.map(|s| s.to_string()).unwrap_or_default(),
            r.frags,
            r.deaths,
            r.suicides,
            r.world_deaths,
            r.team_kills,
            r.captures,
            r.best_streak,
            r.strength_after
        );
    }
    body.push_str("</table>\n<h2>Kill feed</h2>\n");
    let _ = writeln!(body, "<p>{} kills.</p>", g.kills);
    let mut weapons: Vec<(&String, &u32)> = g.weapons.iter().collect();
    weapons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    body.push_str("<table>\n<tr><th class=\"l\">means of death</th><th>kills</th></tr>\n");
    for (w, n) in weapons {
        let _ = writeln!(
            body,
            "<tr><td class=\"l\">{}</td><td>{n}</td></tr>",
            escape(&weapon_name(w))
        );
    }
    body.push_str("</table>\n");
    let feed = |body: &mut String, title: &str, lines: &mut dyn Iterator<Item = &FeedLine>| {
        let _ = writeln!(body, "<h3>{title}</h3>\n<ul>");
        for l in lines {
            let who = match l.killer {
                None => "&lt;world&gt;".to_string(),
                Some(k) => name_link(ranking, k, "../"),
            };
            let tk = if l.team_kill { " (team kill)" } else { "" };
            let _ = writeln!(
                body,
                "<li>{} {who} killed {} by {}{tk}</li>",
                clock(l.time),
                name_link(ranking, l.victim, "../"),
                escape(&weapon_name(&l.weapon))
            );
        }
        body.push_str("</ul>\n");
    };
    feed(&mut body, "First kills", &mut g.first.iter());
    if !g.last.is_empty() {
        feed(&mut body, "Last kills", &mut g.last.iter());
    }
    page(&format!("Game {} · {}", i + 1, g.map), "../", &body)
}

/// `counts` as shares of `units` (1000: tenths of a percent) that add up to `units`:
/// each share rounded down, then the units left over given one each to the shares with
/// the largest remainders (the largest-remainder method; of equal remainders, the
/// earlier share first). Rounding each share on its own can add up to 101%.
fn shares(counts: &[u32], units: u64) -> Vec<u64> {
    let total: u64 = counts.iter().map(|&n| u64::from(n)).sum();
    if total == 0 {
        return vec![0; counts.len()];
    }
    let mut out: Vec<u64> = counts
        .iter()
        .map(|&n| u64::from(n) * units / total)
        .collect();
    let left = units - out.iter().sum::<u64>();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    // Stable: equal remainders keep their order.
    order.sort_by_key(|&i| std::cmp::Reverse(u64::from(counts[i]) * units % total));
    for &i in order
        .iter()
        .take(usize::try_from(left).unwrap_or(usize::MAX))
    {
        out[i] += 1;
    }
    out
}

/// A team as the pages name it; `None`: the log never gave the player a team (a log
/// that starts inside the game).
fn team_name(team: Option<Team>) -> &'static str {
    match team {
        Some(Team::Red) => "Red",
        Some(Team::Blue) => "Blue",
        Some(Team::Spectator) => "spectator",
        Some(Team::Free) => "no team",
        None => "unknown",
    }
}

/// The order of the teams on a scoreboard: red, blue, then the players of neither.
fn team_order(team: Option<Team>) -> u8 {
    match team {
        Some(Team::Red) => 0,
        Some(Team::Blue) => 1,
        Some(Team::Spectator) => 2,
        Some(Team::Free) => 3,
        None => 4,
    }
}

/// The result of a team game and its teams: the final team score as the log gives it
/// (its `red:  blue:` line; none when the log has none), each team's players and, when
/// the log has `CTF:` lines for the game, the captures counted from them, which need not
/// match the log's score. Without such lines (ioq3 writes none) no capture is counted,
/// and none is shown.
fn teams_part(g: &GameData) -> String {
    let mut out = String::new();
    match g.team_score {
        Some((red, blue)) => {
            let result = match red.cmp(&blue) {
                std::cmp::Ordering::Greater => format!("Red won {red} : {blue} against Blue"),
                std::cmp::Ordering::Less => format!("Blue won {blue} : {red} against Red"),
                std::cmp::Ordering::Equal => format!("Red and Blue drew {red} : {blue}"),
            };
            let _ = writeln!(
                out,
                "<p>{result}: the final team score the log gives (its line <code>red:{red} blue:{blue}</code>).</p>"
            );
        }
        None => out.push_str(
            "<p>The log gives no final team score (no line <code>red: blue:</code>).</p>\n",
        ),
    }
    let flags = g.flag_lines;
    let caps_th = if flags { "<th>captures</th>" } else { "" };
    let _ = writeln!(
        out,
        "<h2>Teams</h2>\n<table>\n<tr><th class=\"l\">team</th><th>players</th>{caps_th}<th>score</th></tr>"
    );
    for (i, team) in [Team::Red, Team::Blue].into_iter().enumerate() {
        let players = g
            .rows
            .keys()
            .filter(|p| g.teams.get(p) == Some(&team))
            .count();
        let caps = if flags {
            format!("<td>{}</td>", g.team_captures[i])
        } else {
            String::new()
        };
        let score = g
            .team_score
            .map(|(red, blue)| if i == 0 { red } else { blue }.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td class=\"l\">{}</td><td>{players}</td>{caps}<td>{score}</td></tr>",
            team_name(Some(team))
        );
    }
    out.push_str("</table>\n");
    if flags {
        let caps = (i64::from(g.team_captures[0]), i64::from(g.team_captures[1]));
        let differ = g
            .team_score
            .is_some_and(|(red, blue)| (i64::from(red), i64::from(blue)) != caps);
        let note = if differ {
            " They do not match the log's score here; the result above is the log's."
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<p class=\"muted\">Score: the log's final team score. Captures: the flags each team's players captured, counted from the log's <code>CTF:</code> lines.{note}</p>"
        );
    } else {
        out.push_str("<p class=\"muted\">Score: the log's final team score.</p>\n");
    }
    out
}

/// The game's best player: highest score, else most frags.
fn best_of(g: &GameData) -> Option<PlayerId> {
    g.rows
        .iter()
        .max_by(|a, b| {
            let sa = a.1.score.map_or_else(|| a.1.frag_score(), i64::from);
            let sb = b.1.score.map_or_else(|| b.1.frag_score(), i64::from);
            sa.cmp(&sb).then(b.1.order.cmp(&a.1.order))
        })
        .map(|(&p, _)| p)
}

/// A means of death as a person reads it: `MOD_ROCKET_SPLASH` is "rocket (splash)", the
/// means of Quake 3 (`g_combat.c`'s `modNames`) and Team Arena by their names; another
/// `MOD_X` is `x` in lower case with spaces; anything else as written.
fn weapon_name(raw: &str) -> String {
    let known = match raw {
        "MOD_SHOTGUN" => "shotgun",
        "MOD_GAUNTLET" => "gauntlet",
        "MOD_MACHINEGUN" => "machine gun",
        "MOD_GRENADE" => "grenade",
        "MOD_GRENADE_SPLASH" => "grenade (splash)",
        "MOD_ROCKET" => "rocket",
        "MOD_ROCKET_SPLASH" => "rocket (splash)",
        "MOD_PLASMA" => "plasma gun",
        "MOD_PLASMA_SPLASH" => "plasma gun (splash)",
        "MOD_RAILGUN" => "railgun",
        "MOD_LIGHTNING" => "lightning gun",
        "MOD_BFG" => "BFG",
        "MOD_BFG_SPLASH" => "BFG (splash)",
        "MOD_WATER" => "drowned",
        "MOD_SLIME" => "slime",
        "MOD_LAVA" => "lava",
        "MOD_CRUSH" => "crushed",
        "MOD_TELEFRAG" => "telefrag",
        "MOD_FALLING" => "fell",
        "MOD_SUICIDE" => "suicide (/kill)",
        "MOD_TARGET_LASER" => "laser",
        "MOD_TRIGGER_HURT" => "map hazard",
        "MOD_NAIL" => "nailgun",
        "MOD_CHAINGUN" => "chaingun",
        "MOD_PROXIMITY_MINE" => "proximity mine",
        "MOD_KAMIKAZE" => "kamikaze",
        "MOD_JUICED" => "juiced",
        "MOD_GRAPPLE" => "grapple",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    match raw.strip_prefix("MOD_") {
        Some(rest) if !rest.is_empty() => rest.to_ascii_lowercase().replace('_', " "),
        _ => raw.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_file_names() {
        assert_eq!(
            escape("<a href=\"x\">Tom & 'Jerry'</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
        assert_eq!(
            player_file(PlayerId(3), "Dono da Bola"),
            "3-Dono-da-Bola.html"
        );
        assert_eq!(
            player_file(PlayerId(4), "../../etc/passwd"),
            "4-etc-passwd.html"
        );
        assert_eq!(player_file(PlayerId(5), "ŁÓDŹ"), "5-D.html");
        assert_eq!(player_file(PlayerId(7), "ŻÓŁW"), "7-W.html");
        assert_eq!(player_file(PlayerId(8), "ąę"), "8.html");
        assert_eq!(player_file(PlayerId(6), "a/b\\c"), "6-a-b-c.html");
    }

    #[test]
    fn shares_add_up_to_the_whole() {
        // Rounded one by one to whole percent: 17 + 15 + 15 + 13 + 13 + 11 + 11 + 6 = 101.
        let doom = [8, 7, 7, 6, 6, 5, 5, 3];
        assert_eq!(shares(&doom, 100), [17, 15, 15, 13, 13, 11, 10, 6]);
        assert_eq!(shares(&doom, 1000), [170, 149, 149, 128, 128, 106, 106, 64]);
        // Thirds: 33.3 + 33.3 + 33.3 = 99.9, the tenth left over to the first.
        assert_eq!(shares(&[1, 1, 1], 1000), [334, 333, 333]);
        assert_eq!(shares(&[2, 1], 1000), [667, 333]);
        assert_eq!(shares(&[5], 1000), [1000]);
        assert_eq!(shares(&[], 1000), Vec::<u64>::new());
        assert_eq!(shares(&[0, 0], 1000), [0, 0]);
        for counts in [
            &[1u32, 2, 3, 4, 5, 6, 7][..],
            &[u32::MAX, u32::MAX, 1],
            &[999, 1],
        ] {
            assert_eq!(shares(counts, 1000).iter().sum::<u64>(), 1000, "{counts:?}");
        }
    }

    #[test]
    fn chart_ticks_are_round_and_few() {
        assert_eq!(y_step(1.0), 1.0);
        assert_eq!(y_step(4.0), 1.0);
        assert_eq!(y_step(5.0), 1.0);
        assert_eq!(y_step(5.5), 2.0);
        assert_eq!(y_step(65.8), 20.0);
        assert_eq!(y_step(120.0), 50.0);
        assert_eq!(y_step(250.0), 50.0);
        assert_eq!(y_step(251.0), 100.0);
        assert_eq!(y_step(4_000.0), 1_000.0);
        assert_eq!(x_labels(0), Vec::<usize>::new());
        assert_eq!(x_labels(1), [0]);
        assert_eq!(x_labels(6), [0, 1, 2, 3, 4, 5]);
        assert_eq!(x_labels(7), [0, 1, 2, 4, 5, 6]);
        assert_eq!(x_labels(40), [0, 8, 16, 23, 31, 39]);
        assert_eq!(x_labels(1500), [0, 300, 600, 899, 1199, 1499]);
        assert_eq!(percent(0.04), "4");
        assert_eq!(percent(1.0 / 3.0), "33.3");
        assert_eq!(percent(0.5), "50");
    }

    #[test]
    fn only_the_site_s_own_page_names_are_pages() {
        for page in [
            "index.html",
            "players/0-Ann.html",
            "players/12.html",
            "games/3.html",
        ] {
            assert!(is_page(page), "{page}");
        }
        for other in [
            "README",
            "style.css",
            "players/.html",
            "players/a b.html",
            "players/../x.html",
            "players/x/y.html",
            "games/x.html",
            "games/1.htm",
            "../index.html",
            "/etc/passwd",
            "other/1.html",
            "",
        ] {
            assert!(!is_page(other), "{other}");
        }
    }
}
