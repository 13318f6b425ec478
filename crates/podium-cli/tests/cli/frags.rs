//! `podium frags`: the Quake 3 log reader through the binary, bad input, the site,
//! and `--follow`.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use crate::util::{bin, csv_rows, podium, Dir};

const GAME: &str = "  0:00 ------------------------------------------------------------
  0:00 InitGame: \\sv_hostname\\test\\g_gametype\\0\\mapname\\q3dm17
  0:01 ClientConnect: 2
  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0\\model\\sarge
  0:01 ClientConnect: 3
  0:01 ClientUserinfoChanged: 3 n\\Bo\\t\\0\\model\\sarge
  0:02 ClientUserinfoChanged: 4 n\\Cy\\t\\0\\model\\sarge
  0:05 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET_SPLASH
  0:06 Kill: 2 4 6: Ann killed Cy by MOD_ROCKET
  0:07 Kill: 3 2 1: Bo killed Ann by MOD_SHOTGUN
  0:08 Kill: 1022 4 22: <world> killed Cy by MOD_TRIGGER_HURT
  0:09 Kill: 3 3 7: Bo killed Bo by MOD_ROCKET_SPLASH
  0:10 Exit: Fraglimit hit.
  0:10 score: 1  ping: 4  client: 2 Ann
  0:10 score: 0  ping: 4  client: 3 Bo
  0:10 score: -1  ping: 4  client: 4 Cy
  0:11 ShutdownGame:
";

fn row<'a>(
    rows: &'a [std::collections::HashMap<String, String>],
    p: &str,
) -> &'a std::collections::HashMap<String, String> {
    rows.iter().find(|r| r["player"] == p).unwrap()
}

#[test]
fn csv_header_and_counts() {
    let dir = Dir::new("frags-csv");
    let f = dir.file("games.log", GAME);
    let run = podium(&["frags", &f, "--format", "csv"]);
    let out = run.ok();
    assert!(
        out.starts_with("position,player,strength,frags,deaths,suicides,"),
        "{out}"
    );
    let rows = csv_rows(out);
    let ann = row(&rows, "Ann");
    assert_eq!(
        (&ann["frags"][..], &ann["deaths"][..], &ann["suicides"][..]),
        ("2", "1", "0")
    );
    let cy = row(&rows, "Cy");
    assert_eq!((&cy["suicides"][..], &cy["world_deaths"][..]), ("1", "1"));
    assert_eq!(row(&rows, "Bo")["suicides"], "1");
    // Hand computation, K = 8: Ann 4 after the first frag, Bo 0, Cy 0; Ann kills Cy
    // (w = 1/(1+10^(−4/400)) = 0.505756): Ann 4 + 8·0.494244 = 7.953952; Bo kills Ann
    // (w = 1/(1+10^(7.953952/400)) = 0.488555): Bo 4.091560, Ann 3.862392; Cy's world
    // death: stays 0; Bo's suicide: 4.091560 − 4 = 0.091560.
    let g = |p: &str| row(&rows, p)["strength"].parse::<f64>().unwrap();
    assert!((g("Ann") - 3.862_392).abs() < 1e-5, "{}", g("Ann"));
    assert!((g("Bo") - 0.091_560).abs() < 1e-5, "{}", g("Bo"));
    assert_eq!(g("Cy"), 0.0);
    // One of a kind reads in the singular.
    assert_eq!(
        run.stderr,
        format!("{f}: 17 lines, 1 game (0 cut off), 5 kills (1 by the world, 1 suicide, 0 team kills); no lines skipped\n")
    );
}

#[test]
fn follow_counts_one_game_in_the_singular() {
    let dir = Dir::new("frags-follow-one");
    let path = dir.file("games.log", GAME);
    let followed = podium(&[
        "frags",
        &path,
        "--follow",
        "--poll-ms",
        "20",
        "--idle-exit",
        "0.2",
    ]);
    assert_eq!(
        followed.ok().lines().next().unwrap(),
        format!("{path}: 1 game rated, 5 kills")
    );
    assert_eq!(
        followed.stderr,
        format!("{path}: 17 lines, 1 game (0 cut off), 5 kills (1 by the world, 1 suicide, 0 team kills); no lines skipped\n")
    );
}

