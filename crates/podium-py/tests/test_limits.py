"""The limits the package shares with the command line (threads, entries of a prediction,
candidates of a tuning search), wide cells in printed tables, counts that are negative,
times that do not fit the league, and Ctrl-C during long work."""

import _thread
import contextlib
import pathlib
import re
import signal
import threading

import pytest

import podium
from conftest import EXAMPLES


def history(n=12):
    players = ["ann", "bo", "cy", "di"]
    return [[players[(i + j) % 4] for j in range(4)] for i in range(n)]


def test_a_string_over_65535_characters_prints_in_a_table_without_panic():
    league = podium.League("elo", history=True)
    # An id that long is refused where every reader refuses it, as an ordinary error.
    huge = "x" * 70_000
    with pytest.raises(podium.MatchError, match="70000 bytes"):
        league.rate([huge, "b"])
    with pytest.raises(podium.MatchError, match="70000 bytes"):
        league.rate(["a", "b"], factors={"a": {"car": "y" * 70_000}})
    assert league.matches_rated == 0
    # The longest id and factor value allowed print cut to a cell's width.
    wide = "x" * 200
    league.rate([wide, "b"], factors={wide: {"car": "y" * 200}, "b": {"car": "red"}})
    for table in (league.standings(), league.history(), league.factor_standings()):
        shown = repr(table)
        assert "x" * 39 + "…" in shown or "y" * 39 + "…" in shown
        assert "x" * 40 not in shown and "y" * 40 not in shown
        str(table)
    # The rows keep the value whole.
    assert {s.player for s in league.standings()} == {wide, "b"}


def test_a_player_id_with_a_line_break_is_refused_not_printed_across_lines():
    league = podium.League("sme")
    with pytest.raises(podium.MatchError, match="control characters"):
        league.rate(["a\nb", "c"])
    league.rate(["a b", "c"])
    lines = repr(league.standings()).splitlines()
    assert len(lines) == 4
    assert any("a b" in line for line in lines)


def test_backtest_with_a_billion_threads_starts_at_most_one_per_core():
    one = podium.backtest(history(), ["sme", "elo"], threads=1).to_dicts()
    many = podium.backtest(history(), ["sme", "elo"], threads=10**9).to_dicts()
    for a, b in zip(one, many):
        assert a["accuracy"] == pytest.approx(b["accuracy"], abs=1e-12)
        assert a["warm_pairs"] == b["warm_pairs"]
    result = podium.tune(history(), "sme", {"k": [16, 32]}, threads=10**9)
    assert result.train_matches == 6
    sim = podium.simulate("sme", rounds=[1], trials=20, threads=10**9)
    assert sim.trials == 20


@pytest.mark.parametrize("call", [
    lambda: podium.backtest(history(), "sme", threads=-1),
    lambda: podium.tune(history(), "sme", {"k": [16, 32]}, threads=-1),
    lambda: podium.simulate("sme", trials=20, threads=-1),
])
def test_negative_threads_are_a_value_error_naming_the_argument(call):
    with pytest.raises(ValueError, match=r"threads=-1: expected a whole number ≥ 0"):
        call()


def test_a_prediction_of_more_than_5000_entries_is_refused():
    league = podium.League()
    with pytest.raises(ValueError, match=r"^entries: 30000 entries .*; at most 5000 are allowed$"):
        league.predict([f"p{i}" for i in range(30_000)])
    with pytest.raises(ValueError, match=r"^entries: 5001 entries"):
        league.predict(f"p{i}" for i in range(30_000))
    assert len(league.predict(["a", "b", "c"]).win) == 3


@pytest.mark.parametrize("params, kwargs, message", [
    ({"k": (8, 64)}, {"steps": 10**9},
     r"the grid has 1000000000 candidates \(k: 1000000000 values\); at most 10000 are searched"),
    ({"k": (8, 64), "scale": (100, 400)}, {"steps": 100_000},
     r"the grid has 10000000000 candidates \(k: 100000 values, scale: 100000 values\)"),
    ({"k": (8, 64, 1e-7)}, {}, r"the grid has 560000001 candidates"),
    ({"k": "8..64:0.0000001"}, {}, r"the grid has 560000001 candidates"),
    ({"k": (8, 64)}, {"samples": 10**12},
     r"^samples=1000000000000: at most 10000 random samples are searched$"),
])
def test_tune_grids_and_samples_are_bounded_before_allocating(params, kwargs, message):
    with pytest.raises(podium.ConfigError, match=message):
        podium.tune(history(), "sme", params, **kwargs)


