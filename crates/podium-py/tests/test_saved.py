"""Saving a league and going on from it: League.save/League.load and pickle give back the
league exactly, so rating the rest equals rating everything in one league."""

import copy
import pickle

import pytest

import podium

SYSTEMS = ["kalman-mmr", "glicko2", "elo-mmr", "sme", "trueskill"]


def nights():
    """Twenty matches with ties, teams and times."""
    out = []
    for i in range(20):
        p = [f"p{(i * 3 + k * 5) % 9}" for k in range(4)]
        if i % 3 == 0:
            result = {p[0]: 1, p[1]: 1, p[2]: 3, p[3]: 4}
        else:
            result = [p[0], p[1], p[2], p[3]]
        out.append((f"m{i}", f"2024-{1 + i // 28:02}-{1 + i % 28:02}", result))
    return out


def rate(league, games):
    for id, time, result in games:
        league.rate(result, id=id, time=time)


def board(league):
    return [s for s in league.standings().to_dicts()]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_league_saved_and_loaded_rates_the_rest_as_one_league(tmp_path, system):
    games = nights()
    whole = podium.League(system)
    rate(whole, games)
    first = podium.League(system)
    rate(first, games[:7])
    path = tmp_path / "league.state"
    first.save(path)
    rest = podium.League.load(path)
    assert rest.system == first.system
    assert rest.matches_rated == 7
    rate(rest, games[7:])
    assert board(rest) == board(whole)
    assert rest.learned == whole.learned
    # Saved again, the files are the same byte for byte.
    a, b = tmp_path / "a.state", tmp_path / "b.state"
    whole.save(a)
    rest.save(b)
    assert a.read_bytes() == b.read_bytes()
    # The history starts at the load.
    assert {c.match_id for c in rest.history()} == {g[0] for g in games[7:]}


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_pickled_league_rates_on_as_the_original(system):
    games = nights()
    league = podium.League(system, history=False)
    rate(league, games[:9])
    again = pickle.loads(pickle.dumps(league))
    assert again.system == league.system and not again.keeps_history
    rate(league, games[9:])
    rate(again, games[9:])
    assert board(again) == board(league)
    deep = copy.deepcopy(again)
    assert board(deep) == board(league)


def test_a_league_of_other_parameters_is_loaded_with_them(tmp_path):
    league = podium.League("glicko2", tau=0.3)
    rate(league, nights()[:3])
    path = tmp_path / "g.state"
    league.save(path)
    assert podium.League.load(path).system == podium.System("glicko2", tau=0.3)
    assert podium.League.load(path, "glicko2", tau=0.3).matches_rated == 3
    with pytest.raises(podium.ConfigError, match="tau=0.3, not tau=0.5"):
        podium.League.load(path, "glicko2")
    with pytest.raises(podium.ConfigError, match="saved by system glicko2, not sme"):
        podium.League.load(path, "sme")


def test_a_file_that_is_not_a_saved_league_is_refused_naming_it(tmp_path):
    games = tmp_path / "games.csv"
    games.write_text("match,player,rank\ng1,ann,1\ng1,bo,2\n")
    with pytest.raises(podium.ReadError, match="not a saved podium league") as e:
        podium.League.load(games)
    assert e.value.file == str(games)
    league = podium.League("elo-mmr")
    rate(league, nights()[:2])
    good = tmp_path / "good.state"
    league.save(good)
    cut = tmp_path / "cut.state"
    cut.write_bytes(good.read_bytes()[:100])
    with pytest.raises(podium.ReadError, match="a damaged saved league"):
        podium.League.load(cut)
    with pytest.raises(FileNotFoundError):
        podium.League.load(tmp_path / "missing.state")
    # Saving into a directory that is not there: nothing written.
    with pytest.raises(OSError):
        league.save(tmp_path / "nowhere" / "x.state")


def test_saving_to_a_directory_is_the_os_error_loading_from_it_is(tmp_path):
    league = podium.League("sme")
    league.rate(["a", "b"])
    with pytest.raises(IsADirectoryError) as saved:
        league.save(tmp_path)
    with pytest.raises(IsADirectoryError) as loaded:
        podium.League.load(tmp_path)
    assert (saved.value.errno, saved.value.filename) == (loaded.value.errno, str(tmp_path))
    assert str(saved.value) == str(loaded.value)
    assert list(tmp_path.iterdir()) == []