#[test]
fn settings_are_checked() {
    let dir = Dir::new("frags-set");
    let f = dir.file("games.log", GAME);
    let rows = csv_rows(podium(&["frags", &f, "--format", "csv", "--set", "k=16"]).ok());
    let g: f64 = row(&rows, "Ann")["strength"].parse().unwrap();
    assert!(g > 7.0, "K = 16 moves twice as far: {g}");
    let err = podium(&["frags", &f, "--set", "kk=3"]).err().to_string();
    assert!(err.contains("no parameter \"kk\""), "{err}");
    let err = podium(&["frags", &f, "--set", "k=-1"]).err().to_string();
    assert!(err.contains("k"), "{err}");
    let err = podium(&["frags", &f, "--core", "3"]).err().to_string();
    assert!(err.contains("--static"), "{err}");
    let err = podium(&["frags", &dir.path("missing.log")])
        .err()
        .to_string();
    assert!(err.contains("missing.log"), "{err}");
}

#[test]
fn static_strengths_by_hand() {
    let dir = Dir::new("frags-static");
    let f = dir.file("games.log", GAME);
    let rows = csv_rows(podium(&["frags", &f, "--static", "--format", "csv"]).ok());
    // Ann–Bo 1:1 → 0; Ann–Cy 1:0 → 1. Ann = ½, Bo = 0 (met Ann only), Cy = −1.
    let g = |p: &str| row(&rows, p)["strength"].parse::<f64>().unwrap();
    assert_eq!((g("Ann"), g("Bo"), g("Cy")), (0.5, 0.0, -1.0));
    assert_eq!(rows[0]["player"], "Ann");
    // Core of 2 frags: only Ann–Bo met twice.
    let rows = csv_rows(podium(&["frags", &f, "--static", "--core", "2", "--format", "csv"]).ok());
    assert_eq!(rows.len(), 2);
}

