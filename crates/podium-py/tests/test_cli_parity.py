"""The Python package gives what the `podium` binary gives, to the last digit: every
system on the example game nights (long CSV and JSON Lines together), on a generated file
of free-for-alls read by the plain reader, and on the Catan log (real data)."""

import datetime
import random

import pytest

import podium
from conftest import EXAMPLES, cli, cli_csv, number

GAME_NIGHTS = [str(EXAMPLES / "game-night.csv"), str(EXAMPLES / "game-night.jsonl")]
SYSTEMS = [s.name for s in podium.systems()]


def last_played(s) -> str:
    """A standing's last_played as the binary prints it: the date (at midnight UTC) or
    the RFC 3339 time of the last match, else nothing (the matches have no times)."""
    t = s.last_played
    if t is None:
        return ""
    if (t.hour, t.minute, t.second) == (0, 0, 0):
        return t.date().isoformat()
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def assert_same_board(board, rows):
    """A leaderboard equals the binary's CSV leaderboard: every number bit for bit."""
    assert len(board) == len(rows)
    for s, r in zip(board, rows):
        assert s.position == int(r["position"])
        assert s.player == r["player"]
        assert s.rating == float(r["rating"]), s.player
        assert s.sigma == number(r.get("sigma", "")), s.player
        assert s.games == int(r["games"])
        assert s.avg_size == float(r["avg_size"])
        assert s.win_pct == float(r["win_pct"])
        assert s.expected_win_pct == float(r["expected_win_pct"])
        assert s.net_pct == float(r["net_pct"])
        assert last_played(s) == r["last_played"]
        assert s.provisional == (r["provisional"] == "true")


def assert_same_history(history, rows):
    """A league's history equals the binary's --history CSV, row for row."""
    assert len(history) == len(rows)
    for c, r in zip(history, rows):
        assert c.match_id == r["match"]
        time = "" if c.time is None else last_played_time(c.time)
        assert time == r["time"]
        assert c.player == r["player"]
        assert c.place == int(r["place"])
        assert c.rating_before == float(r["rating_before"])
        assert c.sigma_before == number(r["sigma_before"])
        assert c.expected == float(r["expected"])
        assert c.actual == float(r["actual"])
        assert c.k == number(r["k"])
        assert c.weight == float(r["weight"])
        assert c.change == float(r["change"])
        assert c.rating_after == float(r["rating_after"])
        assert c.sigma_after == number(r["sigma_after"])


def last_played_time(t: datetime.datetime) -> str:
    if (t.hour, t.minute, t.second) == (0, 0, 0):
        return t.date().isoformat()
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def rate_every_way(system, files, *read_args):
    """Leagues rated from the same files four ways: a `Matches` with and without the
    history kept, the matches as a list of `Match`es, and one `rate()` call per match."""
    matches = podium.read(files, *read_args)
    leagues = {}
    for history in (True, False):
        league = podium.League(system, history=history)
        league.rate_many(matches)
        leagues[f"matches, history={history}"] = league
    league = podium.League(system)
    league.rate_many(list(matches))
    leagues["list of Match"] = league
    league = podium.League(system)
    for m in matches:
        league.rate(m)
    leagues["rate() one by one"] = league
    for history in (True, False):
        league = podium.League(system, history=history)
        league.rate_files(files)
        leagues[f"rate_files, history={history}"] = league
    return leagues


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s != "elo"])
def test_game_nights_equal_the_cli(system, tmp_path):
    history_csv = tmp_path / "history.csv"
    rows = cli_csv("rate", *GAME_NIGHTS, "--system", system, "--format", "csv",
                   "--history", str(history_csv))
    import csv
    with open(history_csv, newline="") as f:
        history_rows = list(csv.DictReader(f))
    for league in rate_every_way(system, GAME_NIGHTS).values():
        assert_same_board(league.standings(), rows)
        if league.keeps_history:
            assert_same_history(league.history(), history_rows)


def cli_failure(*args):
    """The bad matches the binary lists when `podium ARGS` fails."""
    import subprocess
    from conftest import podium_bin
    done = subprocess.run([podium_bin(), *args], capture_output=True, text=True)
    assert done.returncode != 0
    return [l[2:] for l in done.stderr.splitlines() if l.startswith("  ")]


