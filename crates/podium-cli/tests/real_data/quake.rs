//! The Quake 3 logs of `../shared/data/quake3`: every Kill line accounted for, per-game
//! frag counts against the logs' own final scoreboards, and the HTML site.

use std::collections::HashMap;
use std::fs::File;

use podium_io::quake::{GameType, Killer, QuakeEvent, QuakeLog};

use crate::util::{csv_rows, podium, shared_data, Dir};

fn log(name: &str) -> String {
    shared_data()
        .join("quake3")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn sum(rows: &[HashMap<String, String>], col: &str) -> u64 {
    rows.iter().map(|r| r[col].parse::<u64>().unwrap()).sum()
}

/// Kill lines of the file, counted the way grep would.
fn grep_count(path: &str, pattern: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.contains(pattern))
        .count()
}

#[test]
fn qgames_every_kill_line_is_accounted_for() {
    let path = log("qgames.log");
    assert_eq!(grep_count(&path, "Kill:"), 1069);
    let run = podium(&["frags", &path, "--format", "csv"]);
    let rows = csv_rows(run.ok());
    // frags of other players + suicides (own and by the world) = every Kill line.
    let frags = sum(&rows, "frags");
    let suicides = sum(&rows, "suicides");
    let world = sum(&rows, "world_deaths");
    assert_eq!(frags + suicides, 1069);
    assert_eq!(world, 240, "Kill: 1022 lines");
    assert_eq!(suicides - world, 61, "Kill lines with killer = victim");
    assert_eq!(frags, 1069 - 240 - 61);
    // Every death is somebody's frag or a suicide.
    assert_eq!(sum(&rows, "deaths"), 1069);
    // 10 names in the log; all but those who only connected appear.
    assert_eq!(rows.len(), 10);
    let zeh = rows.iter().find(|r| r["player"] == "Zeh").unwrap();
    assert_eq!(zeh["games"], "18");
    let stderr = &run.stderr;
    assert!(
        stderr.contains("5,306 lines, 21 games (1 cut off), 1,069 kills (240 by the world, 61 suicides, 0 team kills), 1 repaired; no lines skipped"),
        "{stderr}"
    );
}

#[test]
fn qgames_per_game_frags_match_the_final_scoreboards() {
    let path = log("qgames.log");
    let mut log = QuakeLog::new(File::open(&path).unwrap());
    // Per game: frags − suicides (own and by the world) per player, as Quake 3 scores FFA.
    let mut game_type = GameType::Ffa;
    let mut net: HashMap<_, i32> = HashMap::new();
    let mut kills_per_game = Vec::new();
    let mut kills = 0;
    let (mut checked, mut boards, mut ctf_boards) = (0, 0, 0);
    let mut in_board = false;
    while let Some(e) = log.next() {
        match e.unwrap() {
            QuakeEvent::GameStart(info) => {
                game_type = info.game_type;
                net.clear();
                kills = 0;
                in_board = false;
            }
            QuakeEvent::Kill { killer, victim, .. } => {
                kills += 1;
                match killer {
                    Killer::Player(k) if k != victim => *net.entry(k).or_default() += 1,
                    _ => *net.entry(victim).or_default() -= 1,
                }
            }
            QuakeEvent::Score { player, score, .. } => {
                if !in_board {
                    in_board = true;
                    boards += 1;
                    if game_type == GameType::Ctf {
                        ctf_boards += 1;
                    }
                }
                if game_type == GameType::Ffa {
                    let name = log.parser().player_name(player).to_string();
                    assert_eq!(
                        net.get(&player).copied().unwrap_or(0),
                        score,
                        "{name}: frags − suicides against the final score line"
                    );
                    checked += 1;
                }
            }
            QuakeEvent::GameEnd { .. } if kills > 0 => kills_per_game.push(kills),
            _ => {}
        }
    }
    assert_eq!(boards, 7, "games with a final score block");
    assert_eq!(ctf_boards, 2);
    assert_eq!(
        checked,
        4 + 6 + 6 + 6 + 6,
        "score lines of the five FFA boards"
    );
    assert_eq!(kills_per_game.len(), 19, "games with kills");
    assert_eq!(kills_per_game.iter().sum::<i32>(), 1069);
    assert_eq!(log.parser().summary().games, 21);
}