#[test]
fn garbage_binary_noise_and_a_half_written_last_line() {
    let dir = Dir::new("frags-garbage");
    let mut bytes = GAME.as_bytes().to_vec();
    bytes.extend_from_slice(b"this is not a log line\n");
    bytes.extend_from_slice(&[0xff, 0xfe, 0x00, 0x13, 0x88, b'\n', 0x00, 0x00, b'\n']);
    bytes.extend_from_slice(b"  1:00 Kill: 2 3\n  1:01 InitGame: \\g_gametype\\0\n");
    bytes.extend_from_slice(b" 1:02 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n");
    bytes.extend((0..200_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 | 1));
    bytes.extend_from_slice(b"\n  1:03 Kill: 2 3 7: Ann killed B");
    let f = dir.0.join("noisy.log");
    std::fs::write(&f, &bytes).unwrap();
    let run = podium(&["frags", f.to_str().unwrap(), "--format", "csv"]);
    let rows = csv_rows(run.ok());
    assert_eq!(
        row(&rows, "Ann")["frags"],
        "2",
        "the damaged tail rates nothing"
    );
    let err = &run.stderr;
    assert!(err.contains("skipped"), "{err}");
    assert!(err.contains("not recognised"), "{err}");
    assert!(
        err.contains("line 18 (unrecognised): this is not a log line"),
        "{err}"
    );
    assert!(err.contains("malformed"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Pure noise: no players, still exit 0.
    let noise: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 251) as u8).collect();
    let g = dir.0.join("noise.bin");
    std::fs::write(&g, &noise).unwrap();
    let run = podium(&["frags", g.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.ok().trim(), "[]");
    assert!(run.stderr.contains("skipped"), "{}", run.stderr);
}

#[test]
fn standard_input_and_several_files() {
    let dir = Dir::new("frags-stdin");
    let f = dir.file("a.log", GAME);
    let run = crate::util::podium_stdin(&["frags", "-", &f, "--format", "csv"], GAME);
    let rows = csv_rows(run.ok());
    assert_eq!(row(&rows, "Ann")["frags"], "4");
    assert_eq!(row(&rows, "Ann")["games"], "2");
}

#[test]
fn regression_a_log_given_twice_is_refused_before_it_is_read() {
    // `podium frags a.log a.log` counted every frag twice, without a word.
    let dir = Dir::new("frags-twice");
    let a = dir.file("a.log", GAME);
    let b = dir.file("b.log", GAME);
    let dotted = format!("{}/./a.log", dir.0.display());
    for (args, message) in [
        (
            vec!["frags", &a, &b, &a],
            format!("error: {a} is given twice: give each file once\n"),
        ),
        (
            vec!["frags", &a, &dotted],
            format!(
                "error: {a} and {dotted} are the same file, given twice: give each file once\n"
            ),
        ),
        (
            vec!["frags", "-", "-"],
            "error: - (standard input) is given twice: give each file once\n".to_string(),
        ),
        (
            vec!["frags", &a, &a, "--follow", "--idle-exit", "0"],
            format!("error: {a} is given twice: give each file once\n"),
        ),
    ] {
        let run = podium(&args);
        assert_eq!(run.err(), message, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
    // Two files of the same content are two logs.
    let rows = csv_rows(podium(&["frags", &a, &b, "--format", "csv"]).ok());
    assert_eq!(row(&rows, "Ann")["games"], "2");
}

#[cfg(unix)]
#[test]
fn regression_a_log_given_by_a_hard_link_too_is_refused() {
    // A hard link was a file of its own: every frag was counted twice, without a word.
    let dir = Dir::new("frags-hard-link");
    let a = dir.file("a.log", GAME);
    let copy = dir.path("copy.log");
    std::fs::hard_link(&a, &copy).unwrap();
    let link = dir.path("link.log");
    std::os::unix::fs::symlink(&copy, &link).unwrap();
    for (args, message) in [
        (
            vec!["frags", &a, &copy, "--format", "csv"],
            format!("error: {a} and {copy} are the same file, given twice: give each file once\n"),
        ),
        (
            vec!["frags", &link, &a, "--follow", "--idle-exit", "0"],
            format!("error: {link} and {a} are the same file, given twice: give each file once\n"),
        ),
    ] {
        let run = podium(&args);
        assert_eq!(run.err(), message, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

#[test]
fn regression_a_byte_order_mark_is_skipped_and_a_log_in_utf16_refused() {
    // A byte-order mark made the log's first line (its `InitGame`) unrecognised, so a
    // team kill was rated as a frag; a log in UTF-16 was read as lines all skipped.
    let dir = Dir::new("frags-bom");
    let plain = dir.file("ctf.log", CTF);
    let marked = dir.file("ctf-bom.log", &format!("\u{feff}{CTF}"));
    let expected =
        "position,player,strength,frags,deaths,suicides,world_deaths,team_kills,captures,games
1,Ann,4,2,0,0,0,1,0,1
2,Bo,0,0,1,0,0,0,0,1
2,Cy,0,0,1,0,0,0,0,1
";
    assert_eq!(podium(&["frags", &plain, "--format", "csv"]).ok(), expected);
    let run = podium(&["frags", &marked, "--format", "csv"]);
    assert_eq!(run.ok(), expected);
    assert_eq!(
        run.stderr,
        format!("{marked}: 10 lines, 1 game (0 cut off), 2 kills (0 by the world, 0 suicides, 1 team kill); no lines skipped\n")
    );
    let followed = podium(&[
        "frags",
        &marked,
        "--format",
        "csv",
        "--follow",
        "--idle-exit",
        "0",
    ]);
    assert_eq!(followed.ok(), expected);
    let utf16 = |big_endian: bool, mark: bool| -> Vec<u8> {
        let text = if mark {
            format!("\u{feff}{CTF}")
        } else {
            CTF.to_string()
        };
        text.encode_utf16()
            .flat_map(|u| {
                if big_endian {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    };
    let wide = dir.path("ctf16.log");
    std::fs::write(&wide, utf16(false, true)).unwrap();
    let wide_be = dir.path("ctf16be.log");
    std::fs::write(&wide_be, utf16(true, false)).unwrap();
    let marked16 = format!("error: {wide}:1: the file is not UTF-8 text: it starts with a UTF-16 (little-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)\n");
    // The log read before the refused one is summed up, as it was read.
    let read = format!("{plain}: 10 lines, 1 game (0 cut off), 2 kills (0 by the world, 0 suicides, 1 team kill); no lines skipped\n");
    let site = dir.path("site");
    for (args, message) in [
        (vec!["frags", &wide], marked16.clone()),
        (
            vec!["frags", &plain, &wide, "--format", "csv"],
            format!("{read}{marked16}"),
        ),
        (
            vec!["frags", &wide, "--follow", "--idle-exit", "0"],
            marked16.clone(),
        ),
        (
            vec!["frags", &plain, &wide_be, "--html", &site],
            format!("{read}error: {wide_be}:1: the file is not UTF-8 text: its first line has NUL bytes between its characters, so it is probably UTF-16 (big-endian); expected UTF-8 text (convert it with `iconv -f UTF-16BE -t UTF-8`)\n"),
        ),
    ] {
        let run = podium(&args);
        assert_eq!(run.err(), message, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
    // Nothing written when a log is refused.
    assert!(!dir.0.join("site").exists());
    let mut child = bin()
        .args(["frags", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&utf16(false, true)).unwrap();
    drop(stdin);
    let run = child.wait_with_output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "error: <stdin>:1: the file is not UTF-8 text: it starts with a UTF-16 (little-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)\n"
    );
}

/// A capture-the-flag game of three: Ann kills Bo, her team mate, and Cy.
const CTF: &str = "  0:00 InitGame: \\sv_hostname\\X\\g_gametype\\4\\mapname\\q3ctf1
  0:01 ClientConnect: 2
  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\1
  0:01 ClientConnect: 3
  0:01 ClientUserinfoChanged: 3 n\\Bo\\t\\1
  0:01 ClientConnect: 4
  0:01 ClientUserinfoChanged: 4 n\\Cy\\t\\2
  0:02 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET
  0:03 Kill: 2 4 7: Ann killed Cy by MOD_ROCKET
  0:04 ShutdownGame:
";

const NASTY: &str = "  0:00 InitGame: \\g_gametype\\4\\mapname\\<b>ctf&map</b>
  0:01 ClientUserinfoChanged: 1 n\\<script>alert(1)</script>\\t\\1
  0:01 ClientUserinfoChanged: 2 n\\../../etc/passwd\\t\\2
  0:01 ClientUserinfoChanged: 3 n\\Zoë \"Q\" O'Neil\\t\\1
  0:02 Kill: 1 2 7: x killed y by MOD_ROCKET
  0:03 Kill: 2 3 7: x killed y by MOD_<i>
  0:03 Kill: 1 3 7: x killed y by MOD_RAILGUN
  0:04 CTF: 3 2 1: Zoë captured the BLUE flag!
  0:05 red:1  blue:0
  0:06 ShutdownGame:
";

#[test]
fn site_escapes_names_and_links_resolve() {
    let dir = Dir::new("frags-site");
    let f = dir.file("games.log", NASTY);
    let site = dir.path("site");
    let run = podium(&["frags", &f, "--html", &site, "--format", "csv"]);
    let rows = csv_rows(run.ok());
    let zoe = row(&rows, "Zoë \"Q\" O'Neil");
    assert_eq!(
        (&zoe["captures"][..], &zoe["deaths"][..]),
        ("1", "2"),
        "{rows:?}"
    );
    let script = row(&rows, "<script>alert(1)</script>");
    assert_eq!(script["team_kills"], "1");
    let pages = crate::site_check::check_site(std::path::Path::new(&site));
    assert_eq!(pages, 1 + 3 + 1);
    let index = std::fs::read_to_string(dir.0.join("site/index.html")).unwrap();
    assert!(index.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!index.contains("<script>"));
    // A capture-the-flag game: won by a team, with the log's score; its players by team.
    assert!(
        index.contains(
            "<td class=\"l\">ctf</td><td>3</td><td>3</td><td class=\"l\">Red 1 : 0</td></tr>"
        ),
        "{index}"
    );
    let game = std::fs::read_to_string(dir.0.join("site/games/1.html")).unwrap();
    assert!(
        game.contains("<p>Red won 1 : 0 against Blue: the final team score the log gives (its line <code>red:1 blue:0</code>).</p>"),
        "{game}"
    );
    assert!(
        game.contains("<a href=\"../players/2-Zo-Q-O-Neil.html\">Zoë &quot;Q&quot; O&#39;Neil</a></td><td class=\"l\">Red</td>"),
        "{game}"
    );
    assert!(
        game.contains("<a href=\"../players/1-etc-passwd.html\">../../etc/passwd</a></td><td class=\"l\">Blue</td>"),
        "{game}"
    );
    let players: Vec<String> = std::fs::read_dir(dir.0.join("site/players"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for p in &players {
        assert!(
            p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'),
            "{p}"
        );
    }
    assert!(
        dir.0.join("site/players/1-etc-passwd.html").is_file(),
        "{players:?}"
    );
}

/// Starts `podium frags PATH --follow --format csv` and waits until it printed its first
/// ranking (so it has read the file as it is now).
fn start_follow(
    path: &str,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
    String,
) {
    use std::io::BufRead;
    let mut child = bin()
        .args([
            "frags",
            path,
            "--follow",
            "--format",
            "csv",
            "--poll-ms",
            "50",
            "--idle-exit",
            "3",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    // GAME's ranking: a header and three players.
    let mut first = String::new();
    while first.lines().count() < 4 {
        assert!(out.read_line(&mut first).unwrap() > 0, "no ranking printed");
    }
    (child, out, first)
}

/// Waits for the follower to stop; returns the last CSV it printed and its standard error.
fn finish_follow(
    child: std::process::Child,
    mut out: std::io::BufReader<std::process::ChildStdout>,
) -> (
    Vec<std::collections::HashMap<String, String>>,
    String,
    String,
) {
    use std::io::Read;
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let last = rest.rsplit("position,player").next().unwrap();
    (csv_rows(&format!("position,player{last}")), rest, stderr)
}

#[test]
fn follow_reads_appended_lines_and_a_line_written_in_two_parts() {
    let dir = Dir::new("frags-follow");
    let path = dir.file("games.log", GAME);
    let (child, out, first) = start_follow(&path);
    assert!(first.contains("Ann"), "{first}");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm6\n  0:01 ClientUserinfoChanged: 5 n\\Dee\\t\\0\n  0:02 Kill: 5 5 7: Dee kil")
        .unwrap();
    f.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    f.write_all(b"led Dee by MOD_ROCKET_SPLASH\n  0:03 ShutdownGame:\n")
        .unwrap();
    f.flush().unwrap();
    let (rows, stdout, stderr) = finish_follow(child, out);
    // The last CSV printed holds Dee's suicide, read whole although written in two parts.
    assert_eq!(row(&rows, "Dee")["suicides"], "1", "{stdout}");
    assert!(stderr.contains("6 kills"), "{stderr}");
    assert!(stderr.contains("no lines skipped"), "{stderr}");
}

#[test]
fn follow_starts_over_when_the_log_is_truncated() {
    let dir = Dir::new("frags-trunc");
    let path = dir.file("games.log", GAME);
    let (child, out, _) = start_follow(&path);
    // A new, shorter log in the same file.
    std::fs::write(
        &path,
        "0:00 InitGame: \\g_gametype\\0\n0:01 ClientUserinfoChanged: 2 n\\Eve\\t\\0\n0:02 Kill: 2 2 7: Eve killed Eve by MOD_ROCKET\n",
    )
    .unwrap();
    let (rows, stdout, stderr) = finish_follow(child, out);
    assert!(stderr.contains("truncated"), "{stderr}");
    assert_eq!(row(&rows, "Eve")["suicides"], "1", "{stdout}");
    assert_eq!(row(&rows, "Ann")["frags"], "2", "{stdout}");
}

#[test]
fn follow_switches_to_the_new_file_after_rotation() {
    let dir = Dir::new("frags-rotate");
    let path = dir.file("games.log", GAME);
    let (child, out, _) = start_follow(&path);
    // logrotate: the old file moves away (and got one more kill first), a new one appears.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"  0:00 InitGame: \\g_gametype\\0\n  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n  0:02 ClientUserinfoChanged: 3 n\\Bo\\t\\0\n  0:03 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET\n").unwrap();
    drop(f);
    std::fs::rename(&path, dir.path("games.log.1")).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    std::fs::write(
        &path,
        "0:00 InitGame: \\g_gametype\\0\n0:01 ClientUserinfoChanged: 7 n\\Fay\\t\\0\n0:02 ClientUserinfoChanged: 8 n\\Bo\\t\\0\n0:03 Kill: 7 8 7: Fay killed Bo by MOD_ROCKET\n",
    )
    .unwrap();
    let (rows, stdout, stderr) = finish_follow(child, out);
    assert!(stderr.contains("a new file"), "{stderr}");
    assert_eq!(row(&rows, "Fay")["frags"], "1", "{stdout}");
    assert_eq!(row(&rows, "Ann")["frags"], "3", "{stdout}");
    assert_eq!(row(&rows, "Bo")["deaths"], "4", "{stdout}");
}

#[test]
fn regression_follow_options_without_follow_are_refused() {
    let dir = Dir::new("frags-no-follow");
    let path = dir.file("games.log", GAME);
    let run = podium(&["frags", &path, "--poll-ms", "50"]);
    assert!(
        run.err()
            .contains("--poll-ms 50 sets how often --follow looks for new lines: add --follow"),
        "{}",
        run.stderr
    );
    let run = podium(&["frags", &path, "--idle-exit", "3"]);
    assert!(
        run.err().contains("--idle-exit 3 stops --follow") && run.stderr.contains("add --follow"),
        "{}",
        run.stderr
    );
}

#[test]
fn regression_idle_exit_ends_an_open_game_as_cut_off_as_a_plain_read_does() {
    let dir = Dir::new("frags-idle-cut-off");
    // A finished game, then one still open when the input stops (its last line without a
    // newline).
    let log = format!(
        "{GAME}  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm6\n  \
         0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n  \
         0:01 ClientUserinfoChanged: 3 n\\Bo\\t\\0\n  \
         0:02 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET\n  \
         0:03 Kill: 3 2 7: Bo killed Ann by MOD_ROCKET"
    );
    let path = dir.file("games.log", &log);
    let plain = podium(&["frags", &path, "--format", "csv"]);
    let followed = podium(&[
        "frags",
        &path,
        "--follow",
        "--format",
        "csv",
        "--poll-ms",
        "20",
        "--idle-exit",
        "0.2",
    ]);
    let last = followed.ok().rsplit("position,player").next().unwrap();
    assert_eq!(format!("position,player{last}"), plain.ok());
    assert_eq!(row(&csv_rows(plain.ok()), "Ann")["games"], "2");
    assert!(
        plain.stderr.contains("2 games (1 cut off), 7 kills"),
        "{}",
        plain.stderr
    );
    assert!(
        followed.stderr.contains("2 games (1 cut off), 7 kills"),
        "{}",
        followed.stderr
    );
}

/// Two clients whose names differ only by Quake 3 colour codes.
const COLOURED: &str = "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm6
  0:01 ClientConnect: 2
  0:01 ClientUserinfoChanged: 2 n\\^1Red^7Devil\\t\\0\\model\\x
  0:01 ClientConnect: 3
  0:01 ClientUserinfoChanged: 3 n\\^3Bo\\t\\0\\model\\x
  0:01 ClientConnect: 4
  0:01 ClientUserinfoChanged: 4 n\\RedDevil\\t\\0\\model\\x
  0:02 Kill: 2 4 7: ^1Red^7Devil killed RedDevil by MOD_ROCKET
  0:03 Kill: 2 3 7: ^1Red^7Devil killed ^3Bo by MOD_ROCKET
  0:06 ShutdownGame:
";

#[test]
fn colour_codes_leave_the_names_and_the_raw_spelling_is_an_alias() {
    let dir = Dir::new("frags-colour");
    let f = dir.file("games.log", COLOURED);
    let site = dir.path("site");
    let run = podium(&["frags", &f, "--format", "csv", "--html", &site]);
    // One player RedDevil (identified by name): the kill of the other RedDevil is a
    // suicide of the one player the two clients are (0 − K/2, floored at 0), then the
    // frag of Bo between equals gives K/2 = 4.
    assert_eq!(
        run.ok(),
        "position,player,strength,frags,deaths,suicides,world_deaths,team_kills,captures,games\n\
         1,RedDevil,4,1,1,1,0,0,0,1\n\
         2,Bo,0,0,1,0,0,0,0,1\n"
    );
    assert_eq!(
        run.stderr,
        format!("{f}: 10 lines, 1 game (0 cut off), 2 kills (0 by the world, 1 suicide, 0 team kills); no lines skipped\nsite written to {site}\n")
    );
    let players: std::collections::BTreeSet<String> = std::fs::read_dir(dir.0.join("site/players"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        players.into_iter().collect::<Vec<_>>(),
        ["0-RedDevil.html", "1-Bo.html"]
    );
    let page = std::fs::read_to_string(dir.0.join("site/players/0-RedDevil.html")).unwrap();
    assert!(
        page.contains("<p>Also played as: ^1Red^7Devil.</p>"),
        "{page}"
    );
    let page = std::fs::read_to_string(dir.0.join("site/players/1-Bo.html")).unwrap();
    assert!(page.contains("<p>Also played as: ^3Bo.</p>"), "{page}");
}

#[test]
fn a_line_too_long_is_listed_with_its_beginning_and_length() {
    let dir = Dir::new("frags-long");
    let log = format!(
        "  0:00 InitGame: \\g_gametype\\0\\mapname\\x\n  0:01 say: {}\nbad\n",
        "x".repeat(70_000)
    );
    let f = dir.file("long.log", &log);
    let run = podium(&["frags", &f, "--format", "csv"]);
    run.ok();
    assert_eq!(
        run.stderr,
        format!(
            "{f}: 3 lines, 1 game (1 cut off), 0 kills (0 by the world, 0 suicides, 0 team kills); skipped 2 lines (1 not recognised, 0 malformed, 1 too long)\n  \
             line 2 (too long, 70,012 bytes):   0:01 say: {}…\n  \
             line 3 (unrecognised): bad\n",
            "x".repeat(68)
        )
    );
}

#[test]
fn control_characters_are_escaped_on_the_terminal_and_replaced_on_the_site() {
    let dir = Dir::new("frags-control");
    let f = dir.file(
        "esc.log",
        "  0:00 InitGame: \\g_gametype\\0\\mapname\\x\n  \
         0:01 ClientUserinfoChanged: 2 n\\Ev\x1b[2Jil\\t\\0\n  \
         0:01 ClientUserinfoChanged: 3 n\\Bob\\t\\0\n  \
         0:02 Kill: 2 3 7: x killed y by MOD_ROCKET\n  \
         0:03 \x1b[2J\x1b]0;pwned\x07 hello\0\tend\n  \
         0:04 ShutdownGame:\n",
    );
    let site = dir.path("site");
    let run = podium(&["frags", &f, "--html", &site]);
    assert_eq!(
        run.ok(),
        "┌──────────────────────────────────────────────────────────────────────────────────────────────────┐\n\
         │ #   player          strength   frags   deaths   suicides   world   team k.   caps   games    K/D │\n\
         ╞══════════════════════════════════════════════════════════════════════════════════════════════════╡\n\
         │ 1   Ev\\u{1b}[2Jil        4.0       1        0          0       0         0      0       1   1.00 │\n\
         │ 2   Bob                  0.0       0        1          0       0         0      0       1   0.00 │\n\
         └──────────────────────────────────────────────────────────────────────────────────────────────────┘\n"
    );
    assert_eq!(
        run.stderr,
        format!(
            "{f}: 6 lines, 1 game (0 cut off), 1 kill (0 by the world, 0 suicides, 0 team kills); skipped 1 line (1 not recognised, 0 malformed, 0 too long)\n  \
             line 5 (unrecognised):   0:03 \\u{{1b}}[2J\\u{{1b}}]0;pwned\\u{{7}} hello\\0\\tend\n\
             site written to {site}\n"
        )
    );
    // CSV keeps the name as the log wrote it; the site shows U+FFFD in its place.
    let csv = podium(&["frags", &f, "--format", "csv"]);
    assert!(csv.ok().contains("\n1,Ev\x1b[2Jil,4,"), "{}", csv.stdout);
    let index = std::fs::read_to_string(dir.0.join("site/index.html")).unwrap();
    assert!(!index.contains('\x1b'), "{index}");
    assert!(
        index.contains("<a href=\"players/0-Ev-2Jil.html\">Ev\u{fffd}[2Jil</a>"),
        "{index}"
    );
    let page = std::fs::read_to_string(dir.0.join("site/players/0-Ev-2Jil.html")).unwrap();
    assert!(!page.contains('\x1b'), "{page}");
    assert!(page.contains("<h1>Ev\u{fffd}[2Jil</h1>"), "{page}");
}

#[test]
fn a_kill_line_with_bytes_not_utf8_is_rated_and_counted() {
    let dir = Dir::new("frags-not-utf8");
    let f = dir.0.join("games.log");
    std::fs::write(
        &f,
        b"  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm6\n  \
          0:01 ClientUserinfoChanged: 2 n\\RD\\t\\0\n  \
          0:01 ClientUserinfoChanged: 3 n\\x\\t\\0\n  \
          0:02 Kill: 2 3 7: R\xffD killed x by MOD_ROCKET\n  \
          0:03 ShutdownGame:\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let run = podium(&["frags", f, "--format", "csv"]);
    // The client ids are numbers: the frag counts, the text around it is decoration.
    assert_eq!(
        run.ok(),
        "position,player,strength,frags,deaths,suicides,world_deaths,team_kills,captures,games\n\
         1,RD,4,1,0,0,0,0,0,1\n\
         2,x,0,0,1,0,0,0,0,1\n"
    );
    assert_eq!(
        run.stderr,
        format!("{f}: 5 lines, 1 game (0 cut off), 1 kill (0 by the world, 0 suicides, 0 team kills), 1 line not valid UTF-8 (read, bad bytes as U+FFFD); no lines skipped\n")
    );
}

/// The files under `dir`, relative to it, sorted.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy();
                out.push(rel.replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_new_site_removes_the_pages_of_the_old_one_it_does_not_write_and_nothing_else() {
    let dir = Dir::new("frags-stale");
    let big = dir.file("big.log", &format!("{GAME}{COLOURED}"));
    let small = dir.file("small.log", COLOURED);
    let site = dir.path("site");
    podium(&["frags", &big, "--html", &site]).ok();
    let root = dir.0.join("site");
    assert_eq!(
        files_under(&root),
        [
            ".podium-frags-pages",
            "games/1.html",
            "games/2.html",
            "index.html",
            "players/0-Ann.html",
            "players/1-Bo.html",
            "players/2-Cy.html",
            "players/3-RedDevil.html"
        ]
    );
    // The user's own files, in the site's folders and beside them.
    std::fs::write(root.join("players/notes.html"), "mine").unwrap();
    std::fs::write(root.join("games/9.html"), "mine").unwrap();
    std::fs::write(root.join("README"), "mine").unwrap();
    podium(&["frags", &small, "--html", &site]).ok();
    assert_eq!(
        files_under(&root),
        [
            ".podium-frags-pages",
            "README",
            "games/1.html",
            "games/9.html",
            "index.html",
            "players/0-RedDevil.html",
            "players/1-Bo.html",
            "players/notes.html"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".podium-frags-pages")).unwrap(),
        "games/1.html\nindex.html\nplayers/0-RedDevil.html\nplayers/1-Bo.html\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("games/9.html")).unwrap(),
        "mine"
    );
    // The pages listed are removed when not written again (the user's own two, once
    // listed); a line that names no page of the site (README, ../small.log) is not.
    std::fs::write(
        root.join(".podium-frags-pages"),
        "README\n../small.log\nplayers/notes.html\ngames/9.html\n",
    )
    .unwrap();
    podium(&["frags", &small, "--html", &site]).ok();
    assert_eq!(
        files_under(&root),
        [
            ".podium-frags-pages",
            "README",
            "games/1.html",
            "index.html",
            "players/0-RedDevil.html",
            "players/1-Bo.html"
        ]
    );
    assert!(std::path::Path::new(&small).is_file());
}

#[test]
fn a_site_that_would_replace_its_input_writes_nothing() {
    let dir = Dir::new("frags-site-input");
    std::fs::create_dir_all(dir.0.join("site/games")).unwrap();
    let log = dir.file("site/games/1.html", COLOURED);
    let site = dir.path("site");
    let run = podium(&["frags", &log, "--html", &site]);
    assert_eq!(
        run.err(),
        format!(
            "{log}: 10 lines, 1 game (0 cut off), 2 kills (0 by the world, 1 suicide, 0 team kills); no lines skipped\n\
             error: writing the site to {site}: {log}: cannot write over {log}, which is read as an input\n"
        )
    );
    assert_eq!(files_under(&dir.0.join("site")), ["games/1.html"]);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), COLOURED);
}
