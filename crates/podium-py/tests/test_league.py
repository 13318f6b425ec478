"""Leagues: rating one match or many, the leaderboard, ratings, histories, predictions."""

import copy

import pytest

import podium
from conftest import EXAMPLES

GAME_NIGHTS = [str(EXAMPLES / "game-night.csv"), str(EXAMPLES / "game-night.jsonl")]


def test_rate_returns_each_player_s_change():
    league = podium.League("sme")
    changes = league.rate(["ann", "bo", "cy"], time="2024-05-01")
    assert changes.columns == ["match_id", "time", "player", "place", "rating_before",
                               "sigma_before", "expected", "actual", "k", "weight",
                               "change", "rating_after", "sigma_after"]
    ann = changes[0]
    assert (ann.match_id, ann.player, ann.place, ann.k) == ("1", "ann", 1, 32.0)
    assert ann.rating_after == 1516.0 and ann.change == 16.0
    assert changes[-1].player == "cy" and changes[-1].rating_after == 1484.0
    assert league.rate({"cy": 1, "ann": 2}, id="g2", time="2024-05-02")[0].match_id == "g2"
    assert league.matches_rated == 2
    assert league.players == ["ann", "bo", "cy"]
    assert "ann" in league and "zed" not in league and len(league) == 3
    with pytest.raises(TypeError, match="belong to the Match"):
        league.rate(podium.Match(["a", "b"]), id="x")


def test_a_league_given_no_system_rates_with_the_default():
    league = podium.League()
    assert league.system == podium.System("kalman-mmr")
    tuned = podium.League(switch_z=3)
    assert tuned.system == podium.System("kalman-mmr", switch_z=3)
    league.rate(["ann", "bo", "cy"])
    explicit = podium.League("kalman-mmr")
    explicit.rate(["ann", "bo", "cy"])
    assert league.standings().to_dicts() == explicit.standings().to_dicts()
    with pytest.raises(podium.ConfigError, match="kk"):
        podium.League(kk=3)


def test_standings_and_ratings():
    league = podium.League("sme")
    league.rate(["ann", "bo", "cy"], time="2024-05-01")
    league.rate({"ann": 1, "bo": 1, "cy": 3}, time="2024-05-01")
    board = league.standings()
    assert [s.player for s in board] == ["ann", "bo", "cy"]
    ann = board[0]
    assert (ann.position, ann.games, ann.avg_size) == (1, 2, 3.0)
    assert ann.wins == 1.5 and ann.win_pct == 75.0
    assert ann.expected_win_pct == pytest.approx(100 / 3)
    assert ann.net_pct == ann.win_pct - ann.expected_win_pct
    assert ann.last_played.isoformat() == "2024-05-01T00:00:00+00:00"
    # Two games: a rating is provisional until its fifth.
    assert ann.last_match == "2" and ann.sigma is None and ann.provisional is True
    r = league.rating("ann")
    assert (r.player, r.value, r.games) == ("ann", ann.rating, 2)
    with pytest.raises(KeyError, match="zed"):
        league.rating("zed")
    assert [s.player for s in league.standings(min_games=3)] == []


def test_rate_many_is_all_or_nothing():
    league = podium.League("elo")
    league.rate(["ann", "bo"])
    league.history()  # recorded from here on
    before = (league.standings(), league.history(), league.matches_rated)
    bad = [["ann", "bo"], ["ann", "bo", "cy"], ["bo", "ann"], ["a", "b", "c", "d"]]
    with pytest.raises(podium.RateError) as err:
        league.rate_many(bad)
    assert str(err.value).startswith("2 bad matches found, nothing rated (pass skip_bad=True to rate the rest):")
    assert err.value.errors == [
        'match "3": system elo rates matches of exactly 2 entries, this one has 3',
        'match "5": system elo rates matches of exactly 2 entries, this one has 4',
    ]
    assert (league.standings(), league.history(), league.matches_rated) == before
    summary = league.rate_many(bad, skip_bad=True)
    assert summary.rated == 2 and len(summary.skipped) == 2
    assert league.matches_rated == 3
    assert [c.match_id for c in league.history("ann")] == ["1", "2", "4"]


