"""The evaluation lab from Python gives what `podium backtest`, `simulate` and `tune` give."""

import datetime
import json
import subprocess

import pytest

import podium
from conftest import EXAMPLES, cli, cli_csv, number, podium_bin

GAME_NIGHTS = [str(EXAMPLES / "game-night.csv"), str(EXAMPLES / "game-night.jsonl")]


def test_backtest_equals_the_cli():
    rows = {r["system"]: r for r in cli_csv("backtest", *GAME_NIGHTS, "--format", "csv")}
    results = podium.backtest(podium.read(GAME_NIGHTS))
    assert [r.system for r in results] == [s.name for s in podium.systems()]
    for r in results:
        if r.error is not None:
            assert r.system == "elo" and "exactly 2 entries" in r.error
            assert r.system not in rows
            continue
        c = rows[r.system]
        assert r.accuracy == float(c["pair_accuracy"])
        assert r.log_loss == number(c["log_loss"])
        assert r.warm_pairs == int(c["warm_pairs"])
        assert r.accuracy_se == number(c["accuracy_se"])
        assert r.concordant + r.tied + r.discordant == r.warm_pairs
        assert r.matches_rated == r.matches_scored == 52


def test_backtest_gives_the_standard_error_over_matches():
    sme = podium.backtest(podium.read(GAME_NIGHTS[0]), "sme")[0]
    assert sme.warm_pairs == 187
    assert sme.accuracy == pytest.approx(109 / 187, abs=1e-12)
    # Over matches (the pairs of one match are not independent), not the binomial 0.0361.
    assert sme.accuracy_se == pytest.approx(0.03889112, abs=1e-8)


def test_backtest_window_and_systems():
    matches = podium.read(GAME_NIGHTS)
    rows = cli_csv("backtest", *GAME_NIGHTS, "--systems", "sme,trueskill", "--from", "10",
                   "--until", "2025-01-01", "--no-log-loss", "--set", "sme.k=24", "--format", "csv")
    results = podium.backtest(matches, ["sme", podium.System("sme", k=24), "trueskill"],
                              start=10, end="2025-01-01", log_loss=False, threads=1)
    assert [r.system for r in results] == ["sme", "sme", "trueskill"]
    assert results[1].accuracy == float(rows[0]["pair_accuracy"])
    assert results[2].accuracy == float(rows[1]["pair_accuracy"])
    assert results[1].log_loss is None
    with pytest.raises(podium.ConfigError) as err:
        podium.backtest(matches, "sme", start=0)
    assert str(err.value) == ("start=0: expected a match number from 1 to 18446744073709551615 "
                              "(match numbers start at 1, the first match)")
    with pytest.raises(podium.ConfigError, match="has no time"):
        podium.backtest([["a", "b"], ["b", "a"]], "sme", start="2024-01-01")


WINDOW = ("no match falls in this window, so none would be scored: the matches are numbered 1 "
          "to 52, dated 2024-09-06 to 2025-03-21, and a window runs from start up to, not "
          "including, end")


