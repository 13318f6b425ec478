//! The frag stats site says what the table of `podium frags` says: own suicides apart
//! from deaths by the world, positions shared as `2=`, and games counted as the summary
//! line counts them; its chart's labels are HTML text, outside the SVG that shrinks.

use podium::frags::FragConfig;
use podium_io::quake::ranking::QuakeRanking;
use podium_io::quake::site::{self, SiteData};
use podium_io::quake::QuakeParser;

/// Ann frags Bo and Cy and dies by the world; Bo kills himself; a second game has no
/// kills at all.
const LOG: &str = "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm1
  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0
  0:01 ClientUserinfoChanged: 3 n\\Bo\\t\\0
  0:01 ClientUserinfoChanged: 4 n\\Cy\\t\\0
  0:05 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET_SPLASH
  0:06 Kill: 1022 2 22: <world> killed Ann by MOD_TRIGGER_HURT
  0:07 Kill: 3 3 7: Bo killed Bo by MOD_ROCKET_SPLASH
  0:08 Kill: 2 4 7: Ann killed Cy by MOD_ROCKET_SPLASH
  0:10 ShutdownGame:
  0:11 InitGame: \\g_gametype\\0\\mapname\\q3dm2
  0:12 ShutdownGame:
";

fn read() -> (QuakeRanking, SiteData, QuakeParser) {
    let mut ranking = QuakeRanking::new(FragConfig::default());
    let mut parser = QuakeParser::new();
    let mut site = SiteData::default();
    ranking
        .read_log(&mut parser, "games.log", &mut LOG.as_bytes(), &mut site)
        .unwrap();
    (ranking, site, parser)
}

#[test]
fn the_ranking_page_says_what_the_table_says() {
    let (ranking, site, parser) = read();
    let shown = site::shown_standings(ranking.ranking());
    let marks: Vec<(String, &str)> = shown
        .iter()
        .map(|s| (s.mark(), s.standing.player.as_str()))
        .collect();
    assert_eq!(
        marks,
        [
            ("1".to_string(), "Ann"),
            ("2=".to_string(), "Bo"),
            ("2=".to_string(), "Cy")
        ]
    );
    let page = site::index_page(&site, ranking.ranking(), &shown, parser.summary());
    assert!(
        page.contains("<p>Read 11 lines, 2 games (0 cut off), 4 kills (1 by the world, 1 suicide, 0 team kills); no lines skipped.</p>\n<p>Rated and listed below: the 1 game with kills or captures (the other 1 had none), and the 3 players in them.</p>"),
        "{page}"
    );
    assert!(
        page.contains("<tr><th>#</th><th class=\"l\">player</th><th>strength</th><th>frags</th><th>deaths</th><th>suicides</th><th>world</th><th>team k.</th><th>caps</th><th>games</th><th>K/D</th></tr>"),
        "{page}"
    );
    // Ann: 2 frags, 1 death, by the world; Bo: his own suicide and Ann's frag.
    let strength = ranking
        .ranking()
        .strength(ranking.ranking().id("Ann").unwrap());
    assert!(
        page.contains(&format!("<tr><td>1</td><td class=\"l\"><a href=\"players/0-Ann.html\">Ann</a></td><td>{strength:.1}</td><td>2</td><td>1</td><td>0</td><td>1</td><td>0</td><td>0</td><td>1</td><td>2.00</td></tr>")),
        "{page}"
    );
    assert!(
        page.contains("<tr><td>2=</td><td class=\"l\"><a href=\"players/1-Bo.html\">Bo</a></td><td>0.0</td><td>0</td><td>2</td><td>1</td><td>0</td><td>0</td><td>0</td><td>1</td><td>0.00</td></tr>\n<tr><td>2=</td><td class=\"l\"><a href=\"players/2-Cy.html\">Cy</a></td><td>0.0</td><td>0</td><td>1</td><td>0</td><td>0</td><td>0</td><td>0</td><td>1</td><td>0.00</td></tr>\n</table>\n<p class=\"muted\">2 players are at the floor of strength 0 and share their position, the better K/D first.</p>"),
        "{page}"
    );
}