#[test]
fn osp_log_reads_with_its_trailing_kill_field() {
    let path = log("osp_ffa_match.log");
    assert_eq!(grep_count(&path, "Kill:"), 1437);
    let run = podium(&["frags", &path, "--format", "csv"]);
    let rows = csv_rows(run.ok());
    assert_eq!(sum(&rows, "frags") + sum(&rows, "suicides"), 1437);
    assert_eq!(sum(&rows, "world_deaths"), 25);
    assert_eq!(rows.len(), 10);
    assert!(
        run.stderr
            .contains("5,916 lines, 22 games (0 cut off), 1,437 kills"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("no lines skipped"), "{}", run.stderr);
    // Weapons are read without the trailing field: only MOD_ names, shown by name.
    let dir = Dir::new("osp-site");
    podium(&["frags", &path, "--html", &dir.path("site")]).ok();
    let page = std::fs::read_to_string(dir.0.join("site/games/1.html")).unwrap();
    assert!(page.contains(">machine gun</td>"), "{page}");
}

#[test]
fn both_logs_together_and_static_core() {
    let q = log("qgames.log");
    let o = log("osp_ffa_match.log");
    let rows = csv_rows(podium(&["frags", &q, &o, "--format", "csv"]).ok());
    assert_eq!(sum(&rows, "frags") + sum(&rows, "suicides"), 1069 + 1437);
    assert_eq!(rows.len(), 20);
    let core = csv_rows(podium(&["frags", &q, "--static", "--core", "10", "--format", "csv"]).ok());
    assert!(!core.is_empty() && core.len() < 10, "{core:?}");
    for r in &core {
        let g: f64 = r["strength"].parse().unwrap();
        assert!((-1.0..=1.0).contains(&g));
        assert_eq!(r["opponents"].parse::<usize>().unwrap(), core.len() - 1);
    }
}

#[test]
fn qgames_site_links_resolve_and_pages_are_well_formed() {
    let dir = Dir::new("qgames-site");
    let site = dir.path("site");
    podium(&["frags", &log("qgames.log"), "--html", &site]).ok();
    let pages = crate::site_check::check_site(std::path::Path::new(&site));
    // index + 10 players + 19 games with kills.
    assert_eq!(pages, 1 + 10 + 19);
    let root = std::path::Path::new(&site);
    let isg = std::fs::read_to_string(root.join("players/0-Isgalamido.html")).unwrap();
    assert!(isg.contains("<svg"), "strength chart");
    assert_eq!(
        isg.matches("<circle").count(),
        17,
        "one point per game played"
    );
    assert!(
        isg.contains("<td class=\"l\">railgun</td><td>47</td>"),
        "weapons"
    );
    assert!(isg
        .contains("Favourite victim: <a href=\"../players/3-Zeh.html\">Zeh</a> (fragged 47 times"));
    assert!(isg.contains("Nemesis: <a href=\"../players/3-Zeh.html\">Zeh</a>"));
    // The rename UnnamedPlayer → Maluquinho is followed.
    let mal = std::fs::read_to_string(root.join("players/8-Maluquinho.html")).unwrap();
    assert!(mal.contains("Also played as: UnnamedPlayer."), "{mal}");
    // The first CTF game with a scoreboard: red 8 : 6 blue, Isgalamido's 77.
    let game = std::fs::read_to_string(root.join("games/11.html")).unwrap();
    // ioq3 writes no CTF lines: the site counts no captures and shows the log's score.
    assert!(
        game.contains("<p>Red won 8 : 6 against Blue: the final team score the log gives (its line <code>red:8 blue:6</code>).</p>\n<h2>Teams</h2>\n<table>\n<tr><th class=\"l\">team</th><th>players</th><th>score</th></tr>\n<tr><td class=\"l\">Red</td><td>3</td><td>8</td></tr>\n<tr><td class=\"l\">Blue</td><td>4</td><td>6</td></tr>\n</table>\n<p class=\"muted\">Score: the log's final team score.</p>"),
        "{game}"
    );
    assert!(
        game.contains("Isgalamido</a></td><td class=\"l\">Red</td><td>77</td><td>24</td>"),
        "{game}"
    );
    assert!(
        game.contains("Ended: shut down (Capturelimit hit)."),
        "{game}"
    );
    let index = std::fs::read_to_string(root.join("index.html")).unwrap();
    assert!(
        index.contains("Read 5,306 lines, 21 games (1 cut off), 1,069 kills"),
        "{index}"
    );
    assert!(
        index.contains("<tr><td><a href=\"games/11.html\">11</a></td><td class=\"l\">Q3TOURNEY6_CTF</td><td class=\"l\">ctf</td><td>7</td><td>160</td><td class=\"l\">Red 8 : 6</td></tr>"),
        "{index}"
    );
}