def test_elo_refuses_the_game_nights_as_the_cli_does():
    cli_lines = cli_failure("rate", *GAME_NIGHTS, "--system", "elo")
    league = podium.League("elo")
    with pytest.raises(podium.RateError) as err:
        league.rate_files(GAME_NIGHTS)
    assert str(err.value).startswith("50 bad matches found, nothing rated (pass skip_bad=True to rate the rest):")
    assert err.value.errors == cli_lines[:-1] and cli_lines[-1] == "… and 30 more"
    assert str(err.value).splitlines()[1:] == ["  " + line for line in cli_lines]
    assert (err.value.file, err.value.line) == (GAME_NIGHTS[0], 2)
    assert league.matches_rated == 0 and len(league) == 0
    # From a Matches, which knows no lines: the same reasons.
    with pytest.raises(podium.RateError) as err:
        league.rate_many(podium.read(GAME_NIGHTS))
    assert err.value.errors == [line.split(": ", 1)[1] for line in cli_lines[:-1]]
    assert league.matches_rated == 0 and len(league) == 0
    # Rating the rest, as --skip-bad does.
    rows = cli_csv("rate", *GAME_NIGHTS, "--system", "elo", "--skip-bad", "--format", "csv")
    for rate in (lambda lg: lg.rate_files(GAME_NIGHTS, skip_bad=True),
                 lambda lg: lg.rate_many(podium.read(GAME_NIGHTS), skip_bad=True)):
        league = podium.League("elo")
        summary = rate(league)
        assert_same_board(league.standings(), rows)
        assert summary.rated == league.matches_rated
        assert len(summary.skipped) + summary.rated == len(podium.read(GAME_NIGHTS))


def plain_file(path, matches=1500, players=300, seed=7):
    """A long CSV of free-for-alls by ranks, with ties: what the plain reader reads."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("match,player,rank\n")
        for m in range(matches):
            who = rng.sample(range(players), rng.randint(2, 10))
            rank = 1
            for i, p in enumerate(who):
                if i > 0 and rng.random() >= 0.1:
                    rank = i + 1
                f.write(f"g{m},p{p},{rank}\n")
    return str(path)


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s != "elo"])
def test_a_plain_file_equals_the_cli(system, tmp_path):
    path = plain_file(tmp_path / "plain.csv")
    rows = cli_csv("rate", path, "--system", system, "--format", "csv")
    for history in (False, True):
        league = podium.League(system, history=history)
        league.rate_many(podium.read_csv(path))
        assert_same_board(league.standings(), rows)
        league = podium.League(system, history=history)
        league.rate_files(path)
        assert_same_board(league.standings(), rows)
        # As a list of `Match`es, stored as they come and rated as a `Matches` is.
        league = podium.League(system, history=history)
        league.rate_many(list(podium.read_csv(path)))
        assert_same_board(league.standings(), rows)
        if history:
            from_matches = podium.League(system)
            from_matches.rate_many(podium.read_csv(path))
            assert league.history() == from_matches.history()


def pairs_file(path, matches=3000, players=200, bad_at=1500, seed=11):
    """A long CSV of two-player matches, one of three players at `bad_at` (which
    two-player Elo cannot rate)."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("match,player,rank\n")
        for m in range(matches):
            who = rng.sample(range(players), 3 if m == bad_at else 2)
            for i, p in enumerate(who):
                f.write(f"g{m},p{p},{i + 1}\n")
    return str(path)


