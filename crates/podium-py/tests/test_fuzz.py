"""No crash on bad input: random garbage rows, NaN scores, empty matches, huge ids. Every
failure is one of the documented exceptions."""

import math
import random

import pytest

import podium

EXPECTED = (podium.PodiumError, TypeError, ValueError, OSError, KeyError)
# What the entry points may raise for an arbitrary Python value: the above, and
# OverflowError for an int beyond 64 bits where a count or seed is expected. A Rust panic
# (PyO3's PanicException, a BaseException) is none of these.
DOCUMENTED = EXPECTED + (OverflowError,)


def garbage_field(rng):
    return rng.choice([
        "", "1", "2", "-3", "1e308", "1e-320", "nan", "NaN", "inf", "-inf", "x", " a ",
        '"', '""', "a,b", "\t", "0", "0.5", "1.5", "é", "\u202e", "9" * 400,
        "2024-05-01", "2024-13-45", "💥", "a" * 10_000,
    ])


@pytest.mark.parametrize("seed", range(30))
def test_random_csv_rows(tmp_path, seed):
    rng = random.Random(seed)
    header = rng.choice(["match,player,rank", "match,player,score,team,time,weight",
                         "match,player,rank,weight", "player,match,score", "match,player"])
    lines = [header]
    for _ in range(rng.randint(0, 40)):
        n = len(header.split(",")) + rng.choice([-1, 0, 0, 0, 1])
        lines.append(",".join(garbage_field(rng) for _ in range(max(n, 0))))
    path = tmp_path / "g.csv"
    path.write_text("\n".join(lines) + rng.choice(["", "\n", "\r\n"]))
    for skip_bad in (False, True):
        try:
            matches = podium.read_csv(path, skip_bad=skip_bad)
        except EXPECTED:
            continue
        for system in ("sme", "trueskill", "plackett-luce", "proportional"):
            league = podium.League(system)
            try:
                league.rate_many(matches, skip_bad=True)
            except EXPECTED:
                pass
            for s in league.standings():
                assert isinstance(s.rating, float)


@pytest.mark.parametrize("seed", range(20))
def test_random_matches_from_python(seed):
    rng = random.Random(seed)
    league = podium.League(rng.choice(["sme", "trueskill", "thurstone-mosteller-full", "mes", "shares"]))
    values = [1, 2, 2, 3, 0, -1, 1e308, -1e308, 5e-324, math.nan, math.inf, "x", None, True]
    ids = ["a", "b", "c", "", " d", "e" * 100_000, "\x00", "ü"]
    for _ in range(50):
        kind = rng.randrange(4)
        try:
            if kind == 0:
                league.rate([rng.choice(ids) for _ in range(rng.randint(0, 4))])
            elif kind == 1:
                league.rate({rng.choice(ids): rng.choice(values) for _ in range(rng.randint(0, 4))})
            elif kind == 2:
                league.rate(podium.Match(scores={rng.choice(ids): rng.choice(values)
                                                 for _ in range(rng.randint(0, 4))},
                                         weights={}, time=rng.choice([None, 0, -1e12, 1e300, "x"])))
            else:
                league.rate_many([[rng.choice(ids), rng.choice(ids)] for _ in range(3)],
                                 skip_bad=rng.random() < 0.5)
        except EXPECTED:
            pass
    for s in league.standings():
        assert math.isfinite(s.rating)
    league.predict(["a", "b"])


def test_empty_and_huge():
    league = podium.League("sme")
    with pytest.raises(podium.MatchError):
        league.rate([])
    with pytest.raises(podium.MatchError):
        league.rate({})
    assert league.rate_many([]).rated == 0
    assert podium.Matches([]).to_dicts() == []
    # An id of a megabyte is refused, and the message does not repeat it.
    huge = "p" * 1_000_000
    with pytest.raises(podium.MatchError, match=r"\(1000000 bytes\) is not valid") as err:
        league.rate([huge, "b"])
    assert len(str(err.value)) < 300
    assert league.matches_rated == 0
    longest = "p" * 200
    league.rate([longest, "b"])
    assert league.standings()[0].player == longest
    with pytest.raises(podium.MatchError, match="NaN"):
        league.rate(podium.Match(scores={"a": math.nan, "b": 1}))