@pytest.mark.parametrize("count", [8, 100])
@pytest.mark.parametrize("form", ["Matches", "list of Match", "rankings"])
def test_a_history_passes_over_the_matches_a_batch_left_out(count, form):
    """Matches left out by a batch rated at once, one found refused after a later one
    (held to be rated together), are passed over when the history is rated again; a
    batch of many matches and one of a few give the history of `rate()` one by one."""
    games = [["a", "b"] if i % 2 else ["b", "a"] for i in range(count)]
    games[3] = ["a", "b", "c"]              # elo rates two players
    ids = [f"g{i}" for i in range(count)]
    ids[5] = "g1"                           # an id rated before it
    ms = [podium.Match(g, id=i) for g, i in zip(games, ids)]
    given = {"Matches": podium.Matches(ms), "list of Match": ms,
             "rankings": games}[form]
    league = podium.League("elo")
    summary = league.rate_many(given, skip_bad=True, at_once=True)
    left_out = {3} if form == "rankings" else {3, 5}
    assert summary.rated == count - len(left_out)
    one_by_one = podium.League("elo")
    for k, m in enumerate(given if form != "Matches" else ms):
        if k not in left_out:
            one_by_one.rate(m, id=str(k + 1)) if form == "rankings" else one_by_one.rate(m)
    assert league.history() == one_by_one.history()
    assert league.standings() == one_by_one.standings()


def test_a_bad_match_in_a_batch_raises_match_error_and_changes_nothing():
    league = podium.League("sme")
    with pytest.raises(podium.MatchError):
        league.rate_many([["a", "b"], ["a", "a"]])
    assert league.matches_rated == 0
    with pytest.raises(TypeError, match="not a single match"):
        league.rate_many({"a": 1, "b": 2})


@pytest.mark.parametrize("system", ["sme", "trueskill", "plackett-luce"])
def test_a_history_asked_for_midway_is_the_history_of_a_fresh_league(system):
    matches = podium.read(GAME_NIGHTS)
    league = podium.League(system)
    league.set_initial("Maya", 30.0 if system != "sme" else 1600.0, games=3)
    league.rate_many(matches[:20])
    early = league.history()
    assert len({c.match_id for c in early}) == 20
    league.rate_many(matches[20:])
    league.rate(["Maya", "Tom"], id="extra", time="2030-01-01")
    fresh = podium.League(system)
    fresh.set_initial("Maya", 30.0 if system != "sme" else 1600.0, games=3)
    fresh.rate_many(matches)
    fresh.rate(["Maya", "Tom"], id="extra", time="2030-01-01")
    assert league.history() == fresh.history()
    assert league.standings() == fresh.standings()
    maya = fresh.history("Maya")
    assert all(c.player == "Maya" for c in maya)
    assert maya[0].rating_before == (30.0 if system != "sme" else 1600.0)
    for a, b in zip(maya, maya[1:]):
        assert b.rating_before == a.rating_after or system != "sme"
    assert maya[-1].rating_after == fresh.rating("Maya").value


def test_a_league_without_history():
    league = podium.League("sme", history=False)
    league.rate(["a", "b"])
    assert not league.keeps_history
    with pytest.raises(podium.PodiumError, match="keeps no history"):
        league.history()


def test_a_copy_is_independent():
    league = podium.League("sme")
    league.rate(["a", "b"])
    snap = league.copy()
    league.rate(["b", "a"])
    assert snap.matches_rated == 1 and league.matches_rated == 2
    assert copy.deepcopy(snap).standings() == snap.standings()
    assert len(snap.history()) == 2 and len(league.history()) == 4


def test_predict():
    league = podium.League("trueskill")
    league.rate_many([["ann", "bo", "cy"]] * 5)
    p = league.predict(["ann", "bo", ["cy", "zed"]])
    assert p.entries == ["ann", "bo", "cy+zed"] and p.new_players == ["zed"]
    assert p.win[0] > p.win[1] > 0
    assert sum(p.win) + p.draw == pytest.approx(1.0)
    assert p.ahead[0][1] + p.ahead[1][0] <= 1.0
    assert p.expected_place[0] < p.expected_place[1]
    assert p.quality is not None
    rows = p.to_dicts()
    assert [r["entry"] for r in rows] == p.entries and rows[0]["win"] == p.win[0]
    sme = podium.League("sme")
    q = sme.predict(["a", "b"])
    assert q.win == [0.5, 0.5] and q.draw is None
    with pytest.raises(podium.MatchError, match="appears more than once"):
        sme.predict(["a", "a"])
    with pytest.raises(TypeError):
        sme.predict("ab")


