"""Seasons: a league reset between seasons, as `podium rate --seasons` does."""

import pickle

import pytest

import podium


def test_a_soft_reset_pulls_each_rating_halfway_to_the_mean():
    league = podium.League("sme")
    league.rate(["ann", "bo", "cy"])
    before = {p: league.rating(p).value for p in league.players}
    mean = sum(before.values()) / 3
    league.new_season(reset="soft", pull=0.5)
    for p, r in before.items():
        assert league.rating(p).value == pytest.approx(mean + 0.5 * (r - mean), abs=1e-9)
    # Games and wins start again: the new season's board is empty.
    assert len(league.standings(min_games=1)) == 0
    league.rate(["cy", "ann"])
    assert [s.player for s in league.standings(min_games=1)] == ["cy", "ann"]
    # The history is rated again with the reset in its place.
    assert len(league.history()) == 5


def test_a_hard_reset_starts_everyone_new_and_none_keeps_the_ratings():
    league = podium.League("sme")
    league.rate(["ann", "bo"])
    kept = league.rating("ann").value
    league.new_season(reset="none")
    assert league.rating("ann").value == kept
    league.new_season(reset="hard")
    assert league.rating("ann").value == 1500.0


def test_bad_resets_are_refused_and_change_nothing():
    league = podium.League("sme")
    league.rate(["ann", "bo"])
    kept = league.rating("ann").value
    with pytest.raises(ValueError, match="medium"):
        league.new_season(reset="medium")
    with pytest.raises(ValueError, match="pull is 1.5"):
        league.new_season(reset="soft", pull=1.5)
    with pytest.raises(ValueError, match="widen is -1"):
        league.new_season(reset="soft", widen=-1.0)
    with pytest.raises(ValueError, match="soft"):
        league.new_season(reset="hard", pull=0.5)
    assert league.rating("ann").value == kept
    assert len(league.standings(min_games=1)) == 2


def test_after_a_new_season_standings_lists_the_seasons_players_only():
    league = podium.League("sme")
    league.rate(["ann", "bo", "cy"])
    league.rate(["bo", "dee"])
    assert sorted(s.player for s in league.standings()) == ["ann", "bo", "cy", "dee"]
    league.new_season(reset="soft", pull=0.5)
    # Nobody has played in the new season yet: an empty board, the ratings kept.
    assert len(league.standings()) == 0
    assert league.rating("cy").games == 1
    league.rate(["cy", "ann"])
    board = league.standings()
    assert [(s.position, s.player, s.games) for s in board] == [(1, "cy", 1), (2, "ann", 1)]
    # The board the CLI prints for the season, with the ratings after the reset.
    assert [s.rating for s in board] == [league.rating("cy").value, league.rating("ann").value]
    assert [s.player for s in league.standings(order="rating", by="rating")] == ["cy", "ann"]
    # A copy and a pickled league are in the season too.
    assert [s.player for s in league.copy().standings()] == ["cy", "ann"]
    assert [s.player for s in pickle.loads(pickle.dumps(league)).standings()] == ["cy", "ann"]


def test_a_league_saved_in_a_season_loads_in_it(tmp_path):
    league = podium.League("kalman-mmr")
    league.rate(["ann", "bo", "cy"])
    league.rate(["bo", "dee"])
    path = tmp_path / "before.json"
    league.save(path)
    assert len(podium.League.load(path).standings()) == 4
    league.new_season(reset="soft")
    league.rate(["cy", "ann"])
    path = tmp_path / "league.json"
    league.save(path)
    loaded = podium.League.load(path)
    assert [s.player for s in loaded.standings()] == [s.player for s in league.standings()]
    assert sorted(s.player for s in loaded.standings()) == ["ann", "cy"]