#[test]
fn player_and_game_pages_split_suicides_from_deaths_by_the_world() {
    let (ranking, site, _) = read();
    let shown = site::shown_standings(ranking.ranking());
    let bo = &shown[1];
    let page = site::player_page(&site, ranking.ranking(), ranking.matrix(), &shown, bo);
    assert!(
        page.contains("<p>Place 2= of 3, strength <b>0.0</b>. 0 frags, 2 deaths, 1 suicide, 0 deaths by the world, 0 team kills, 0 captures in 1 game.</p>"),
        "{page}"
    );
    let ann = site::player_page(
        &site,
        ranking.ranking(),
        ranking.matrix(),
        &shown,
        &shown[0],
    );
    assert!(
        ann.contains(". 2 frags, 1 death, 0 suicides, 1 death by the world, 0 team kills, 0 captures in 1 game.</p>"),
        "{ann}"
    );
    assert!(
        ann.contains("<th>suicides</th><th>world</th><th>score</th>"),
        "{ann}"
    );
    // One of each: counted in the singular.
    assert!(
        ann.contains("(fragged 1 time, fragged back 0 times)</li>"),
        "{ann}"
    );
    assert!(
        ann.contains("<td class=\"l\">q3dm1</td><td>2</td><td>1</td><td>0</td><td>1</td><td></td>"),
        "{ann}"
    );
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("<th>suicides</th><th>world</th><th>team kills</th>"),
        "{game}"
    );
    assert!(
        game.contains("<a href=\"../players/1-Bo.html\">Bo</a></td><td></td><td>0</td><td>2</td><td>1</td><td>0</td>"),
        "{game}"
    );
}

/// The chart's labels are text of the page, in CSS px, not SVG text that shrinks with
/// the chart on a phone.
#[test]
fn the_chart_labels_are_outside_the_svg() {
    let (ranking, site, _) = read();
    let shown = site::shown_standings(ranking.ranking());
    let page = site::player_page(
        &site,
        ranking.ranking(),
        ranking.matrix(),
        &shown,
        &shown[0],
    );
    // Ann's strength after her one game: two frags between equals (K/2 each) less one
    // death by the world (K/2): 4.
    let strength = ranking
        .ranking()
        .strength(ranking.ranking().id("Ann").unwrap());
    assert_eq!(strength, 4.0);
    // Ticks at every whole point up to 4, the top of the plot.
    assert!(
        page.contains("<figure class=\"chart\">\n<div class=\"plot\">\n<span class=\"y\" style=\"top:4%\">4</span><span class=\"y\" style=\"top:27%\">3</span><span class=\"y\" style=\"top:50%\">2</span><span class=\"y\" style=\"top:73%\">1</span><span class=\"y\" style=\"top:96%\">0</span>\n<svg "),
        "{page}"
    );
    // A grid line at every tick above 0.
    assert!(
        page.contains("<line x1=\"8\" y1=\"146.0\" x2=\"592\" y2=\"146.0\" stroke=\"#e4e4e4\" vector-effect=\"non-scaling-stroke\"/>\n<line x1=\"8\" y1=\"100.0\" x2=\"592\" y2=\"100.0\" stroke=\"#e4e4e4\" vector-effect=\"non-scaling-stroke\"/>\n<line x1=\"8\" y1=\"54.0\" x2=\"592\" y2=\"54.0\" stroke=\"#e4e4e4\" vector-effect=\"non-scaling-stroke\"/>\n<line x1=\"8\" y1=\"8.0\" x2=\"592\" y2=\"8.0\" stroke=\"#e4e4e4\" vector-effect=\"non-scaling-stroke\"/>\n"),
        "{page}"
    );
    // The x axis: the game's number under its point.
    assert!(
        page.contains("</svg>\n</div>\n<div class=\"x\"><span style=\"left:50%\">1</span></div>\n<figcaption>game number (1 game played)</figcaption>\n</figure>"),
        "{page}"
    );
    assert!(!page.contains("<text"), "{page}");
    // One game: its point is in the middle of the plot.
    assert!(
        page.contains("<circle cx=\"300.0\" cy=\"8.0\" r=\"4\""),
        "{page}"
    );
    assert!(
        page.contains(".chart{margin:0;max-width:44rem;font-size:.8rem;"),
        "{page}"
    );
    assert!(
        page.contains(".chart .plot,.chart .x{margin-right:1.5em}.chart .x{position:relative;height:1.4em;margin-left:3.5em}.chart .x span{position:absolute;top:.2em;transform:translateX(-50%);white-space:nowrap}.chart figcaption{text-align:center;padding:.3em 1.5em 0 3.5em}"),
        "{page}"
    );
}

