"""The forms a match takes from Python, and what a match that cannot exist raises."""

import copy
import datetime
import pickle

import pytest

import podium


def places(m):
    return dict(m.places)


def test_a_ranking_is_best_first_and_inner_lists_are_teams():
    m = podium.Match(["ann", ["bo", "cy"], "di"])
    assert m.players == ["ann", "bo", "cy", "di"]
    assert places(m) == {"ann": 1, "bo": 2, "cy": 2, "di": 3}
    assert [e.team for e in m.entries] == [None, "bo+cy", None]
    assert len(m) == 3 and m.id is None and m.time is None


def test_a_mapping_gives_places_and_ties():
    m = podium.Match({"cy": 2, "ann": 1, "bo": 2, ("di", "ed"): 4})
    assert places(m) == {"ann": 1, "cy": 2, "bo": 2, "di": 4, "ed": 4}
    assert m.entries[3].team == "di+ed"
    assert podium.Match({"a": 1.5, "b": 0.5}).players == ["b", "a"]


def test_scores_teams_weights_time_and_id():
    m = podium.Match(
        scores={"red": 31, "blue": 25, "zed": 31},
        teams={"red": ["ann", "bo"], "blue": ["cy", "di"]},
        weights={"di": 0.5},
        time="2024-05-01T20:00:00Z",
        id="night-1",
    )
    assert m.id == "night-1"
    assert m.time == datetime.datetime(2024, 5, 1, 20, tzinfo=datetime.timezone.utc)
    red, zed, blue = m.entries
    assert (red.team, red.players, red.place, red.score) == ("red", ["ann", "bo"], 1, 31.0)
    assert (zed.team, zed.place) == (None, 1)
    assert blue.weights == [1.0, 0.5] and blue.place == 3
    assert repr(m) == "Match(id='night-1', time='2024-05-01T20:00:00Z', results=[1 red: ann+bo (31.0), 1 zed (31.0), 3 blue: cy+di (25.0)])"
    rows = m.to_dicts()
    assert rows[0] == {"match_id": "night-1", "time": m.time, "player": "ann", "team": "red",
                       "place": 1, "score": 31.0, "weight": 1.0}


@pytest.mark.parametrize("given, expected", [
    ("2024-05-01", 1714521600),
    (datetime.date(2024, 5, 1), 1714521600),
    (datetime.datetime(2024, 5, 1), 1714521600),
    (datetime.datetime(2024, 5, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=2))), 1714521600),
    (1714521600, 1714521600),
    (1714521600.7, 1714521600),
])
def test_times_in_every_form(given, expected):
    m = podium.Match(["a", "b"], time=given)
    assert m.time.timestamp() == expected


def test_bad_times():
    with pytest.raises(ValueError, match="is not valid, expected RFC 3339"):
        podium.Match(["a", "b"], time="yesterday")
    with pytest.raises(TypeError):
        podium.Match(["a", "b"], time=[2024])
    with pytest.raises(ValueError):
        podium.Match(["a", "b"], time=float("inf"))


def test_time_nan_is_refused_not_dropped():
    with pytest.raises(ValueError, match="time nan is not a number of seconds; give None"):
        podium.Match(["a", "b"], time=float("nan"))
    with pytest.raises(ValueError, match="time nan is not a number of seconds"):
        podium.League().rate(["a", "b"], time=float("nan"))


@pytest.mark.parametrize("given, message", [
    ([], "a match needs at least 2 entries, found 0"),
    (["ann"], "a match needs at least 2 entries, found 1"),
    (["ann", "bo", "ann"], 'player "ann" appears more than once in the match'),
    ({"ann": 1, "bo": float("nan")}, 'player "bo": finish NaN is not a finite number'),
    ({"ann": 1, "bo": float("inf")}, 'player "bo": finish inf is not a finite number'),
    ([" ann", "bo"], 'player id " ann" is not valid'),
    (["", "bo"], 'player id "" is not valid'),
    ([[], "bo"], 'team "" has no players'),
])
def test_matches_that_cannot_exist(given, message):
    with pytest.raises(podium.MatchError) as err:
        podium.Match(given)
    assert message in str(err.value)
    league = podium.League("sme")
    with pytest.raises(podium.MatchError):
        league.rate(given)
    assert league.matches_rated == 0 and len(league) == 0
    assert issubclass(podium.MatchError, ValueError)