def test_extreme_times_are_shown():
    m = podium.Match(["a", "b"], time=-62_000_000_000)
    assert m.time is not None
    with pytest.raises(ValueError) as err:
        podium.Match(["a", "b"], time=10**17)
    assert str(err.value) == (
        "time 100000000000000000 is out of the range of times podium takes: "
        "-009999-01-01T00:00:00Z to 9999-12-31T23:59:59Z "
        "(-377705116800 to 253402300799 seconds since 1970)")


def arbitrary(rng, depth=0):
    """A Python value of any common kind, small, huge, odd or nested."""
    atoms = [
        None, True, False, 0, 1, 2, -1, 3, 10**9, 10**12, 2**63, 2**70, -(2**70),
        0.0, -0.0, 0.5, 1e-320, 1e308, math.nan, math.inf, -math.inf,
        "", "a", "b", "sme", "elo", "all", "accuracy", "log_loss", "rating", "conservative",
        "8..64", "8..64:0.0000001", "k=1", "x" * 70_000, "\x00", "💥", "2024-05-01",
        b"bytes", object(), (), [], {}, range(3),
    ]
    if depth < 2 and rng.random() < 0.3:
        n = rng.randint(0, 4)
        kind = rng.randrange(4)
        items = [arbitrary(rng, depth + 1) for _ in range(n)]
        if kind == 0:
            return items
        if kind == 1:
            return tuple(items)
        if kind == 2:
            keys = [rng.choice(["k", "scale", "a", "b", "car", "x"]) for _ in range(n)]
            return dict(zip(keys, items))
        return iter(items)
    return rng.choice(atoms)


def small_history():
    return [["a", "b", "c"], ["b", "a", "c"], ["c", "b", "a"], ["a", "c", "b"]]


@pytest.mark.parametrize("seed", range(25))
def test_arbitrary_python_values_at_every_entry_point_raise_only_documented_errors(seed):
    rng = random.Random(seed)
    league = podium.League("sme", history=True)
    league.rate_many(small_history())
    a = lambda: arbitrary(rng)  # noqa: E731
    calls = [
        lambda: podium.League(a()),
        lambda: podium.League("sme", history=a()),
        lambda: podium.System(a()),
        lambda: podium.System("sme", k=a()),
        lambda: podium.Match(a()),
        lambda: podium.Match(["a", "b"], time=a(), id=a()),
        lambda: podium.Match(scores=a(), teams=a(), weights=a(), factors=a()),
        lambda: league.rate(a()),
        lambda: league.rate(["a", "b"], id=a(), time=a(), factors=a()),
        lambda: league.rate_many(a(), skip_bad=a()),
        lambda: league.rate_many([a(), a()]),
        lambda: league.rate_files(a()),
        lambda: league.predict(a()),
        lambda: league.predict(["a", "b"], time=a(), factors=a()),
        lambda: league.standings(min_games=a(), by=a()),
        lambda: league.rating(a()),
        lambda: league.history(a()),
        lambda: league.factor_history(a(), a()),
        lambda: league.factor_rating(a(), a()),
        lambda: league.set_initial(a(), a(), sigma=a(), games=a()),
        lambda: repr(league.standings()),
        lambda: podium.backtest(a()),
        lambda: podium.backtest(small_history(), a(), start=a(), end=a(), threads=a()),
        lambda: podium.backtest(small_history(), "sme", log_loss=a(), factors=a()),
        lambda: podium.simulate(a(), rounds=[1], trials=10),
        lambda: podium.simulate("sme", true_ratings=a(), sd=a(), rounds=[1, 2], trials=5),
        lambda: podium.simulate("sme", rounds=rng.choice([[], [0], [-1], [1, 1], None, "x", [1.5]]),
                                trials=5, seed=a(), jitter=a(), threads=a()),
        lambda: podium.simulate("sme", rounds=[1], trials=5, seat_advantage=a()),
        lambda: podium.tune(small_history(), a(), a()),
        lambda: podium.tune(small_history(), "sme", {"k": a()}, train=a(), metric=a()),
        lambda: podium.tune(small_history(), "sme", {"k": (8, 64)}, steps=a(), threads=a()),
        lambda: podium.tune(small_history(), "sme", {"k": (8, 64)}, samples=a(), seed=a()),
        lambda: podium.read_csv(a()),
        lambda: podium.read(a(), format=a(), skip_bad=a(), factors=a()),
    ]
    for _ in range(60):
        call = rng.choice(calls)
        try:
            result = call()
            repr(result)
        except DOCUMENTED:
            pass
    # The league is still whole and usable.
    for s in league.standings():
        assert math.isfinite(s.rating)
    assert len(league.predict(["a", "b"]).win) == 2