/// A player of many games: the y axis has round ticks up to the first at or above the
/// best strength, the x axis the numbers of six games, the first and the last of them.
#[test]
fn a_long_chart_labels_six_games_and_round_strengths() {
    let mut log = String::new();
    for _ in 0..40 {
        log.push_str("  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm1\n  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n  0:01 ClientUserinfoChanged: 3 n\\Bo\\t\\0\n  0:05 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET\n  0:06 ShutdownGame:\n");
    }
    let (ranking, site, _) = read_log(&log);
    let shown = site::shown_standings(ranking.ranking());
    let ann = &shown[0];
    assert_eq!(ann.standing.player, "Ann");
    // 40 frags of Bo, who stays at 0: Ann climbs to a strength between 100 and 150.
    assert!((100.0..150.0).contains(&ann.standing.strength), "{ann:?}");
    let page = site::player_page(&site, ranking.ranking(), ranking.matrix(), &shown, ann);
    assert!(
        page.contains("<span class=\"y\" style=\"top:4%\">150</span><span class=\"y\" style=\"top:34.7%\">100</span><span class=\"y\" style=\"top:65.3%\">50</span><span class=\"y\" style=\"top:96%\">0</span>\n<svg "),
        "{page}"
    );
    assert!(
        page.contains("<div class=\"x\"><span style=\"left:1.3%\">1</span><span style=\"left:21.3%\">9</span><span style=\"left:41.3%\">17</span><span style=\"left:58.7%\">24</span><span style=\"left:78.7%\">32</span><span style=\"left:98.7%\">40</span></div>\n<figcaption>game number (40 games played)</figcaption>"),
        "{page}"
    );
}

/// The log's own reason for the end of a game is quoted without its full stop, which the
/// sentence around it supplies.
#[test]
fn a_games_end_is_one_sentence() {
    let log = LOG.replacen(
        "  0:10 ShutdownGame:",
        "  0:09 Exit: Timelimit hit.\n  0:10 ShutdownGame:",
        1,
    );
    let mut ranking = QuakeRanking::new(FragConfig::default());
    let mut parser = QuakeParser::new();
    let mut site = SiteData::default();
    ranking
        .read_log(&mut parser, "games.log", &mut log.as_bytes(), &mut site)
        .unwrap();
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("Ended: shut down (Timelimit hit).</p>"),
        "{game}"
    );
}

/// A capture-the-flag game: Ann plays for red, Bo and Cy for blue; Ann captures the blue
/// flag once and the log's final team score says so.
const CTF: &str = "  0:00 InitGame: \\g_gametype\\4\\mapname\\q3ctf1
  0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\1
  0:01 ClientUserinfoChanged: 3 n\\Bo\\t\\2
  0:01 ClientUserinfoChanged: 4 n\\Cy\\t\\2
  0:05 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET_SPLASH
  0:06 CTF: 2 1 1: Ann captured the BLUE flag!
  0:07 Kill: 4 2 10: Cy killed Ann by MOD_RAILGUN
  0:08 Kill: 4 2 10: Cy killed Ann by MOD_RAILGUN
  0:09 Exit: Capturelimit hit.
  0:09 red:1  blue:0
  0:09 score: 8  ping: 0  client: 4 Cy
  0:09 score: 6  ping: 0  client: 2 Ann
  0:09 score: 0  ping: 0  client: 3 Bo
  0:10 ShutdownGame:
";

fn read_log(log: &str) -> (QuakeRanking, SiteData, QuakeParser) {
    let mut ranking = QuakeRanking::new(FragConfig::default());
    let mut parser = QuakeParser::new();
    let mut site = SiteData::default();
    ranking
        .read_log(&mut parser, "games.log", &mut log.as_bytes(), &mut site)
        .unwrap();
    (ranking, site, parser)
}