def test_other_bad_matches():
    with pytest.raises(podium.MatchError, match="weight 0 must be in"):
        podium.Match(["a", "b"], weights={"a": 0})
    with pytest.raises(podium.MatchError, match="weight 1.5 must be in"):
        podium.Match(["a", "b"], weights={"a": 1.5})
    with pytest.raises(podium.MatchError, match='weights: player "c" is not in the match'):
        podium.Match(["a", "b"], weights={"c": 0.5})
    with pytest.raises(podium.MatchError, match='team "blue" is among the teams but has no result'):
        podium.Match({"red": 1, "x": 2}, teams={"red": ["a"], "blue": ["b"]})
    with pytest.raises(TypeError, match=r"an entry is a player id or a list of player ids \(a team\), not int"):
        podium.Match([1, 2])
    with pytest.raises(TypeError, match="player ids are strings, not int"):
        podium.Match([["a", 2], "b"])
    with pytest.raises(TypeError, match="not a string"):
        podium.Match("ann")
    with pytest.raises(TypeError, match="not both"):
        podium.Match(["a", "b"], scores={"a": 1, "b": 2})
    with pytest.raises(TypeError, match="needs its results"):
        podium.Match()
    with pytest.raises(TypeError, match="a place is a number"):
        podium.Match({"a": "first", "b": 2})
    with pytest.raises(TypeError, match="not a bool"):
        podium.Match({"a": True, "b": 2})


def test_matches_compare_by_value():
    assert podium.Match(["a", "b"], id="g") == podium.Match({"b": 2, "a": 1}, id="g")
    assert podium.Match(["a", "b"], id="g") != podium.Match(["b", "a"], id="g")


RANKING_NOT_A_SET = ("a ranking is an ordered sequence of entries (best first), not a {}, "
                     "whose order is arbitrary; give a list, or a mapping of places")
MATCHES_NOT_A_SET = ("matches are an ordered sequence of matches (rated in that order), not a {}, "
                     "whose order is arbitrary; give a list")


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_is_no_ranking(kind):
    """A set's order is its hashes', which change from run to run: no ranking."""
    players = kind({"ann", "bo", "cy"})
    message = RANKING_NOT_A_SET.format(kind.__name__)
    with pytest.raises(TypeError) as err:
        podium.Match(players)
    assert str(err.value) == message
    league = podium.League("sme")
    with pytest.raises(TypeError) as err:
        league.rate(players)
    assert str(err.value) == message
    assert league.matches_rated == 0 and len(league) == 0


@pytest.mark.parametrize("kind", [set, frozenset])
def test_a_set_of_matches_is_refused(kind):
    matches = kind({("ann", "bo"), ("bo", "cy")})
    message = MATCHES_NOT_A_SET.format(kind.__name__)
    league = podium.League("sme")
    with pytest.raises(TypeError) as err:
        league.rate_many(matches)
    assert str(err.value) == message
    with pytest.raises(TypeError) as err:
        podium.Matches(matches)
    assert str(err.value) == message
    with pytest.raises(TypeError) as err:
        podium.backtest(matches, ["sme"])
    assert str(err.value) == message
    assert league.matches_rated == 0


def test_a_frozenset_team_is_named_by_its_players_in_order():
    m = podium.Match({frozenset({"cy", "ann", "bo"}): 1, "di": 2})
    assert m.entries[0].team == "ann+bo+cy" and m.players == ["ann", "bo", "cy", "di"]


RANGE = ("is out of the range of times podium takes: -009999-01-01T00:00:00Z to "
         "9999-12-31T23:59:59Z (-377705116800 to 253402300799 seconds since 1970)")


@pytest.mark.parametrize("given, shown", [
    (1e20, "1e+20"),
    (-1e20, "-1e+20"),
    (253402300800.0, "253402300800.0"),
    (10**18, "1000000000000000000"),
    (253402300800, "253402300800"),
    (-377705116801, "-377705116801"),
    (10**30, "1000000000000000000000000000000"),
    ("9999-12-31T23:59:59-01:00", '"9999-12-31T23:59:59-01:00"'),
])
def test_a_time_beyond_the_years_podium_takes_is_refused(given, shown):
    with pytest.raises(ValueError) as err:
        podium.Match(["a", "b"], time=given)
    assert str(err.value) == f"time {shown} {RANGE}"
    league = podium.League("sme")
    with pytest.raises(ValueError) as err:
        league.rate(["a", "b"], time=given)
    assert str(err.value) == f"time {shown} {RANGE}"
    assert league.matches_rated == 0


def test_the_ends_of_the_range_are_taken():
    last = podium.Match(["a", "b"], time=253402300799)
    assert last.time == datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)
    # Before the year 1, which datetime does not hold, a time is its RFC 3339 text.
    assert podium.Match(["a", "b"], time=-377705116800).time == "-009999-01-01"


