"""Numbers as numpy (and pandas, which gives numpy's) hands them over: its integers are
taken wherever a Python int is, its bools refused wherever a Python bool is."""

import datetime

import pytest

import podium

np = pytest.importorskip("numpy")

MAY_1_NOON = datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("seconds", [np.int64(1714564800), np.int32(1714564800),
                                     np.uint64(1714564800), np.float64(1714564800.0)])
def test_numpy_seconds_are_a_time(seconds):
    assert podium.Match(["a", "b"], time=seconds).time == MAY_1_NOON
    league = podium.League("sme")
    league.rate(["a", "b"], time=seconds)
    assert league.standings()[0].last_played == MAY_1_NOON


@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_a_bool_is_no_time(flag):
    with pytest.raises(TypeError) as err:
        podium.Match(["a", "b"], time=flag)
    assert str(err.value) == "a time is a datetime, a date, a string or seconds since 1970, not a bool"


@pytest.mark.parametrize("seat", [2, np.int64(2), np.uint8(2)])
def test_a_numpy_integer_is_a_factor_value(seat):
    m = podium.Match(["a", "b"], factors={"a": {"seat": seat}})
    assert m.entries[0].factors == {"seat": "2"}
    assert repr(m) == "Match(results=[1 a@seat=2, 2 b])"


@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_a_bool_is_no_factor_value(flag):
    with pytest.raises(podium.MatchError) as err:
        podium.Match(["a", "b"], factors={"a": {"seat": flag}})
    with pytest.raises(podium.MatchError) as python_bool:
        podium.Match(["a", "b"], factors={"a": {"seat": True}})
    assert str(err.value) == str(python_bool.value)
    assert str(err.value).startswith('player "a": factor "seat": ')


def test_a_numpy_float_factor_value_is_written_as_a_python_float():
    with pytest.raises(podium.MatchError) as numpy_float:
        podium.Match(["a", "b"], factors={"a": {"seat": np.float64(2.5)}})
    with pytest.raises(podium.MatchError) as python_float:
        podium.Match(["a", "b"], factors={"a": {"seat": 2.5}})
    assert str(numpy_float.value) == str(python_float.value)


def test_numpy_places_scores_and_weights():
    m = podium.Match({"a": np.int64(2), "b": np.float32(1.0)}, weights={"a": np.float64(0.5)})
    assert dict(m.places) == {"b": 1, "a": 2}
    assert m.entries[1].weights == [0.5]
    s = podium.Match(scores={"a": np.int16(31), "b": np.float64(25.5)})
    assert [e.score for e in s.entries] == [31.0, 25.5]


@pytest.mark.parametrize("what, build", [
    ("place", lambda flag: podium.Match({"a": flag, "b": 2})),
    ("score", lambda flag: podium.Match(scores={"a": flag, "b": 2})),
    ("weight", lambda flag: podium.Match(["a", "b"], weights={"a": flag})),
])
@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_a_bool_is_no_place_score_or_weight(what, build, flag):
    with pytest.raises(TypeError) as err:
        build(flag)
    assert str(err.value) == f"a {what} is a number, not a bool"


def test_numpy_parameters_and_bounds():
    assert podium.System("elo", k=np.int64(24)) == podium.System("elo", k=24)
    assert podium.System("elo", k=np.float64(24.5)) == podium.System("elo", k=24.5)
    ms = [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]
    scored = podium.backtest(ms, ["elo"], start=np.int64(3))[0]
    assert (scored.matches_rated, scored.matches_scored, scored.warm_pairs) == (4, 2, 2)


@pytest.mark.parametrize("given", [np.datetime64("2024-05-01T12:00:00"),
                                   np.datetime64("2024-05-01T12:00:00.999999999"),
                                   np.datetime64(1714564800, "s")])
def test_a_numpy_datetime64_is_a_time_kept_to_the_second(given):
    assert podium.Match(["a", "b"], time=given).time == MAY_1_NOON
    before_1970 = podium.Match(["a", "b"], time=np.datetime64("1969-12-31T23:59:59.5")).time
    assert before_1970 == datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)


def test_a_missing_numpy_time_is_refused_as_nan_is():
    with pytest.raises(ValueError) as err:
        podium.Match(["a", "b"], time=np.datetime64("NaT"))
    assert str(err.value) == "time NaT is not a time; give None for a match without a time"


def test_a_backtest_window_may_be_numpy_times():
    ms = [podium.Match(["a", "b"], time=f"2024-05-0{d}") for d in range(1, 5)]
    scored = podium.backtest(ms, ["elo"], start=np.datetime64("2024-05-03"))[0]
    assert scored.matches_scored == 2