/// The winner of a team game is a team, with the log's score, on the ranking page as on
/// the game's page; the player with the best score is not named.
#[test]
fn a_team_game_is_won_by_a_team() {
    let (ranking, site, parser) = read_log(CTF);
    let shown = site::shown_standings(ranking.ranking());
    let index = site::index_page(&site, ranking.ranking(), &shown, parser.summary());
    assert!(
        index.contains("<tr><td><a href=\"games/1.html\">1</a></td><td class=\"l\">q3ctf1</td><td class=\"l\">ctf</td><td>3</td><td>3</td><td class=\"l\">Red 1 : 0</td></tr>"),
        "{index}"
    );
    assert!(
        index.contains("<p class=\"muted\">Winner: the best score of the game's scoreboard (the log's, else frags less suicides and deaths by the world); in a team game the team ahead in the final team score the log gives (its line <code>red: blue:</code>), with that score.</p>"),
        "{index}"
    );
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("Ended: shut down (Capturelimit hit).</p>\n<p>Red won 1 : 0 against Blue: the final team score the log gives (its line <code>red:1 blue:0</code>).</p>\n<h2>Teams</h2>\n<table>\n<tr><th class=\"l\">team</th><th>players</th><th>captures</th><th>score</th></tr>\n<tr><td class=\"l\">Red</td><td>1</td><td>1</td><td>1</td></tr>\n<tr><td class=\"l\">Blue</td><td>2</td><td>0</td><td>0</td></tr>\n</table>\n<p class=\"muted\">Score: the log's final team score. Captures: the flags each team's players captured, counted from the log's <code>CTF:</code> lines.</p>\n"),
        "{game}"
    );
}

/// The scoreboard of a team game says who played for which side, the players of a team
/// together: red first, though Cy of blue has the best score.
#[test]
fn a_team_game_s_scoreboard_has_the_teams() {
    let (ranking, site, _) = read_log(CTF);
    let game = site::game_page(&site, ranking.ranking(), 0);
    let strength = |name: &str| {
        ranking
            .ranking()
            .strength(ranking.ranking().id(name).unwrap())
    };
    assert!(
        game.contains(&format!("<h2>Scoreboard</h2>\n<p class=\"swipe\">Swipe the table sideways for more columns →</p>\n<table class=\"pin1\">\n<tr><th class=\"l\">player</th><th class=\"l\">team</th><th>score</th><th>frags</th><th>deaths</th><th>suicides</th><th>world</th><th>team kills</th><th>captures</th><th>best streak</th><th>strength after</th></tr>\n\
<tr><td class=\"l\"><a href=\"../players/0-Ann.html\">Ann</a></td><td class=\"l\">Red</td><td>6</td><td>1</td><td>2</td><td>0</td><td>0</td><td>0</td><td>1</td><td>1</td><td>{:.1}</td></tr>\n\
<tr><td class=\"l\"><a href=\"../players/2-Cy.html\">Cy</a></td><td class=\"l\">Blue</td><td>8</td><td>2</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>2</td><td>{:.1}</td></tr>\n\
<tr><td class=\"l\"><a href=\"../players/1-Bo.html\">Bo</a></td><td class=\"l\">Blue</td><td>0</td><td>0</td><td>1</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>{:.1}</td></tr>\n</table>",
            strength("Ann"), strength("Cy"), strength("Bo"))),
        "{game}"
    );
    // A game without teams has no team column.
    let (ranking, site, _) = read();
    let ffa = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        ffa.contains("<tr><th class=\"l\">player</th><th>score</th>"),
        "{ffa}"
    );
    assert!(!ffa.contains("<h2>Teams</h2>"), "{ffa}");
}