@pytest.mark.parametrize("system", ["trueskill", "elo-mmr", "glicko2", "elo"])
def test_matches_rated_at_once_equal_the_cli(system, tmp_path):
    """Free-for-alls rated in batches on every core give the binary's board, bit for
    bit, as one by one does, and find the same bad matches."""
    if system == "elo":
        path = pairs_file(tmp_path / "pairs.csv")
    else:
        path = plain_file(tmp_path / "plain.csv", matches=3000, players=200)
    rows = cli_csv("rate", path, "--system", system, "--skip-bad", "--format", "csv")
    skipped, refused = [], []
    for at_once in (None, False, True):
        league = podium.League(system, history=False)
        summary = league.rate_many(podium.read_csv(path), skip_bad=True, at_once=at_once)
        assert_same_board(league.standings(), rows)
        assert summary.rated == league.matches_rated
        skipped.append(summary.skipped)
        league = podium.League(system, history=False)
        again = league.rate_many(list(podium.read_csv(path)), skip_bad=True, at_once=at_once)
        assert_same_board(league.standings(), rows)
        assert again.skipped == summary.skipped
        league = podium.League(system, history=False)
        league.rate_files(path, skip_bad=True, at_once=at_once)
        assert_same_board(league.standings(), rows)
        if system == "elo":
            league = podium.League(system, history=False)
            with pytest.raises(podium.RateError) as err:
                league.rate_many(podium.read_csv(path), at_once=at_once)
            refused.append(err.value.errors)
            assert league.matches_rated == 0
    assert skipped[0] == skipped[1] == skipped[2]
    assert len(skipped[0]) == (1 if system == "elo" else 0)
    assert refused == ([refused[0]] * 3 if system == "elo" else [])


def test_conservative_ranking_and_min_games_equal_the_cli():
    rows = cli_csv("rate", *GAME_NIGHTS, "--system", "trueskill", "--format", "csv",
                   "--display", "conservative", "--min-games", "20")
    league = podium.League("trueskill")
    league.rate_many(podium.read(GAME_NIGHTS))
    board = league.standings(by="conservative", min_games=20)
    assert [s.player for s in board] == [r["player"] for r in rows]
    assert [s.position for s in board] == [int(r["position"]) for r in rows]
    with pytest.raises(ValueError, match="keeps no σ"):
        podium.League("sme").standings(by="conservative")


def test_starting_ratings_equal_the_cli():
    initial = str(EXAMPLES / "initial-ratings.csv")
    rows = cli_csv("rate", *GAME_NIGHTS, "--system", "sme", "--initial", initial, "--format", "csv")
    league = podium.League("sme")
    league.load_initial(initial)
    league.rate_many(podium.read(GAME_NIGHTS))
    assert_same_board(league.standings(), rows)