def test_starting_ratings():
    league = podium.League("trueskill")
    league.set_initial("ann", 30.0)
    assert league.rating("ann").sigma == 25 / 3
    league.set_initial("bo", 20.0, sigma=2.0, games=7)
    assert (league.rating("bo").sigma, league.rating("bo").games) == (2.0, 7)
    with pytest.raises(podium.RateError, match="outside the range system trueskill can rate"):
        league.set_initial("cy", 25.0, sigma=1e155)
    assert "cy" not in league
    with pytest.raises(podium.MatchError):
        league.set_initial(" cy", 25.0)


def test_load_initial_names_the_line(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("player,rating,games\nann,1600,4\nbo,1400\n")
    league = podium.League("sme")
    league.load_initial(good)
    assert league.rating("ann").value == 1600.0 and league.rating("ann").games == 4
    bad = tmp_path / "bad.csv"
    bad.write_text("player,rating\ncy,1500\ndi,lots\n")
    with pytest.raises(podium.ReadError) as err:
        league.load_initial(bad)
    assert f"{bad}:3" in str(err.value) and err.value.line == 3
    assert "cy" not in league
    far = tmp_path / "far.csv"
    far.write_text("player,rating\ncy,1500\ndi,-2e9\n")
    with pytest.raises(podium.RateError, match=":3: field `rating`"):
        league.load_initial(far)
    assert "cy" not in league
    with pytest.raises(FileNotFoundError):
        league.load_initial(tmp_path / "none.csv")


def test_rate_files_and_its_history(tmp_path):
    league = podium.League("trueskill")
    summary = league.rate_files(GAME_NIGHTS)
    assert summary.rated == 52 and summary.skipped == []
    fresh = podium.League("trueskill")
    fresh.rate_many(podium.read(GAME_NIGHTS))
    assert league.standings() == fresh.standings()
    assert league.history() == fresh.history()       # the files are read again
    more = tmp_path / "more.csv"                      # matches after the files' last
    more.write_text("match,player,rank,time\n"
                    "m1,Maya,1,2025-04-01\nm1,Tom,2,2025-04-01\n"
                    "m2,Tom,1,2025-04-02\nm2,Sam,2,2025-04-02\n")
    league.rate_files(more)                           # recorded as rated from now on
    fresh.rate_many(podium.read(more))
    assert league.history() == fresh.history()


def test_a_file_changed_since_it_was_rated(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("match,player,rank\ng1,a,1\ng1,b,2\n")
    league = podium.League("sme")
    league.rate_files(path)
    path.write_text("match,player,rank\ng1,b,1\ng1,a,2\n")
    with pytest.raises(RuntimeError, match="changed since it was rated"):
        league.history()
    assert league.rating("a").value == 1516.0


def test_rate_files_is_all_or_nothing(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("match,player,rank\ng1,a,1\ng1,b,2\ng2,a,1\ng2,a,2\n")
    league = podium.League("sme")
    league.rate(["x", "y"])
    with pytest.raises(podium.ReadError, match="appears more than once"):
        league.rate_files(path)
    assert league.matches_rated == 1 and "a" not in league
    assert league.rate_files(path, skip_bad=True).rated == 1
    with pytest.raises(FileNotFoundError):
        league.rate_files(tmp_path / "none.csv")
    with pytest.raises(ValueError, match="not a file"):
        league.rate_files("-")
    # A file given twice is refused before anything is read, as the CLI refuses it.
    good = tmp_path / "good.csv"
    good.write_text("match,player,rank\ng9,a,1\ng9,b,2\n")
    before = league.matches_rated
    with pytest.raises(podium.ReadError, match=f"{good} is given twice: give each file once"):
        league.rate_files([good, good])
    assert league.matches_rated == before


def ring(n):
    return [[f"p{i % 7}", f"p{(i + 1) % 7}"] for i in range(n)]


TWICE = 'matches[500]: player "p1" appears more than once in the match'


def test_a_match_that_cannot_exist_in_a_list_is_named_by_its_position():
    ms = ring(1000)
    ms[500] = ["p1", "p1"]
    league = podium.League("sme")
    league.rate(["p0", "p3"])
    before = (league.standings(), league.history(), league.matches_rated)
    with pytest.raises(podium.MatchError) as err:
        league.rate_many(ms)
    assert str(err.value) == (
        "1 bad match found, nothing rated (pass skip_bad=True to rate the rest):\n  " + TWICE)
    assert err.value.errors == [TWICE]
    assert (err.value.file, err.value.line, err.value.field, err.value.match_id) == (None,) * 4
    assert (league.standings(), league.history(), league.matches_rated) == before
    summary = league.rate_many(ms, skip_bad=True)
    assert (summary.rated, summary.skipped) == (999, [TWICE])
    # As rating the others one by one, numbered by their positions after the first match.
    one_by_one = podium.League("sme")
    one_by_one.rate(["p0", "p3"])
    for k, m in enumerate(ms):
        if k != 500:
            one_by_one.rate(m, id=str(k + 2))
    assert league.history() == one_by_one.history()
    assert league.standings() == one_by_one.standings()


def test_bad_matches_of_a_list_are_skipped_in_the_order_given():
    ms = [["a", "b"], ["a", "a"], ["a", "b", "c"], ["b", "a"], {"a": 1, "b": float("nan")}]
    league = podium.League("elo")
    with pytest.raises(podium.MatchError) as err:
        league.rate_many(ms)
    assert err.value.errors == [
        'matches[1]: player "a" appears more than once in the match',
        'matches[4]: player "b": finish NaN is not a finite number',
    ]
    assert str(err.value).startswith("2 bad matches found, nothing rated")
    assert league.matches_rated == 0
    summary = league.rate_many(ms, skip_bad=True)
    assert summary.rated == 2
    assert summary.skipped == [
        'matches[1]: player "a" appears more than once in the match',
        'match "3": system elo rates matches of exactly 2 entries, this one has 3',
        'matches[4]: player "b": finish NaN is not a finite number',
    ]
    assert [c.match_id for c in league.history("a")] == ["1", "4"]


def test_a_list_item_that_is_no_match_is_named_by_its_position():
    league = podium.League("sme")
    message = ("matches[2]: a match is a list of entries best first, a mapping of places "
               "or a podium.Match, not int")
    for skip_bad in (False, True):
        with pytest.raises(TypeError) as err:
            league.rate_many([["a", "b"], ["b", "a"], 5], skip_bad=skip_bad)
        assert str(err.value) == message
    with pytest.raises(TypeError) as err:
        podium.Matches([["a", "b"], ["b", "a"], 5])
    assert str(err.value) == message
    with pytest.raises(TypeError) as err:
        league.rate_many([["a", "b"], {"ann", "bo"}])
    assert str(err.value) == (
        "matches[1]: a ranking is an ordered sequence of entries (best first), not a set, "
        "whose order is arbitrary; give a list, or a mapping of places")
    assert league.matches_rated == 0


def test_matches_of_a_list_that_cannot_exist_are_refused_or_skipped():
    ms = ring(1000)
    ms[500] = ["p1", "p1"]
    with pytest.raises(podium.MatchError) as err:
        podium.Matches(ms)
    assert str(err.value) == (
        "1 bad match found, nothing read (pass skip_bad=True to read the rest):\n  " + TWICE)
    assert err.value.errors == [TWICE]
    kept = podium.Matches(ms, skip_bad=True)
    assert (len(kept), kept.skipped) == (999, [TWICE])
    assert kept[500].id == "502" and kept[500].players == ["p4", "p5"]
    with pytest.raises(podium.MatchError) as err:
        podium.backtest(ms, ["sme"])
    assert str(err.value) == TWICE


def test_load_initial_gives_the_place_of_a_rating_out_of_range(tmp_path):
    init = tmp_path / "init.csv"
    init.write_text("player,rating,games,sigma\nann,25,0,8\nbo,25,0,0\n")
    league = podium.League("trueskill")
    with pytest.raises(podium.RateError) as err:
        league.load_initial(init)
    message = str(err.value)
    assert message.startswith(f"{init}:3: field `sigma`: ")
    assert (err.value.file, err.value.line, err.value.field, err.value.match_id) == (
        str(init), 3, "sigma", None)
    assert err.value.errors == [message]
    assert "ann" not in league


def test_predict_takes_a_match():
    league = podium.League("sme")
    league.rate_many([["ann", "bo", "cy"], ["bo", "cy", "ann"]])
    given = league.predict(podium.Match({"cy": 2, ("ann", "bo"): 1}))
    listed = league.predict([["ann", "bo"], "cy"])
    assert (given.entries, given.win, given.expected_place) == (
        listed.entries, listed.win, listed.expected_place)
    with pytest.raises(TypeError) as err:
        league.predict(podium.Match(["ann", "bo"]), factors={"ann": {"car": "red"}})
    assert str(err.value) == "factors belong to the Match: give them to Match(...)"
    with pytest.raises(ValueError) as err:
        league.predict(podium.Match(["ann", "bo", "cy"], weights={"bo": 0.5}))
    assert str(err.value) == (
        'player "bo" plays a share 0.5 of the match: predict reads whole entries, '
        "without partial play; give the Match without weights")