@pytest.mark.parametrize("argument", ["steps", "samples"])
def test_negative_tune_counts_are_a_value_error(argument):
    with pytest.raises(ValueError, match=rf"{argument}=-1: expected a whole number ≥ 0"):
        podium.tune(history(), "sme", {"k": (8, 64)}, **{argument: -1})


def test_min_games_minus_one_is_a_value_error_not_an_overflow():
    league = podium.League()
    league.rate(["a", "b"])
    with pytest.raises(ValueError, match=r"min_games=-1: expected a whole number ≥ 0"):
        league.standings(min_games=-1)
    assert len(league.standings(min_games=10**6)) == 0
    assert len(league.standings(min_games=1)) == 2


FOUR = ["ann", "bo", "cy", "di"]


# Every int argument of an unsigned type: a negative one (or one above the type's largest
# value) is a ValueError naming the argument and the limit, not PyO3's OverflowError.
@pytest.mark.parametrize("argument, call", [
    ("games", lambda v: podium.League().set_initial("x", 1500, games=v)),
    ("teams", lambda v: podium.League().balance(FOUR, teams=v)),
    ("tables", lambda v: podium.League().balance(FOUR, tables=v)),
    ("sizes[1]", lambda v: podium.League().balance(FOUR, sizes=[2, v])),
    ('fix["ann"]', lambda v: podium.League().balance(FOUR, teams=2, fix={"ann": v})),
    ("top", lambda v: podium.League().balance(FOUR, teams=2, top=v)),
    ("trials", lambda v: podium.simulate("sme", rounds=[1], trials=v)),
    ("rounds[1]", lambda v: podium.simulate("sme", rounds=[1, v], trials=20)),
    ("seed", lambda v: podium.simulate("sme", rounds=[1], trials=20, seed=v)),
    ("seed", lambda v: podium.tune(history(), "sme", {"k": [16, 32]}, seed=v)),
    ("min_meetings", lambda v: podium.versus(history(), "ann", min_meetings=v)),
    ("frequent", lambda v: podium.versus(history(), "ann", frequent=v)),
])
def test_negative_counts_are_a_value_error_naming_the_argument(argument, call):
    with pytest.raises(ValueError, match=rf"^{re.escape(argument)}=-1: expected a whole number ≥ 0$"):
        call(-1)


@pytest.mark.parametrize("argument, limit, call", [
    ("games", 2**32 - 1, lambda v: podium.League().set_initial("x", 1500, games=v)),
    ("trials", 2**32 - 1, lambda v: podium.simulate("sme", rounds=[1], trials=v)),
    ("rounds[0]", 2**32 - 1, lambda v: podium.simulate("sme", rounds=[v], trials=20)),
    ("seed", 2**64 - 1, lambda v: podium.simulate("sme", rounds=[1], trials=20, seed=v)),
])
def test_counts_beyond_their_type_name_the_argument_and_the_limit(argument, limit, call):
    with pytest.raises(ValueError, match=rf"^{re.escape(argument)}={limit + 1}: "
                                         rf"expected a whole number ≤ {limit}$"):
        call(limit + 1)


def test_counts_at_their_limits_are_taken():
    league = podium.League("sme")
    league.set_initial("x", 1500, games=2**32 - 1)
    assert league.rating("x").games == 2**32 - 1
    assert podium.simulate("sme", rounds=[1], trials=20, seed=2**64 - 1).trials == 20
    # More meetings than any two players had: no nemesis, no favourite.
    nights = str(EXAMPLES / "game-night.csv")
    rivals = podium.versus(nights, "Sam", min_meetings=10**12)
    assert rivals["nemesis"] is None and rivals["favourite"] is None
    assert podium.versus(nights, "Sam", min_meetings=3)["nemesis"] is not None


RULE = ("expected a time: once a match has a time, every later match needs one (only the "
        "matches before the first with a time may have none)")


def test_an_untimed_match_after_timed_ones_is_refused_as_the_readers_refuse_it():
    league = podium.League("sme")
    league.rate(["a", "b"], time="2024-05-01")
    with pytest.raises(podium.RateError) as err:
        league.rate(["a", "b"])
    assert str(err.value) == f'match "2": field `time`: "" is not valid, {RULE}'
    with pytest.raises(podium.RateError, match="expected a time"):
        league.rate(podium.Match(["a", "b"], id="m"))
    assert league.matches_rated == 1
    with pytest.raises(podium.RateError, match="expected a time: once a match has a time"):
        league.rate_many([podium.Match(["a", "b"], time="2024-05-02"), ["b", "a"]])
    assert league.matches_rated == 1
    summary = league.rate_many([podium.Match(["a", "b"], time="2024-05-02"), ["b", "a"]],
                               skip_bad=True)
    assert summary.rated == 1
    assert summary.skipped == [f'match "3": field `time`: "" is not valid, {RULE}']
    # Within one batch too: a match without a time after one with a time.
    fresh = podium.League("sme")
    with pytest.raises(podium.RateError) as err:
        fresh.rate_many([["a", "b"], podium.Match(["b", "a"], time="2024-05-02"), ["a", "b"]])
    assert str(err.value).count("field `time`") == 1 and 'match "3"' in str(err.value)
    assert fresh.matches_rated == 0