def test_what_the_default_learned_equals_explain():
    """`League.learned` holds the numbers `podium explain` lists under "Learned from"."""
    league = podium.League()
    league.rate_files(GAME_NIGHTS)
    text = cli("explain", *GAME_NIGHTS, "--player", "Priya")
    block = text.split("Learned from all ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    shown = {line.split()[0]: line.split()[1].rstrip(":") for line in block}
    assert list(shown) == ["tau", "gamma", "robust", "switches", "filters", "kappa", "c", "prior_mean"]
    assert list(league.learned) == list(shown)
    for name, value in league.learned.items():
        text_value = f"{value:.0f}" if value == int(value) else f"{value:.4f}"
        assert text_value == shown[name], name
    assert podium.League("elo-mmr").learned == {}


@pytest.mark.parametrize("system", ["sme", "trueskill", "plackett-luce", "thurstone-mosteller-full"])
def test_predictions_equal_the_cli(system):
    rows = cli_csv("predict", *GAME_NIGHTS, "--system", system,
                   "--players", "Maya,Tom+Sam,Zed", "--format", "csv")
    league = podium.League(system)
    league.rate_many(podium.read(GAME_NIGHTS))
    p = league.predict(["Maya", ["Tom", "Sam"], "Zed"])
    assert p.entries == ["Maya", "Tom+Sam", "Zed"]
    assert p.new_players == ["Zed"]
    for i, r in enumerate(rows):
        assert p.rating[i] == float(r["rating"])
        assert p.sigma[i] == number(r["sigma"])
        assert p.win[i] == float(r["win_probability"])
        assert p.expected_place[i] == float(r["expected_place"])
        assert p.draw == number(r["draw_probability"])
        assert p.quality == number(r["quality"])
        for j, other in enumerate(p.entries):
            if i != j:
                assert p.ahead[i][j] == float(r[f"ahead_of:{other}"])


@pytest.mark.real_data
@pytest.mark.parametrize("system", [s for s in SYSTEMS if s != "elo"])
def test_catan_equals_the_cli(system, catan_csv, tmp_path):
    history_csv = tmp_path / "history.csv"
    rows = cli_csv("rate", str(catan_csv), "--system", system, "--format", "csv",
                   "--history", str(history_csv))
    import csv
    with open(history_csv, newline="") as f:
        history_rows = list(csv.DictReader(f))
    for league in rate_every_way(system, [str(catan_csv)]).values():
        assert_same_board(league.standings(), rows)
        if league.keeps_history:
            assert_same_history(league.history(), history_rows)


def test_score_margins_reach_the_system(tmp_path):
    """A file of scores keeps its scores: Weng-Lin's margin uses them. (The binary's
    plain reader keeps only places; a `weight` column sends the binary the general way,
    which keeps them, so that is what the package is compared with.)"""
    rows = "g1,a,10\ng1,b,3\ng1,c,1\ng2,b,9\ng2,a,8\ng2,c,2\n"
    scores = tmp_path / "scores.csv"
    scores.write_text("match,player,score\n" + rows)
    general = tmp_path / "general.csv"
    general.write_text("match,player,score,weight\n" + "".join(
        line + ",1\n" for line in rows.splitlines()))
    expected = cli_csv("rate", str(general), "--system", "plackett-luce", "--set", "margin=1",
                       "--format", "csv")
    league = podium.League("plackett-luce", margin=1)
    league.rate_many(podium.read_csv(scores))
    assert_same_board(league.standings(), expected)
    plain = podium.League("plackett-luce")
    plain.rate_many(podium.read_csv(scores))
    assert plain.standings()[0].rating != league.standings()[0].rating


def test_rate_files_keeps_score_margins(tmp_path):
    scores = tmp_path / "scores.csv"
    scores.write_text("match,player,score\ng1,a,10\ng1,b,3\ng1,c,1\ng2,b,9\ng2,a,8\ng2,c,2\n")
    from_memory = podium.League("plackett-luce", margin=1)
    from_memory.rate_many(podium.read_csv(scores))
    from_files = podium.League("plackett-luce", margin=1)
    from_files.rate_files(scores)
    assert from_files.standings() == from_memory.standings()


def rich_file(path, seed, matches=60, players=12):
    """A long CSV with everything a row can say: teams, ranks or scores (ties
    included), partial weights, dates (several matches a day) and each entry's car."""
    rng = random.Random(seed)
    day = 1
    with open(path, "w") as f:
        f.write("match,time,player,team,rank,score,weight,car\n")
        for m in range(matches):
            day += rng.random() < 0.7
            who = rng.sample(range(players), rng.randint(2, 6))
            scores = rng.random() < 0.5
            teams = {}
            for i, p in enumerate(who):
                team = rng.choice(["", "", "t1", "t2"])
                if i == len(who) - 1 and len(teams) == 1 and team in teams:
                    team = ""  # at least two entries
                finish, car = rng.randint(1, 4), rng.choice(["", "c1", "c2", "c3"])
                if team in teams:  # a team shares its finish and car
                    finish, car = teams[team]
                elif team:
                    teams[team] = (finish, car)
                rank, score = ("", finish) if scores else (finish, "")
                weight = 0.5 if rng.random() < 0.2 else 1
                f.write(f"m{m},2024-{1 + day // 28:02}-{1 + day % 28:02},p{p},{team},{rank},{score},{weight},{car}\n")
    return str(path)


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s != "elo"])
def test_random_files_with_teams_scores_weights_and_cars_equal_the_cli(system, tmp_path):
    """Every way Python rates a file gives the binary's board, bit for bit, on random
    files with every kind of row, their cars read as factors where the system rates them."""
    cars = podium.System(system).rates_factors
    for seed in range(3):
        path = rich_file(tmp_path / f"rich{seed}.csv", seed)
        factors = ["car"] if cars else None
        args = ["rate", path, "--system", system, "--format", "csv"]
        if cars:
            args += ["--factor", "car"]
        rows = cli_csv(*args)
        matches = podium.read(path, factors=factors)
        ways = {"rate_files": lambda lg: lg.rate_files(path, factors=factors),
                "rate_many": lambda lg: lg.rate_many(matches),
                "list of Match": lambda lg: lg.rate_many(list(matches)),
                "rate() one by one": lambda lg: [lg.rate(m) for m in matches]}
        for way, rate in ways.items():
            league = podium.League(system)
            rate(league)
            assert_same_board(league.standings(), rows)
