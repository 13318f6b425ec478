"""Factors (a car, a seat, a faction) from Python: in matches, read from files, rated by a
league, predicted and backtested, with the numbers of the `podium` binary's `--factor`."""

import csv
import io
import json
import random
import subprocess
import warnings

import pytest

import podium
from conftest import CATAN, cli, cli_csv, number, podium_bin
from test_cli_parity import assert_same_board, assert_same_history

FACTOR_SYSTEMS = [s.name for s in podium.systems() if s.rates_factors]
# The systems that rate factors in races of more than two: all but two-player elo.
RACE_SYSTEMS = [s for s in FACTOR_SYSTEMS if s != "elo"]
OTHER_SYSTEMS = [s.name for s in podium.systems() if not s.rates_factors]
F1 = CATAN.parents[1] / "f1"


def races(path, prefix, matches=240, seed=5, jsonl=False):
    """A history of races: each driver's finish drawn around their skill plus their car's
    and their seat's advantage; drivers change cars every 60 races, a few rows have no seat
    (an empty value: no factor of that kind), and a few races are team races."""
    rng = random.Random(seed)
    drivers = [f"d{i}" for i in range(16)]
    skill = {d: rng.gauss(0, 1) for d in drivers}
    cars = {"red": 1.5, "blue": 0.5, "green": 0.0, "gold": -1.0}
    car_of = {d: rng.choice(sorted(cars)) for d in drivers}
    out = []
    for m in range(matches):
        if m % 60 == 59:
            for d in rng.sample(drivers, 4):
                car_of[d] = rng.choice(sorted(cars))
        who = rng.sample(drivers, rng.randint(3, 8))
        seat = {d: (str(i % 3 + 1) if rng.random() < 0.9 else "") for i, d in enumerate(who)}
        perf = {d: skill[d] + cars[car_of[d]] + (0.5 if seat[d] == "1" else 0) + rng.gauss(0, 1.5)
                for d in who}
        order = sorted(who, key=lambda d: -perf[d])
        rows = []
        if m % 40 == 7 and len(order) >= 4:
            # A team race: the first two and the next two drive one car each.
            for i, d in enumerate(order[:4]):
                rows.append({"player": d, "rank": 1 + i // 2, "team": f"t{i // 2}",
                             "car": ["red", "blue"][i // 2], "seat": ""})
        else:
            for i, d in enumerate(order):
                rows.append({"player": d, "rank": i + 1, "car": car_of[d], "seat": seat[d]})
        out.append((f"{prefix}{m}", rows))
    with open(path, "w") as f:
        if jsonl:
            for mid, rows in out:
                results = [{k: v for k, v in r.items() if v != ""} for r in rows]
                f.write(json.dumps({"match": mid, "results": results}) + "\n")
        else:
            f.write("match,player,rank,team,car,seat\n")
            for mid, rows in out:
                for r in rows:
                    f.write(f"{mid},{r['player']},{r['rank']},{r.get('team', '')},{r['car']},{r['seat']}\n")
    return str(path)


@pytest.fixture(scope="module")
def race_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("races")
    return [races(d / "races.csv", "r"), races(d / "races.jsonl", "j", seed=6, jsonl=True)]


FACTORS = ["car", "seat"]


def cli_boards(*args):
    """The players' and the factors' tables of `podium rate ... --factors --format csv`."""
    text = cli("rate", *args, "--factors", "--format", "csv")
    players, factors = text.split("\n\n")
    return list(csv.DictReader(io.StringIO(players))), list(csv.DictReader(io.StringIO(factors)))


def assert_same_factors(table, rows):
    """A league's factor_standings() equals the binary's factors' table, bit for bit."""
    assert len(table) == len(rows)
    for f, r in zip(table, rows):
        assert (f.kind, f.value) == (r["kind"], r["value"])
        assert f.rating == float(r["rating"]), (f.kind, f.value)
        assert f.sigma == number(r.get("sigma", ""))
        assert f.matches == int(r["matches"])
        assert f.wins == float(r["wins"])
        assert f.win_pct == float(r["win_pct"])
        assert f.expected_win_pct == float(r["expected_win_pct"])


def leagues_every_way(system, files):
    """Leagues rated from the files with their factors: from a `Matches` (with and without
    the history kept), from a list of `Match`es, one `rate()` call per match, and by
    `rate_files`."""
    matches = podium.read(files, factors=FACTORS)
    out = []
    for history in (True, False):
        league = podium.League(system, history=history)
        league.rate_many(matches)
        out.append(league)
        league = podium.League(system, history=history)
        league.rate_files(files, factors=FACTORS)
        out.append(league)
    league = podium.League(system)
    league.rate_many(list(matches))
    out.append(league)
    league = podium.League(system)
    for m in matches:
        league.rate(m)
    out.append(league)
    return out


@pytest.mark.parametrize("system", RACE_SYSTEMS)
def test_factor_files_equal_the_cli(system, race_files, tmp_path):
    history_csv = tmp_path / "history.csv"
    players, factors = cli_boards(*race_files, "--system", system, "--factor", "car",
                                  "--factor", "seat", "--history", str(history_csv))
    with open(history_csv, newline="") as f:
        history_rows = list(csv.DictReader(f))
    assert {r["kind"] for r in factors} == {"car", "seat"}
    for league in leagues_every_way(system, race_files):
        assert_same_board(league.standings(), players)
        assert_same_factors(league.factor_standings(), factors)
        if league.keeps_history:
            assert_same_history(league.history(), [r for r in history_rows if not r["factor_kind"]])
            assert_same_factor_history(league.factor_history(),
                                       [r for r in history_rows if r["factor_kind"]])


def test_elo_rates_the_first_move_as_the_cli_does(tmp_path):
    # Chess: white carries the factor `side=white`, black none; white is worth about 35.
    rng = random.Random(3)
    players = [f"p{i}" for i in range(8)]
    skill = {p: rng.gauss(0, 200) for p in players}
    rows = ["match,player,rank,side"]
    for g in range(300):
        white, black = rng.sample(players, 2)
        won = rng.random() < 1 / (1 + 10 ** ((skill[black] - skill[white] - 35) / 400))
        rows += [f"g{g},{white},{1 if won else 2},white", f"g{g},{black},{2 if won else 1},"]
    games = tmp_path / "chess.csv"
    games.write_text("\n".join(rows) + "\n")
    players_cli, factors_cli = cli_boards(str(games), "--system", "elo", "--factor", "side")
    league = podium.League("elo")
    league.rate_files([str(games)], factors="side")
    assert_same_board(league.standings(), players_cli)
    assert_same_factors(league.factor_standings(), factors_cli)
    (white,) = league.factor_standings()
    assert (white.kind, white.value, white.matches) == ("side", "white", 300)
    assert white.rating > 0


def assert_same_factor_history(history, rows):
    """A league's factor history equals the factor rows of the binary's --history CSV."""
    assert len(history) == len(rows) > 0
    for c, r in zip(history, rows):
        assert (c.match_id, c.kind, c.value) == (r["match"], r["factor_kind"], r["factor_value"])
        assert r["player"] == r["place"] == ""
        assert c.rating_before == float(r["rating_before"])
        assert c.expected == float(r["expected"])
        assert c.actual == float(r["actual"])
        assert c.k == number(r["k"])
        assert c.change == float(r["change"])
        assert c.rating_after == float(r["rating_after"])
        assert c.sigma_after == number(r["sigma_after"])


@pytest.mark.parametrize("system", ["pairwise", "trueskill", "kalman-mmr"])
def test_factor_history_adds_up_to_the_factor_ratings(system, race_files):
    league = podium.League(system)
    league.rate_files(race_files, factors=FACTORS)
    recorded = podium.League(system)
    recorded.history()  # records as it rates from here on
    recorded.rate_many(podium.read(race_files, factors=FACTORS))
    assert league.factor_history() == recorded.factor_history()
    every = league.factor_history()
    assert every.columns == ["match_id", "time", "kind", "value", "rating_before", "sigma_before",
                             "expected", "actual", "k", "change", "rating_after", "sigma_after"]
    for f in league.factor_standings():
        rows = league.factor_history(f.kind, f.value)
        assert len(rows) == f.matches
        assert rows[-1].rating_after == f.rating and rows[-1].sigma_after == f.sigma
        assert all(a.rating_after == b.rating_before for a, b in zip(rows, rows[1:]))
        assert league.factor_rating(f.kind, f.value) == f
    cars = league.factor_history("car")
    assert {c.kind for c in cars} == {"car"}
    assert len(cars) == sum(f.matches for f in league.factor_standings() if f.kind == "car")
    assert len(every) == sum(f.matches for f in league.factor_standings())
    with pytest.raises(KeyError, match="car=purple"):
        league.factor_history("car", "purple")
    with pytest.raises(KeyError, match="purple"):
        league.factor_rating("car", "purple")
    with pytest.raises(KeyError, match="faction"):
        league.factor_history("faction")
    with pytest.raises(TypeError, match="needs its kind"):
        league.factor_history(value="red")


def test_one_race_by_hand():
    """Pairwise Elo, K = 32: the red car's driver beats the blue car's, each expected ½ with
    no advantage, so ann, bo, red and blue each move by 16."""
    league = podium.League("pairwise")
    changes = league.rate(["ann", "bo"], factors={"ann": {"car": "red"}, "bo": {"car": "blue"}})
    assert [(c.player, c.change) for c in changes] == [("ann", 16.0), ("bo", -16.0)]
    table = league.factor_standings()
    assert table.columns == ["kind", "value", "rating", "sigma", "matches", "wins", "win_pct",
                             "expected_win_pct"]
    assert [(f.value, f.rating, f.matches, f.wins, f.win_pct) for f in table] == [
        ("red", 16.0, 1, 1.0, 100.0), ("blue", -16.0, 1, 0.0, 0.0)]
    (red,) = league.factor_history("car", "red")
    assert (red.match_id, red.rating_before, red.expected, red.actual, red.k, red.change) == (
        "1", 0.0, 0.5, 1.0, 32.0, 16.0)
    # Now red's driver is expected to win by 32 points of strength: E = 1/(1 + 10^(-64/400)).
    p = league.predict(["ann", "bo"], factors={"ann": {"car": "red"}, "bo": {"car": "blue"}})
    assert p.win[0] == pytest.approx(1 / (1 + 10 ** (-64 / 400)), abs=1e-12)
    assert p.rating == [1516.0, 1484.0]
    assert p.factor_ratings == [{"car": 16.0}, {"car": -16.0}] and p.new_factors == []
    # A car on every entry tells nobody apart: the match is rated as if it had none.
    league.rate(["bo", "ann"], factors={"ann": {"weather": "rain"}, "bo": {"weather": "rain"}})
    assert [f.kind for f in league.factor_standings()] == ["car", "car"]


def test_predictions_with_factors_equal_the_cli(race_files):
    for system in ["pairwise", "trueskill", "plackett-luce", "kalman-mmr"]:
        rows = cli_csv("predict", *race_files, "--system", system, "--factor", "car", "--factor", "seat",
                       "--players", "d1@car=red,d2+d3@car=blue,zed@car=purple,d4", "--format", "csv")
        league = podium.League(system)
        league.rate_files(race_files, factors=FACTORS)
        p = league.predict(["d1", ["d2", "d3"], "zed", "d4"],
                           factors={"d1": {"car": "red"}, ("d3", "d2"): {"car": "blue"},
                                    "zed": {"car": "purple"}})
        assert p.entries == ["d1", "d2+d3", "zed", "d4"]
        assert p.factors == [{"car": "red"}, {"car": "blue"}, {"car": "purple"}, {}]
        assert p.new_players == ["zed"] and p.new_factors == ["car=purple"]
        assert p.factor_ratings[0]["car"] == league.factor_rating("car", "red").rating
        assert p.factor_ratings[2]["car"] == 0.0
        for i, r in enumerate(rows):
            assert p.rating[i] == float(r["rating"])
            assert p.sigma[i] == number(r["sigma"])
            assert p.win[i] == float(r["win_probability"]), system
            assert p.expected_place[i] == float(r["expected_place"])
            assert p.draw == number(r["draw_probability"])
            assert p.quality == number(r["quality"])
            assert ";".join(f"{k}={v}" for k, v in p.factors[i].items()) == r["factors"]
            for j, other in enumerate(p.entries):
                if i != j:
                    assert p.ahead[i][j] == float(r[f"ahead_of:{other}"])
        dicts = p.to_dicts()
        assert dicts[1]["factors"] == {"car": "blue"} and dicts[3]["factor_ratings"] == {}
        # A team's factor may be given by any one of its players, as a row of a file gives it.
        assert league.predict(["d1", ["d2", "d3"]], factors={"d1": {"car": "red"}, "d3": {"car": "blue"}}).win == \
            league.predict(["d1", ["d2", "d3"]], factors={"d1": {"car": "red"}, ("d2", "d3"): {"car": "blue"}}).win
    assert "factors" not in league.predict(["d1", "d2"]).to_dicts()[0]


def test_backtest_with_factors_equals_the_cli(race_files):
    matches = podium.read(race_files, factors=FACTORS)
    both_ways = {r["system"]: r for r in cli_csv("backtest", *race_files, "--factor", "car",
                                                  "--factor", "seat", "--format", "csv")}
    # The binary also runs each system factor-blind, as factors=[] does here (below).
    rows = {s: r for s, r in both_ways.items() if not s.endswith(" (factor-blind)")}
    assert list(both_ways) == [name for s in rows for name in (s, f"{s} (factor-blind)")]
    results = podium.backtest(matches, "all", threads=1)
    # `all` with factors: every system that rates them, as the binary takes it; elo
    # cannot rate races (the binary says so on standard error).
    assert [r.system for r in results] == FACTOR_SYSTEMS
    assert "exactly 2 entries" in results[FACTOR_SYSTEMS.index("elo")].error
    results = [r for r in results if r.system != "elo"]
    assert [r.system for r in results] == RACE_SYSTEMS == list(rows)
    for r in results:
        assert r.error is None
        assert r.accuracy == float(rows[r.system]["pair_accuracy"])
        assert r.log_loss == float(rows[r.system]["log_loss"])
        assert r.warm_pairs == int(rows[r.system]["warm_pairs"])
    # factors= chooses the kinds: the car alone, or none (the players alone).
    car = cli_csv("backtest", race_files[0], "--factor", "car", "--systems", "pairwise",
                  "--no-log-loss", "--format", "csv")
    csv_only = podium.read(race_files[0], factors=FACTORS)
    (only_car,) = podium.backtest(csv_only, "pairwise", factors=["car"], log_loss=False)
    assert only_car.accuracy == float(car[0]["pair_accuracy"])
    (both,) = podium.backtest(csv_only, "pairwise", log_loss=False)
    assert only_car.accuracy != both.accuracy
    blind = {r["system"]: r for r in cli_csv("backtest", race_files[0], "--no-log-loss", "--format", "csv")}
    without = podium.backtest(csv_only, "all", factors=[], log_loss=False)
    assert [r.system for r in without] == [s.name for s in podium.systems()]
    for r in without:
        if r.system == "elo":
            assert "exactly 2 entries" in r.error and r.system not in blind
            continue
        assert r.error is None and r.accuracy == float(blind[r.system]["pair_accuracy"])
    # The binary's factor-blind runs on the files read with both kinds: Python's factors=[].
    without_both = {r.system: r for r in podium.backtest(matches, "all", factors=[], threads=1)}
    for s in rows:
        assert float(both_ways[f"{s} (factor-blind)"]["pair_accuracy"]) == without_both[s].accuracy
        assert float(both_ways[f"{s} (factor-blind)"]["log_loss"]) == without_both[s].log_loss
    with pytest.raises(podium.RateError, match="system proportional does not rate factors.*factors=\\[\\]"):
        podium.backtest(matches, ["pairwise", "proportional"])
    with pytest.raises(podium.ConfigError, match='no match carries the factor kind "faction"; the kinds the matches carry: car, seat'):
        podium.backtest(matches, "pairwise", factors=["faction"])
    with pytest.raises(podium.ConfigError, match="no match carries factors"):
        podium.backtest(podium.read(race_files[0]), "pairwise", factors="car")


def test_tune_with_factors_equals_the_cli(race_files):
    rows = cli_csv("tune", race_files[0], "--factor", "car", "--system", "sme", "--param", "k=8..64",
                   "--steps", "4", "--format", "csv")
    result = podium.tune(podium.read(race_files[0], factors=FACTORS), "sme", {"k": (8, 64)},
                         steps=4, factors=["car"])
    chosen = rows[0]
    key, value = chosen["settings"].split("=")
    assert (key, float(value)) == ("k", result.best_params["k"])
    assert result.test.accuracy == float(chosen["test_pair_accuracy"])
    assert result.test.log_loss == float(chosen["test_log_loss"])
    with pytest.raises(podium.RateError, match="system proportional does not rate factors"):
        podium.tune(podium.read(race_files, factors=FACTORS), "proportional", {"k": (8, 32)})


def cli_error(*args):
    done = subprocess.run([podium_bin(), *args], capture_output=True, text=True)
    assert done.returncode != 0
    return done.stderr


def test_reading_factors_gives_the_binary_s_errors(race_files, tmp_path):
    csv_file, jsonl_file = race_files
    with pytest.raises(podium.ReadError) as err:
        podium.read_csv(csv_file, factors=["constructor"])
    message = f"{csv_file}:1: header has no `constructor` column, named as a factor column (found: match,player,rank,team,car,seat)"
    assert message in str(err.value) and message in cli_error("rate", csv_file, "--factor", "constructor")
    with pytest.raises(podium.ReadError, match="no result has the field `constructor`, named as a factor field"):
        podium.read_jsonl(jsonl_file, factors="constructor")
    with pytest.raises(podium.ReadError, match="no result has the field `constructor`"):
        podium.League("sme").rate_files(jsonl_file, factors=["constructor"])
    for bad in ["a=b", " car", ""]:
        with pytest.raises(podium.ReadError, match="expected a factor kind of 1 to 64 bytes without surrounding spaces, control characters or '='"):
            podium.read(csv_file, factors=[bad])
    with pytest.raises(podium.ReadError, match='factor column "Car" is named twice'):
        podium.read(csv_file, factors=["car", "Car"])
    with pytest.raises(podium.ReadError, match='factor column "team" is not valid, expected a factor kind that is not the name of a column or field podium reads itself'):
        podium.read(csv_file, factors=["team"])
    with pytest.raises(TypeError, match="a column's name is a string"):
        podium.read(csv_file, factors=[1])
    # Rows of one team that disagree on their car: a bad match naming the line.
    disagree = tmp_path / "disagree.csv"
    disagree.write_text("match,player,rank,team,car\ng1,a,1,t,red\ng1,b,1,t,blue\ng1,c,2,,red\n")
    with pytest.raises(podium.ReadError) as err:
        podium.read(disagree, factors="car")
    assert err.value.errors[0] in cli_error("rate", str(disagree), "--factor", "car")
    assert (err.value.line, err.value.field) == (3, "car")
    assert '"blue" is not valid, expected car=red, as another row of the same entry gives' in err.value.errors[0]


@pytest.mark.parametrize("system", OTHER_SYSTEMS)
def test_a_system_that_does_not_rate_factors_says_so(system, race_files):
    league = podium.League(system)
    with pytest.raises(podium.RateError, match=f"system {system} does not rate factors"):
        league.rate_files(["no such file.csv"], factors="car")  # refused before reading
    matches = podium.read(race_files, factors=FACTORS)
    with pytest.raises(podium.RateError) as err:
        league.rate_many(matches)
    assert f"system {system} does not rate factors" in err.value.errors[0]
    with pytest.raises(podium.RateError, match=f"system {system} does not rate factors"):
        league.rate(["a", "b"], factors={"a": {"car": "red"}})
    with pytest.raises(podium.RateError, match=f"system {system} does not rate factors"):
        league.predict(["a", "b"], factors={"a": {"car": "red"}})
    assert league.matches_rated == 0 and league.factor_standings().to_list() == []
    # The players alone are rated as usual (a CSV file's other columns are ignored).
    league.rate_files(race_files[0])
    assert league.matches_rated == len(podium.read(race_files[0]))


def test_systems_say_whether_they_rate_factors():
    listed = json.loads(cli("systems", "--format", "json"))
    assert [(s["name"], s["factors"]) for s in listed] == \
        [(s.name, s.rates_factors) for s in podium.systems()]
    assert podium.systems().columns == ["name", "summary", "source", "has_uncertainty",
                                        "rates_factors", "params"]


def test_matches_keep_their_factors(race_files):
    matches = podium.read(race_files, factors=FACTORS)
    for m in matches:
        factors_of = {p: e.factors for e in m.entries for p in e.players}
        for r in m.to_dicts():
            assert r.get("factors", {}) == factors_of[r["player"]]
    seatless = [e for m in matches for e in m.entries if "seat" not in e.factors]
    assert seatless and all("car" in e.factors for m in matches for e in m.entries)
    again = podium.Matches(list(matches))
    assert list(again) == list(matches) and list(matches[5:9]) == list(matches)[5:9]
    rows = matches.to_dicts()
    assert all(set(r["factors"]) <= {"car", "seat"} for r in rows)
    team = next(m for m in matches if any(e.team for e in m.entries))
    assert [e.factors for e in team.entries] == [{"car": "red"}, {"car": "blue"}]
    assert "@car=red" in repr(team)
    plain = podium.read(race_files[0])
    assert all(e.factors == {} for m in plain for e in m.entries)
    assert all("factors" not in r for r in plain.to_dicts())
    with pytest.raises(podium.ReadError):
        podium.read(race_files, factors=["car", "seat", "weather"])


def test_factors_in_every_form_of_a_match():
    m = podium.Match({"red": 1, ("cy", "di"): 2, "ed": 2},
                     teams={"red": ["ann", "bo"]},
                     factors={"red": {"car": "ferrari", "seat": 1}, "cy": {"car": "mclaren"},
                              ("di", "cy"): {"seat": 2}, "ed": {}},
                     id="monza")
    assert [e.factors for e in m.entries] == [{"car": "ferrari", "seat": "1"},
                                              {"car": "mclaren", "seat": "2"}, {}]
    assert repr(m) == "Match(id='monza', results=[1 red: ann+bo@car=ferrari@seat=1, 2 (cy+di)@car=mclaren@seat=2, 2 ed])"
    assert m.to_dicts()[0]["factors"] == {"car": "ferrari", "seat": "1"}
    assert "factors" not in m.to_dicts()[-1]
    # A player of a team gives the team's factor, as a row of a file does; two rows agree.
    assert podium.Match([["a", "b"], "c"], factors={"a": {"car": "x"}, "b": {"car": "x"}}).entries[0].factors == {"car": "x"}
    assert podium.Match(["a", "b"], factors={"a": {"car": "x"}}) != podium.Match(["a", "b"])
    league = podium.League("sme")
    with pytest.raises(TypeError, match="belong to the Match"):
        league.rate(podium.Match(["a", "b"]), factors={"a": {"car": "x"}})
    league.rate(podium.Match(["a", "b"], factors={"a": {"car": "x"}}))
    assert league.factor_rating("car", "x").rating == 16.0


@pytest.mark.parametrize("factors, error, message", [
    ({"z": {"car": "x"}}, podium.MatchError, 'factors: entry "z" is not in the match'),
    ({("a", "z"): {"car": "x"}}, podium.MatchError, 'factors: entry "a+z" is not in the match'),
    ({"b": {"car": "x"}, "c": {"car": "y"}}, podium.MatchError,
     'player "c" gives car=y, but their entry already has car=x'),
    ({"a": {"car": " x"}}, podium.MatchError, 'player "a": factor "car": value " x" is not valid'),
    ({"a": {"car": ""}}, podium.MatchError, 'factor "car": value "" is not valid'),
    ({"a": {"a=b": "x"}}, podium.MatchError, 'factor kind "a=b" is not valid'),
    ({"a": {"car": 1.5}}, podium.MatchError, 'player "a": factor "car": 1.5 is not valid, expected a factor value'),
    ({"a": {"car": True}}, podium.MatchError, 'factor "car": true is not valid'),
    ({"a": {1: "x"}}, TypeError, "a factor kind is a string"),
    ({"a": "car=x"}, TypeError, "a mapping of kind to value"),
    ({1: {"car": "x"}}, TypeError, "an entry is a player id, a team name or a tuple"),
    ([("a", {"car": "x"})], TypeError, "factors is a mapping of entry"),
])
def test_bad_factors(factors, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        podium.Match(["a", ["b", "c"]], factors=factors)
    league = podium.League("sme")
    with pytest.raises(error):
        league.rate(["a", ["b", "c"]], factors=factors)
    with pytest.raises(error):
        league.predict(["a", ["b", "c"]], factors=factors)
    assert league.matches_rated == 0


def test_a_failed_file_leaves_no_factor_behind(tmp_path):
    league = podium.League("pairwise")
    league.rate(["a", "b"], factors={"a": {"car": "x"}, "b": {"car": "y"}})
    league.history()  # recorded from here on
    before = (league.factor_standings(), league.factor_history(), league.history())
    bad = tmp_path / "bad.csv"
    bad.write_text("match,player,rank,car\ng1,a,1,z\ng1,b,2,x\ng2,a,1,x\ng2,a,2,y\n")
    with pytest.raises(podium.ReadError, match="appears more than once"):
        league.rate_files(bad, factors="car")
    assert (league.factor_standings(), league.factor_history(), league.history()) == before
    summary = league.rate_files(bad, factors="car", skip_bad=True)
    assert summary.rated == 1 and len(summary.skipped) == 1
    assert [(f.value, f.matches) for f in league.factor_standings()] == [("z", 1), ("x", 2), ("y", 1)]
    assert [(c.match_id, c.value) for c in league.factor_history()] == [
        ("1", "x"), ("1", "y"), ("g1", "z"), ("g1", "x")]


@pytest.mark.real_data
def test_f1_constructors_equal_the_cli(tmp_path):
    if not F1.exists():
        pytest.skip(f"real data not found at {F1}")
    f1 = tmp_path / "f1.csv"
    f1.write_text(cli("import", "f1", str(F1)))
    players, factors = cli_boards(str(f1), "--system", "pairwise", "--factor", "constructor")
    league = podium.League("pairwise")
    league.rate_many(podium.read_csv(f1, factors=["constructor"]))
    assert_same_board(league.standings(), players)
    assert_same_factors(league.factor_standings(), factors)
    rows = {r["system"]: r for r in cli_csv("backtest", str(f1), "--factor", "constructor",
                                             "--systems", "pairwise,trueskill", "--no-log-loss",
                                             "--format", "csv")}
    for r in podium.backtest(podium.read_csv(f1, factors="constructor"), ["pairwise", "trueskill"],
                             log_loss=False):
        assert r.accuracy == float(rows[r.system]["pair_accuracy"])


def test_predict_warns_of_a_factor_kind_the_league_never_rated():
    """A kind the league has never rated adds nothing, which a misspelling would hide: the
    prediction warns (the binary refuses a kind it was not told to read)."""
    league = podium.League("pairwise")
    league.rate(["ann", "bo"], factors={"ann": {"car": "red"}, "bo": {"car": "blue"}})
    with pytest.warns(UserWarning, match=r'no factor of kind "cra" \(kinds rated: car\)'):
        p = league.predict(["ann", "bo"], factors={"ann": {"cra": "red"}})
    assert p.win == league.predict(["ann", "bo"]).win
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        league.predict(["ann", "bo"], factors={"ann": {"car": "green"}})  # a new car of a kind rated
    with pytest.warns(UserWarning, match=r"kinds rated: none"):
        podium.League("pairwise").predict(["ann", "bo"], factors={"ann": {"seat": 1}})


FACTOR_VALUE = ("expected a factor value: a string of 1 to 200 bytes without surrounding spaces or "
                "control characters, or a whole number from -9223372036854775808 to 18446744073709551615")


@pytest.mark.parametrize("kind", ["match", "time", "id", "results", "player", "Player", "Rank", "SCORE",
                                  "Team", "Weight", "Factors"])
def test_factor_kind_named_like_a_field_is_refused_everywhere(kind):
    message = (f'player "a": factor kind "{kind}" is not valid, expected a factor kind that is not the name of a '
               "column or field podium reads itself (match, id, time, results, player, rank, score, team, weight, "
               "factors, in any case)")
    with pytest.raises(podium.MatchError) as err:
        podium.Match(["a", "b"], factors={"a": {kind: "x"}})
    assert str(err.value) == message
    league = podium.League("pairwise")
    with pytest.raises(podium.MatchError):
        league.rate(["a", "b"], factors={"a": {kind: "x"}})
    assert league.matches_rated == 0


@pytest.mark.parametrize("value, shown", [
    (True, "true"), (None, "null"), (2.5, "2.5"), (1e300, "1e+300"), (10**22 + 1, "10000000000000000000001"),
])
def test_factor_values_that_are_not_text_or_whole_numbers_are_refused(value, shown):
    with pytest.raises(podium.MatchError) as err:
        podium.Match(["a", "b"], factors={"a": {"seat": value}})
    assert str(err.value) == f'player "a": factor "seat": {shown} is not valid, {FACTOR_VALUE}'


@pytest.mark.parametrize("value", ["a\tb", "a\nb", "a\x00", " ", "v" * 201])
def test_factor_values_with_control_characters_or_blank_are_refused(value):
    with pytest.raises(podium.MatchError, match="is not valid, expected a factor value"):
        podium.Match(["a", "b"], factors={"a": {"car": value}})


def test_factor_kinds_beyond_the_limit_are_refused():
    sixteen = {f"k{k}": "x" for k in range(16)}
    assert len(podium.Match(["a", "b"], factors={"a": sixteen}).entries[0].factors) == 16
    many = {f"k{k}": "x" for k in range(1000)}
    with pytest.raises(podium.MatchError) as err:
        podium.Match(["a", "b"], factors={"a": many})
    assert str(err.value) == 'player "a": 1000 factor kinds given, expected at most 16 factor kinds per entry'
    with pytest.raises(podium.MatchError) as err:
        podium.Match(["a", "b"], factors={"a": {"c\x01r": "x"}})
    assert 'factor kind "c\\u{1}r" is not valid' in str(err.value)


def test_whole_numbers_within_64_bits_are_values():
    m = podium.Match(["a", "b"], factors={"a": {"seat": 2**64 - 1}, "b": {"seat": -(2**63)}})
    assert [e.factors for e in m.entries] == [{"seat": "18446744073709551615"}, {"seat": "-9223372036854775808"}]


@pytest.mark.parametrize("player", ["p" * 201, "a\x00b", "a\nb"])
def test_player_id_longer_than_the_limit_is_refused(player):
    with pytest.raises(podium.MatchError) as err:
        podium.Match([player, "b"])
    assert "is not valid, expected 1 to 200 bytes without surrounding spaces or control characters" in str(err.value)
    assert str(err.value).startswith("player id ")
    with pytest.raises(podium.MatchError):
        podium.League("elo").set_initial(player, 1500.0)
    assert podium.Match(["p" * 200, "b"]).players[0] == "p" * 200