EMPTY_ID = 'id: "" is not valid, expected a match id (leave id out, or None, for a match without one)'


def test_an_empty_id_is_refused_as_the_readers_refuse_it():
    with pytest.raises(podium.MatchError) as err:
        podium.Match(["a", "b"], id="")
    assert str(err.value) == EMPTY_ID
    league = podium.League("sme")
    with pytest.raises(podium.MatchError) as err:
        league.rate(["a", "b"], id="")
    assert str(err.value) == EMPTY_ID
    assert league.matches_rated == 0
    # Without an id, a league numbers the match.
    assert podium.Match(["a", "b"], id=None).id is None
    league.rate(["a", "b"], id=None)
    assert league.matches_rated == 1


def test_the_rows_of_a_match_without_an_id_have_none():
    m = podium.Match(["a", "b"])
    assert m.id is None
    assert [r["match_id"] for r in m.to_dicts()] == [None, None]
    assert [r["match_id"] for r in podium.Match(["a", "b"], id="g1").to_dicts()] == ["g1", "g1"]
    # In a Matches, a match without an id is numbered.
    assert [r["match_id"] for r in podium.Matches([m]).to_dicts()] == ["1", "1"]


def test_a_slice_counts_its_own_players():
    ms = podium.Matches([["a", "b", "c"], ["c", "d"], ["e", "a"]])
    assert repr(ms) == "Matches(3 matches, 5 players)"
    assert repr(ms[:1]) == "Matches(1 match, 3 players)"
    assert repr(ms[1:]) == "Matches(2 matches, 4 players)"
    assert repr(ms[5:]) == "Matches(0 matches, 0 players)"
    assert len(ms[1:].players) == 4


@pytest.mark.parametrize("index", [2**63, -2**63 - 1, 2**70, -2**70])
def test_an_index_beyond_64_bits_is_an_index_error(index):
    ms = podium.Matches([["a", "b"], ["b", "a"]])
    with pytest.raises(IndexError) as err:
        ms[index]
    assert str(err.value) == f"match {index} of 2 matches"
    league = podium.League("sme")
    league.rate(["a", "b"])
    with pytest.raises(IndexError) as err:
        league.standings()[index]
    assert str(err.value) == f"row {index} of a table of 2 rows"
    with pytest.raises(TypeError):
        ms[1.0]
    with pytest.raises(TypeError):
        league.standings()[1.0]


COPIES = [lambda x: pickle.loads(pickle.dumps(x)), copy.copy, copy.deepcopy]


@pytest.mark.parametrize("copied", COPIES)
def test_a_match_pickles_and_copies_exactly(copied):
    m = podium.Match(scores={"red": 31.1, "zed": 0.1 + 0.2}, teams={"red": ["ann", "bo"]},
                     weights={"bo": 1 / 3}, factors={"red": {"car": "x", "seat": 2}},
                     time="2024-05-01T20:00:00Z", id="g1")
    c = copied(m)
    assert c == m and repr(c) == repr(m) and c.to_dicts() == m.to_dicts()
    assert c.entries[0].weights == [1.0, 1 / 3] and c.entries[1].score == 0.1 + 0.2
    plain = copied(podium.Match({"a": 2.5, "b": 1}))
    assert plain == podium.Match({"a": 2.5, "b": 1}) and plain.id is None


@pytest.mark.parametrize("copied", COPIES)
def test_matches_pickle_and_copy_with_what_they_skipped(copied, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("match,time,player,rank,car\ng1,2024-05-01,a,1,red\ng1,2024-05-01,b,2,blue\n"
                    "g2,2024-05-02,a,1,red\ng2,2024-05-02,a,2,red\n"
                    "g3,2024-05-03,b,1,blue\ng3,2024-05-03,a,2,red\n")
    ms = podium.read(path, skip_bad=True, factors=["car"])
    c = copied(ms)
    assert list(c) == list(ms) and c.skipped == ms.skipped and len(c.skipped) == 1
    assert repr(c) == repr(ms) and copied(ms[1:]).to_dicts() == ms[1:].to_dicts()
    # Numbered ids stay numbered: a league holds given ids against later matches, never
    # the numbers of matches given none.
    numbered = podium.Matches([["a", "b"], ["b", "a"]])
    league = podium.League("sme")
    league.rate_many(numbered)
    league.rate_many(copied(numbered))
    assert league.matches_rated == 4
    league.rate_many(copied(ms))
    with pytest.raises(podium.RateError, match='"g1"'):
        league.rate_many(copied(ms))