@pytest.mark.parametrize("bounds, shown", [
    (dict(start=40, end=10), "start=40, end=10"),
    (dict(start=10**6), "start=1000000"),
    (dict(start=53), "start=53"),
    (dict(end=1), "end=1"),
    (dict(start="2030-01-01"), "start=2030-01-01"),
    (dict(end="2024-09-06"), "end=2024-09-06"),
])
def test_a_window_without_a_match_is_refused_as_the_cli_refuses_it(bounds, shown):
    matches = podium.read(GAME_NIGHTS)
    with pytest.raises(podium.ConfigError) as err:
        podium.backtest(matches, "sme", **bounds)
    assert str(err.value) == f"{shown}: {WINDOW}"
    flags = {"start": "--from", "end": "--until"}
    args = [a for k, v in bounds.items() for a in (flags[k], str(v))]
    done = subprocess.run([podium_bin(), "backtest", *GAME_NIGHTS, "--systems", "sme", *args],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert done.stderr.endswith(f": {WINDOW.replace('from start', 'from --from').replace('not including, end', 'not including, --until')}\n")
    # One match is scored at the edges.
    assert podium.backtest(matches, "sme", start=52)[0].matches_scored == 1
    assert podium.backtest(matches, "sme", end=2)[0].matches_scored == 1


def test_a_float_bound_is_neither_a_match_number_nor_a_time():
    matches = podium.read(GAME_NIGHTS)
    for value, shown in ((26.0, "26.0 ... a float"), (True, "True ... a bool")):
        for bound in ("start", "end"):
            with pytest.raises(TypeError) as err:
                podium.backtest(matches, "sme", **{bound: value})
            given, kind = shown.split(" ... ")
            assert str(err.value) == (f"{bound}={given}: expected an int match number (1 = the first "
                                      f"match) or a time (a datetime, a date or a string), not {kind}")
    # An int is a match number, a datetime, a date or a string a time.
    assert podium.backtest(matches, "sme", start=26)[0].matches_scored == 27
    when = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    by_time = podium.backtest(matches, "sme", start=when)[0].matches_scored
    assert by_time == podium.backtest(matches, "sme", start="2025-01-01")[0].matches_scored
    assert by_time == podium.backtest(matches, "sme", start=datetime.date(2025, 1, 1))[0].matches_scored
    assert 0 < by_time < 52


def test_a_match_number_beyond_64_bits_names_the_bound_and_its_range():
    matches = podium.read(GAME_NIGHTS)
    with pytest.raises(podium.ConfigError) as err:
        podium.backtest(matches, "sme", end=2**64)
    assert str(err.value) == ("end=18446744073709551616: expected a match number from 1 to "
                              "18446744073709551615 (match numbers start at 1, the first match)")


def test_a_path_given_for_matches_says_to_read_it():
    with pytest.raises(TypeError) as err:
        podium.backtest(GAME_NIGHTS[0], "sme")
    assert str(err.value) == ("matches are an iterable of matches (or a podium.Matches), not a str "
                              f"({GAME_NIGHTS[0]!r}); for the matches of a file, read it with "
                              "podium.read(path)")
    with pytest.raises(TypeError, match=r"not a \w*Path \(\w*Path\(.*read it with podium.read\(path\)$"):
        podium.tune(EXAMPLES / "game-night.csv", "sme", {"k": (8, 64)})


def test_simulate_equals_the_cli():
    rows = cli_csv("simulate", "--systems", "sme,trueskill,elo", "--trials", "40",
                   "--rounds", "0,1,5", "--seed", "3", "--format", "csv")
    sim = podium.simulate(["sme", "trueskill", "elo"], trials=40, rounds=[0, 1, 5], seed=3)
    assert sim.rounds == [0, 1, 5] and sim.trials == 40
    assert "elo" in sim.errors and list(sim.curves) == ["sme", "trueskill"]
    got = {(d["system"], d["round"]): d["ability"] for d in sim.to_dicts()}
    for r in rows:
        assert got[(r["system"], int(r["round"]))] == float(r["predictive_ability"])
    with pytest.raises(podium.ConfigError, match="at least 2 players"):
        podium.simulate("sme", true_ratings=[1500])
    with pytest.raises(podium.ConfigError, match="sd"):
        podium.simulate("sme", sd=-1)


def test_simulate_without_a_round_says_so_in_the_argument_s_words():
    with pytest.raises(podium.ConfigError) as err:
        podium.simulate(["sme"], rounds=[])
    assert str(err.value) == "rounds=[]: expected at least one checkpoint round"


def test_simulate_with_planted_seats_equals_the_cli():
    rows = cli_csv("simulate", "--systems", "kalman-mmr,pairwise,proportional", "--true", "1450:1550:20",
                   "--seat-advantage", "50", "--trials", "20", "--rounds", "0,50,200",
                   "--seed", "7", "--format", "csv")
    sim = podium.simulate(["kalman-mmr", "pairwise", "proportional"], true_ratings=range(1450, 1551, 20),
                          seat_advantage=50, trials=20, rounds=[0, 50, 200], seed=7)
    assert sim.seat_advantage == 50
    # proportional does not rate factors: it runs seat-blind only.
    assert list(sim.curves) == ["kalman-mmr", "pairwise", "kalman-mmr (seat-blind)",
                                "pairwise (seat-blind)", "proportional (seat-blind)"]
    assert sim.errors["proportional"].startswith("system proportional does not rate factors")
    assert sorted(sim.seats) == ["kalman-mmr", "pairwise"]
    got = {(d["system"], d["round"]): d for d in sim.to_dicts()}
    assert len(got) == len(rows)
    for r in rows:
        d = got[(r["system"], int(r["round"]))]
        assert d["ability"] == float(r["predictive_ability"])
        for key in ("seat_advantage", "seat_advantage_sd", "seat_rating"):
            assert d[key] == number(r[key]), (r["system"], key)
    learned = sim.seats["kalman-mmr"]
    assert learned["advantage"][0] == 0.0
    for i, rating in enumerate(learned["rating"][1:], 1):
        assert rating / learned["scale"][i] == pytest.approx(learned["advantage"][i], rel=1e-12)
    # Without seats there are no seat columns.
    plain = podium.simulate(["sme"], trials=5, rounds=[1])
    assert plain.seat_advantage is None and plain.seats == {}
    assert "seat_advantage" not in plain.to_dicts()[0]


def test_tune_equals_the_cli():
    rows = cli_csv("tune", *GAME_NIGHTS, "--system", "sme", "--param", "k=8..64",
                   "--steps", "4", "--format", "csv")
    result = podium.tune(podium.read(GAME_NIGHTS), "sme", {"k": (8, 64)}, steps=4)
    chosen = rows[0]
    assert chosen["role"] == "chosen"
    key, value = chosen["settings"].split("=")
    assert (key, float(value)) == ("k", result.best_params["k"])
    assert result.best == podium.System("sme", k=result.best_params["k"])
    assert result.test.accuracy == float(chosen["test_pair_accuracy"])
    assert result.test.log_loss == float(chosen["test_log_loss"])
    assert result.train_matches + result.test_matches == 52
    assert len(result.candidates) == 4
    assert result.candidates[0].params == result.best_params
    assert result.candidates[0].accuracy == float(chosen["train_pair_accuracy"])
    listed = podium.tune(podium.read(GAME_NIGHTS), podium.System("sme", scale=300), {"k": [8, 16.5]})
    assert [c.params["k"] for c in listed.candidates] in ([8.0, 16.5], [16.5, 8.0])
    assert listed.best.params["scale"] == 300.0
    text = podium.tune(podium.read(GAME_NIGHTS), "sme", {"k": "8..64:28"}, samples=None)
    assert sorted(c.params["k"] for c in text.candidates) == [8.0, 36.0, 64.0]
    assert repr(text).endswith("; 3 candidates)")
    one = podium.tune(podium.read(GAME_NIGHTS), "sme", {"k": [16]})
    assert repr(one).endswith("; 1 candidate)"), repr(one)
    with pytest.raises(podium.ConfigError, match="no numeric parameter"):
        podium.tune(podium.read(GAME_NIGHTS), "sme", {"nope": (1, 2)})
    with pytest.raises(podium.ConfigError, match="between 0 and 1"):
        podium.tune(podium.read(GAME_NIGHTS), "sme", {"k": (8, 64)}, train=1.5)
    with pytest.raises(ValueError, match="metric"):
        podium.tune(podium.read(GAME_NIGHTS), "sme", {"k": (8, 64)}, metric="speed")


def test_tune_says_when_the_defaults_are_as_good(tmp_path):
    result = podium.tune(podium.read(GAME_NIGHTS), "sme", {"k": (8, 64)})
    assert result.best_params == {"k": 8.0}
    assert result.test.accuracy == pytest.approx(0.6277372, abs=1e-6)
    assert result.default_test.accuracy == pytest.approx(0.6569343, abs=1e-6)
    assert result.test.accuracy_se == pytest.approx(0.0501604, abs=1e-6)
    assert result.keep_defaults is True
    assert "keep the defaults: not better on the held-out part" in repr(result)
    doc = json.loads(cli("tune", *GAME_NIGHTS, "--system", "sme", "--param", "k=8..64", "--format", "json"))
    assert doc["keep_defaults"] is True
    # Where a larger k does better held out by log loss, it is chosen and nothing says to
    # keep the defaults.
    rows = ["match,player,rank"]
    for i in range(40):
        order = ["b", "a", "c"] if i % 4 == 3 else ["a", "b", "c"]
        rows += [f"g{i},{name},{place + 1}" for place, name in enumerate(order)]
    path = tmp_path / "g.csv"
    path.write_text("\n".join(rows) + "\n")
    better = podium.tune(podium.read(str(path)), "sme", {"k": (8, 64)}, metric="log_loss")
    assert better.best_params == {"k": 64.0}
    assert better.test.log_loss == pytest.approx(0.2555, abs=5e-5)
    assert better.default_test.log_loss == pytest.approx(0.2898, abs=5e-5)
    assert better.keep_defaults is False
    assert "keep the defaults" not in repr(better)


@pytest.mark.parametrize("params, kwargs, message", [
    ({"k": (8, 64)}, {"steps": 0}, r"^steps=0: expected at least 1 value per range$"),
    ({"k": (8, 64)}, {"samples": 0}, r"^samples=0: expected at least 1 random sample$"),
    ({"k": (1, 10**6, 1)}, {},
     r"^the grid has 1000000 candidates \(k: 1000000 values\); at most 10000 are searched: "
     r"give fewer values per range \(steps\), a larger step \(\(lo, hi, step\)\), "
     r"fewer values or fewer parameters$"),
    ({"k": (0, 1e300, 1e-300)}, {}, r"^the grid has about 1e600 candidates \(k: about 1e600 values\);"),
    ({"k": (8, 64)}, {"train": 1.5}, r"^train=1.5: expected a fraction between 0 and 1 \(exclusive\)$"),
    ({"k": (64, 8)}, {}, r'^params "k=64..8": expected LO ≤ HI in LO..HI$'),
    ({}, {}, r"^nothing to search: give at least one parameter to search \(params\)$"),
])
def test_tune_messages_name_the_python_arguments(params, kwargs, message):
    with pytest.raises(podium.ConfigError, match=message):
        podium.tune(podium.read(GAME_NIGHTS), "sme", params, **kwargs)


def test_tune_on_a_history_too_short_for_any_training_part_says_so():
    matches = [["a", "b"], ["b", "a"]]
    with pytest.raises(podium.ConfigError, match=r"^the history is too short to tune on: the largest "
                       r"training part, its first 1 match \(one held out\), holds no warm pair"):
        podium.tune(matches, "sme", {"k": (8, 64)}, train=0.9)
