"""Tables, matches, predictions and simulations as pandas DataFrames."""

import datetime

import pytest

import podium
from conftest import EXAMPLES

pd = pytest.importorskip("pandas")

GAME_NIGHTS = [str(EXAMPLES / "game-night.csv"), str(EXAMPLES / "game-night.jsonl")]


def league():
    lg = podium.League("trueskill")
    lg.rate_many(podium.read(GAME_NIGHTS))
    return lg


def test_standings_to_pandas():
    lg = league()
    board = lg.standings()
    df = board.to_pandas()
    assert list(df.columns) == board.columns
    assert len(df) == len(board)
    assert df["rating"].tolist() == [s.rating for s in board]
    assert df["player"].tolist() == board["player"]
    assert str(df["last_played"].dtype).startswith("datetime64")
    assert df.to_dict("records")[0]["player"] == board[0].player
    assert board.to_dicts()[0] == board[0].to_dict()


def test_history_matches_and_others_to_pandas():
    lg = league()
    h = lg.history("Maya").to_pandas()
    assert (h["player"] == "Maya").all()
    assert h["rating_after"].iloc[-1] == lg.rating("Maya").value
    m = podium.read(GAME_NIGHTS).to_pandas()
    assert list(m.columns) == ["match_id", "time", "player", "team", "place", "score", "weight"]
    assert len(m) == len(podium.read(GAME_NIGHTS).to_dicts())
    p = lg.predict(["Maya", "Tom"]).to_pandas()
    assert p["win"].sum() == pytest.approx(1.0)
    sim = podium.simulate(["sme"], trials=10, rounds=[1, 2]).to_pandas()
    assert list(sim.index) == [1, 2] and list(sim.columns) == ["sme", "mean-score", "ideal"]
    bt = podium.backtest(podium.read(GAME_NIGHTS), ["sme", "elo"]).to_pandas()
    assert bt["error"].isna().tolist() == [True, False]
    assert podium.systems().to_pandas()["name"].tolist()[:2] == ["elo", "sme"]
    assert list(podium.System("sme").parameters.to_pandas()["name"]) == ["k", "scale", "initial"]


def test_pandas_times_are_taken_and_a_missing_one_refused():
    times = pd.Series(pd.to_datetime(["2024-05-01T12:00:00.7", None]))
    noon = datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)
    assert podium.Match(["a", "b"], time=times[0]).time == noon
    assert podium.Match(["a", "b"], time=times.values[0]).time == noon
    for missing in (times[1], times.values[1], pd.NaT):
        with pytest.raises(ValueError) as err:
            podium.Match(["a", "b"], time=missing)
        assert str(err.value) == "time NaT is not a time; give None for a match without a time"