def test_a_timed_match_after_untimed_ones_is_taken_as_the_league_server_takes_it():
    # A league may begin without times and take dated matches later; the undated ones,
    # rated first, age nobody.
    league = podium.League("sme")
    league.rate(["a", "b"])
    league.rate(["a", "b"], time="2024-05-01")
    assert league.matches_rated == 2
    at_once = podium.League("sme")
    at_once.rate_many([["a", "b"], podium.Match(["a", "b"], time="2024-05-01")])
    assert at_once.standings() == league.standings()
    # Once a season starts, the dated matches still count.
    league.new_season()
    with pytest.raises(podium.RateError, match="expected a time"):
        league.rate(["b", "a"])


def test_rate_files_refuses_matches_whose_times_do_not_fit_the_league(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("match,player,rank\ng1,a,1\ng1,b,2\n")
    timed_file = tmp_path / "timed.csv"
    timed_file.write_text("match,player,rank,time\nt1,a,1,2024-05-01\nt1,b,2,2024-05-01\n")
    league = podium.League("sme")
    league.rate(["a", "b"], time="2024-04-01")
    # A bad match of the file, as the readers find them: by file, line and field.
    with pytest.raises(podium.ReadError) as err:
        league.rate_files(plain)
    assert err.value.errors == [f'{plain}:2: field `time`: "" is not valid, {RULE}']
    assert (err.value.file, err.value.line, err.value.field, err.value.match_id) == (
        str(plain), 2, "time", "g1")
    assert league.matches_rated == 1
    assert league.rate_files(plain, skip_bad=True).skipped == err.value.errors
    assert league.rate_files(timed_file).rated == 1
    # A league without times takes a file with times, then refuses one without.
    untimed = podium.League("sme")
    untimed.rate_files(plain)
    assert untimed.rate_files(timed_file).rated == 1
    later = tmp_path / "later.csv"
    later.write_text("match,player,rank\ng2,a,1\ng2,b,2\n")
    with pytest.raises(podium.ReadError, match=r'later.csv:2: field `time`: "" is not valid, '
                                               "expected a time"):
        untimed.rate_files(later)
    assert untimed.matches_rated == 2


# Matches without a time first, then dated ones out of time order, as the league server's
# ledger keeps them: it rates the undated ones first in ledger order, then the dated ones
# by time (ties in ledger order).
SERVER_LEDGER = [
    ("u1", None, ["ann", "bo", "cy"]),
    ("u2", None, ["cy", "ann", "bo"]),
    ("d3", "2024-05-09", ["bo", "cy", "ann"]),
    ("d1", "2024-05-01", ["ann", "cy", "bo"]),
    ("d2", "2024-05-01", ["cy", "bo", "ann"]),
    ("d4", "2024-06-20", ["bo", "ann", "cy"]),
]
SERVER_ORDER = ["u1", "u2", "d1", "d2", "d3", "d4"]


def write_ledger(tmp_path, games):
    import json
    jsonl = tmp_path / "ledger.jsonl"
    jsonl.write_text("".join(
        json.dumps({"match": m, **({"time": t} if t else {}),
                    "results": [{"player": p, "rank": i + 1} for i, p in enumerate(ps)]}) + "\n"
        for m, t, ps in games))
    csv_path = tmp_path / "ledger.csv"
    csv_path.write_text("match,player,rank,time\n" + "".join(
        f"{m},{p},{i + 1},{t or ''}\n" for m, t, ps in games for i, p in enumerate(ps)))
    return jsonl, csv_path


@pytest.mark.parametrize("system", ["glicko2", "sme", "trueskill"])
def test_a_file_that_begins_without_times_rates_as_the_league_server_rates_it(tmp_path, system):
    jsonl, csv_path = write_ledger(tmp_path, SERVER_LEDGER)
    served = podium.League(system)
    by_id = {m: (t, ps) for m, t, ps in SERVER_LEDGER}
    for m in SERVER_ORDER:
        t, ps = by_id[m]
        served.rate(podium.Match(ps, id=m, time=t))
    want = served.standings()
    for path in (jsonl, csv_path):
        league = podium.League(system)
        assert league.rate_files(path).rated == 6
        assert league.standings() == want, path
        read = podium.read(path)
        assert [m.id for m in read] == SERVER_ORDER
        again = podium.League(system)
        again.rate_many(read)
        assert again.standings() == want, path
    # Undated matches rated first, then files with times: as one file.
    league = podium.League(system)
    league.rate(podium.Match(["ann", "bo", "cy"], id="u1"))
    league.rate(podium.Match(["cy", "ann", "bo"], id="u2"))
    dated, _ = write_ledger(tmp_path, SERVER_LEDGER[2:])
    league.rate_files(dated)
    assert league.standings() == want


def test_a_file_with_a_match_without_a_time_after_a_dated_one_is_refused(tmp_path):
    games = SERVER_LEDGER[:4] + [("u9", None, ["ann", "bo"])]
    jsonl, csv_path = write_ledger(tmp_path, games)
    for path, line, dated_line in ((jsonl, 5, 3), (csv_path, 14, 8)):
        with pytest.raises(podium.ReadError) as err:
            podium.read(path)
        e = err.value
        assert (e.file, e.line, e.field, e.match_id) == (str(path), line, "time", "u9")
        assert e.errors == [f'{path}:{line}: field `time`: "" is not valid, {RULE}; match "u9" '
                            f'comes after match "d3" (line {dated_line}), which has one']
        with pytest.raises(podium.ReadError, match="expected a time"):
            podium.League("sme").rate_files(path)


def test_the_readers_word_mixed_times_as_the_league_does(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("match,player,rank,time\n1,a,1,2024-05-01\n1,b,2,2024-05-01\n2,a,1,\n2,b,2,\n")
    with pytest.raises(podium.ReadError, match="expected a time: once a match has a time, "
                                               "every later match needs one"):
        podium.read_csv(path)


def write_history(path, matches, prefix="m"):
    lines = ["match,player,rank"]
    for i in range(matches):
        a = i % 97
        b = (a + 1 + (i // 97) % 95) % 97
        lines += [f"{prefix}{i},p{a},1", f"{prefix}{i},p{b},2", f"{prefix}{i},p{(b + 1) % 97},3"]
    path.write_text("\n".join(lines) + "\n")


# Calls of 20,000 matches each, far more than a machine makes in the timer's 0.3 s: a
# Ctrl-C that is lost fails the test instead of looping for ever.
CALLS_UNTIL_CTRL_C = 2_000


@contextlib.contextmanager
def ctrl_c_soon():
    """Ctrl-C in 0.3 s, as a user would press it. A process started in the background by
    a shell without job control ignores SIGINT, and then `interrupt_main` does nothing:
    Python's own handler is put in place for the test, and the one before it back after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("keep_history", [False, True])
def test_rate_files_interrupted_by_ctrl_c_keeps_nothing_of_that_call(tmp_path, keep_history):
    first, path = tmp_path / "first.csv", tmp_path / "h.csv"
    write_history(first, 20_000, prefix="f")
    write_history(path, 20_000)
    base = podium.League("sme", history=keep_history)
    base.rate_files(first)
    if keep_history:
        base.history()  # records from now on, match by match
    # A match id names one match: each call rates the file into a copy of the league.
    with ctrl_c_soon(), pytest.raises(KeyboardInterrupt):
        for _ in range(CALLS_UNTIL_CTRL_C):
            league = base.copy()
            league.rate_files(path)
        pytest.fail(f"no KeyboardInterrupt in {CALLS_UNTIL_CTRL_C} calls: Ctrl-C was lost")
    # The call that was interrupted left the league as it found it.
    assert league.matches_rated == 20_000
    assert league.rate_files(path).rated == 20_000


def test_rate_many_interrupted_by_ctrl_c_keeps_nothing_of_that_call(tmp_path):
    first, path = tmp_path / "first.csv", tmp_path / "h.csv"
    write_history(first, 20_000, prefix="f")
    write_history(path, 20_000)
    matches = podium.read_csv(path)
    base = podium.League("sme")
    base.rate_many(podium.read_csv(first))
    with ctrl_c_soon(), pytest.raises(KeyboardInterrupt):
        for _ in range(CALLS_UNTIL_CTRL_C):
            league = base.copy()
            league.rate_many(matches, skip_bad=True)
        pytest.fail(f"no KeyboardInterrupt in {CALLS_UNTIL_CTRL_C} calls: Ctrl-C was lost")
    assert league.matches_rated == 20_000
    assert league.rate_many(matches).rated == 20_000


def test_backtest_and_tune_stop_on_ctrl_c(tmp_path):
    path = tmp_path / "h.csv"
    write_history(path, 5_000)
    matches = podium.read_csv(path)
    for run in (lambda: podium.backtest(matches, "all"),
                lambda: podium.tune(matches, "sme", {"k": (1, 64)}, steps=64)):
        with ctrl_c_soon(), pytest.raises(KeyboardInterrupt):
            for _ in range(CALLS_UNTIL_CTRL_C):
                run()
            pytest.fail(f"no KeyboardInterrupt in {CALLS_UNTIL_CTRL_C} calls: Ctrl-C was lost")
    # The package works on after an interrupt.
    assert podium.backtest(history(), "sme")[0].warm_pairs > 0


def _balance_running() -> bool:
    """Whether a search of `League.balance` is under way: its thread, which Linux lists
    by name in /proc."""
    tasks = pathlib.Path("/proc/self/task")
    return any((t / "comm").read_text().strip() == "podium-balance" for t in tasks.iterdir())


@pytest.mark.skipif(not pathlib.Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_balance_stops_on_ctrl_c_while_its_search_runs():
    """A split of 200 players into 10 tables searches for seconds; Ctrl-C is taken while
    the search runs (its handler sees the search's thread), not after it ends."""
    names = [f"p{i}" for i in range(200)]
    league = podium.League("sme")
    league.rate(names)
    seen = []

    def handler(signum, frame):
        seen.append(_balance_running())
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in range(CALLS_UNTIL_CTRL_C):
                league.balance(names, tables=10)
            pytest.fail(f"no KeyboardInterrupt in {CALLS_UNTIL_CTRL_C} calls: Ctrl-C was lost")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)
    assert seen == [True]
    # The league works on after an interrupt.
    assert len(league.balance(names[:4], teams=2)[0]["teams"]) == 2


# Ints beyond 64 bits where a count is expected: a ValueError naming the argument and its
# range, not PyO3's OverflowError naming neither.
HUGE = 2**70


@pytest.mark.parametrize("argument, limit, call", [
    ("trials", 2**32 - 1, lambda v: podium.simulate("sme", rounds=[1], trials=v)),
    ("rounds[0]", 2**32 - 1, lambda v: podium.simulate("sme", rounds=[v], trials=20)),
    ("threads", 2**64 - 1, lambda v: podium.simulate("sme", rounds=[1], trials=20, threads=v)),
    ("seed", 2**64 - 1, lambda v: podium.simulate("sme", rounds=[1], trials=20, seed=v)),
    ("games", 2**32 - 1, lambda v: podium.League().set_initial("x", 1500, games=v)),
    ("top", 2**64 - 1, lambda v: podium.League().balance(FOUR, teams=2, top=v)),
    ("teams", 2**64 - 1, lambda v: podium.League().balance(FOUR, teams=v)),
    ("tables", 2**64 - 1, lambda v: podium.League().balance(FOUR, tables=v)),
    ("sizes[0]", 2**64 - 1, lambda v: podium.League().balance(FOUR, sizes=[v])),
    ('fix["ann"]', 2**64 - 1, lambda v: podium.League().balance(FOUR, teams=2, fix={"ann": v})),
    ("steps", 2**64 - 1, lambda v: podium.tune(history(), "sme", {"k": (8, 64)}, steps=v)),
    ("samples", 2**64 - 1, lambda v: podium.tune(history(), "sme", {"k": (8, 64)}, samples=v)),
    ("threads", 2**64 - 1, lambda v: podium.backtest(history(), "sme", threads=v)),
])
def test_ints_beyond_64_bits_name_the_argument_and_its_range(argument, limit, call):
    for value in (HUGE, -HUGE):
        expected = "≥ 0" if value < 0 else f"≤ {limit}"
        with pytest.raises(ValueError) as err:
            call(value)
        assert str(err.value) == f"{argument}={value}: expected a whole number {expected}"


def test_a_threshold_beyond_64_bits_is_one_no_one_reaches():
    league = podium.League()
    league.rate(["a", "b"])
    assert len(league.standings(min_games=HUGE)) == 0
    with pytest.raises(ValueError) as err:
        league.standings(min_games=-HUGE)
    assert str(err.value) == f"min_games={-HUGE}: expected a whole number ≥ 0"
    rivals = podium.versus(history(), "ann", min_meetings=HUGE)
    assert rivals["nemesis"] is None and rivals["frequent"] == []
    assert len(podium.versus(history(), "ann", min_meetings=1, frequent=HUGE)["frequent"]) == 3