/// The site prints the log's team score as the log gives it, says where it comes from,
/// and says so when the captures of the `CTF:` lines do not add up to it; with no score
/// in the log it names no winner and makes up no score.
#[test]
fn the_log_s_team_score_is_shown_as_the_log_s() {
    let (ranking, site, parser) = read_log(&CTF.replace("red:1  blue:0", "red:2  blue:1"));
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("<p>Red won 2 : 1 against Blue: the final team score the log gives (its line <code>red:2 blue:1</code>).</p>"),
        "{game}"
    );
    assert!(
        game.contains("<tr><td class=\"l\">Red</td><td>1</td><td>1</td><td>2</td></tr>\n<tr><td class=\"l\">Blue</td><td>2</td><td>0</td><td>1</td></tr>\n</table>\n<p class=\"muted\">Score: the log's final team score. Captures: the flags each team's players captured, counted from the log's <code>CTF:</code> lines. They do not match the log's score here; the result above is the log's.</p>"),
        "{game}"
    );
    let shown = site::shown_standings(ranking.ranking());
    let index = site::index_page(&site, ranking.ranking(), &shown, parser.summary());
    assert!(
        index.contains("<td class=\"l\">Red 2 : 1</td></tr>"),
        "{index}"
    );

    let (ranking, site, _) = read_log(&CTF.replace("red:1  blue:0", "red:0  blue:3"));
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("<p>Blue won 3 : 0 against Red: the final team score"),
        "{game}"
    );

    // Capture the flag as ioq3 logs it, without CTF lines: no captures are counted, so
    // none are shown nor compared with the score.
    let ioq3 = CTF.replace("  0:06 CTF: 2 1 1: Ann captured the BLUE flag!\n", "");
    let (ranking, site, _) = read_log(&ioq3);
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("<tr><th class=\"l\">team</th><th>players</th><th>score</th></tr>\n<tr><td class=\"l\">Red</td><td>1</td><td>1</td></tr>\n<tr><td class=\"l\">Blue</td><td>2</td><td>0</td></tr>\n</table>\n<p class=\"muted\">Score: the log's final team score.</p>"),
        "{game}"
    );

    // Team deathmatch, cut off before its score: no winner, no captures column.
    let tdm = CTF
        .replace("g_gametype\\4", "g_gametype\\3")
        .replace("  0:06 CTF: 2 1 1: Ann captured the BLUE flag!\n", "");
    let tdm = &tdm[..tdm.find("  0:09 Exit").unwrap()];
    let (ranking, site, parser) = read_log(tdm);
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains("<p>The log gives no final team score (no line <code>red: blue:</code>).</p>\n<h2>Teams</h2>\n<table>\n<tr><th class=\"l\">team</th><th>players</th><th>score</th></tr>\n<tr><td class=\"l\">Red</td><td>1</td><td></td></tr>\n<tr><td class=\"l\">Blue</td><td>2</td><td></td></tr>\n</table>\n<p class=\"muted\">Score: the log's final team score.</p>"),
        "{game}"
    );
    let shown = site::shown_standings(ranking.ranking());
    let index = site::index_page(&site, ranking.ranking(), &shown, parser.summary());
    assert!(
        index.contains("<td class=\"l\">team</td><td>3</td><td>3</td><td class=\"l\"><span class=\"muted\">no team score</span></td></tr>"),
        "{index}"
    );
}

/// A player's weapon shares, to a tenth of a percent, add up to 100.0%: three frags by
/// three weapons are 33.4%, 33.3% and 33.3%, not 33.3% three times (99.9%).
#[test]
fn weapon_shares_add_up_to_the_whole() {
    let log = LOG.replacen(
        "  0:10 ShutdownGame:",
        "  0:09 Kill: 2 3 10: Ann killed Bo by MOD_RAILGUN\n  0:09 Kill: 2 4 1: Ann killed Cy by MOD_SHOTGUN\n  0:10 ShutdownGame:",
        1,
    );
    let (ranking, site, _) = read_log(&log);
    let shown = site::shown_standings(ranking.ranking());
    let ann = &shown[0];
    assert_eq!(ann.standing.player, "Ann");
    let page = site::player_page(&site, ranking.ranking(), ranking.matrix(), &shown, ann);
    assert!(
        page.contains("<tr><th class=\"l\">means of death</th><th>frags</th><th>share</th></tr>\n<tr><td class=\"l\">rocket (splash)</td><td>2</td><td>50.0%</td></tr>\n<tr><td class=\"l\">railgun</td><td>1</td><td>25.0%</td></tr>\n<tr><td class=\"l\">shotgun</td><td>1</td><td>25.0%</td></tr>\n</table>"),
        "{page}"
    );
    let log = LOG.replacen(
        "  0:08 Kill: 2 4 7: Ann killed Cy by MOD_ROCKET_SPLASH",
        "  0:08 Kill: 2 4 10: Ann killed Cy by MOD_RAILGUN\n  0:09 Kill: 2 4 1: Ann killed Cy by MOD_SHOTGUN",
        1,
    );
    let (ranking, site, _) = read_log(&log);
    let shown = site::shown_standings(ranking.ranking());
    let page = site::player_page(
        &site,
        ranking.ranking(),
        ranking.matrix(),
        &shown,
        &shown[0],
    );
    assert!(
        page.contains("<tr><td class=\"l\">railgun</td><td>1</td><td>33.4%</td></tr>\n<tr><td class=\"l\">rocket (splash)</td><td>1</td><td>33.3%</td></tr>\n<tr><td class=\"l\">shotgun</td><td>1</td><td>33.3%</td></tr>\n</table>"),
        "{page}"
    );
}

/// A table wider than the window scrolls within itself, with a shadow where more columns
/// are; on a phone a line over each wide table says so. The column that names the row
/// (the ranking's second, the scoreboard's and a player's games' first) stays in view
/// while the rest scrolls under it, and header cells keep to one line.
#[test]
fn wide_tables_say_they_scroll_and_keep_their_names_in_view() {
    let (ranking, site, parser) = read();
    let shown = site::shown_standings(ranking.ranking());
    let swipe = "<p class=\"swipe\">Swipe the table sideways for more columns →</p>\n";
    let index = site::index_page(&site, ranking.ranking(), &shown, parser.summary());
    assert!(
        index.contains(&format!("<h2>Ranking</h2>\n{swipe}<table class=\"pin2\">\n<tr><th>#</th><th class=\"l\">player</th>")),
        "{index}"
    );
    // The games fit a phone: no line, nothing pinned.
    assert!(
        index.contains("<h2>Games</h2>\n<table>\n<tr><th>#</th>"),
        "{index}"
    );
    let game = site::game_page(&site, ranking.ranking(), 0);
    assert!(
        game.contains(&format!(
            "<h2>Scoreboard</h2>\n{swipe}<table class=\"pin1\">\n<tr><th class=\"l\">player</th>"
        )),
        "{game}"
    );
    let player = site::player_page(
        &site,
        ranking.ranking(),
        ranking.matrix(),
        &shown,
        &shown[0],
    );
    assert!(
        player.contains(&format!(
            "<h2>Games</h2>\n{swipe}<table class=\"pin1\">\n<tr><th>game</th>"
        )),
        "{player}"
    );
    for page in [&index, &game, &player] {
        // At any width a table wider than the page scrolls within itself, with a shadow
        // on the side where there are more columns.
        assert!(
            page.contains("main{padding:1em 1.2em;max-width:66em}table{border-collapse:collapse;margin:.5em 0 1.5em;display:block;max-width:100%;overflow-x:auto;background:linear-gradient(to right,#f6f6f4 30%,#f6f6f400) left/2.5em 100% no-repeat local,linear-gradient(to left,#f6f6f4 30%,#f6f6f400) right/2.5em 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0003,#0000) left/.8em 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/.8em 100% no-repeat scroll}"),
            "{page}"
        );
        assert!(
            page.contains("th{background:#e9e9e6;white-space:nowrap}td.l,th.l{text-align:left}a{color:#1d4e89}.swipe{display:none}.pin1 tr>:first-child,.pin2 tr>:nth-child(2){position:sticky;left:0;z-index:1;background:#f6f6f4;box-shadow:inset -1px 0 #ddd}.pin1 tr>th:first-child,.pin2 tr>th:nth-child(2){background:#e9e9e6}"),
            "{page}"
        );
        assert!(
            page.contains("@media (max-width:40em){main{padding:.8em .6em}th,td{padding:.25em .35em}.swipe{display:block;margin:.5em 0 -.3em;font-size:.85em;color:#555}}"),
            "{page}"
        );
    }
}
