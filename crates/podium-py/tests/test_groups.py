"""Fair teams (`League.balance`) and head-to-head (`podium.versus`) against the
`podium` binary and a direct count over the example nights."""

import csv
import json
from collections import defaultdict

import pytest

import podium
from conftest import EXAMPLES, cli

NIGHTS = EXAMPLES / "game-night.csv"


def _league() -> podium.League:
    league = podium.League()
    league.rate_files([str(NIGHTS)])
    return league


def test_balance_proposes_the_split_the_cli_proposes():
    players = ["Sam", "Tom", "Kate", "Priya"]
    got = _league().balance(players, teams=2, top=3)
    want = json.loads(cli("teams", str(NIGHTS), "--players", ",".join(players), "--teams", "2", "--top", "3", "--format", "json"))
    assert len(got) == len(want["splits"])
    for g, w in zip(got, want["splits"]):
        assert [t["players"] for t in g["teams"]] == [t["players"] for t in w["groups"]]
        assert [t["win"] for t in g["teams"]] == pytest.approx([t["win"] for t in w["groups"]], abs=1e-12)
        assert g["unevenness"] == pytest.approx(w["unevenness"], abs=1e-12)


def test_balance_honours_a_fixed_player_and_refuses_an_unknown_one():
    got = _league().balance(["Sam", "Tom", "Kate", "Priya"], teams=2, fix={"Sam": 2})
    assert "Sam" in got[0]["teams"][1]["players"]
    with pytest.raises(podium.PodiumError, match="Nobody.*newcomers"):
        _league().balance(["Sam", "Nobody"], teams=2)


def test_balance_takes_a_newcomer_as_the_cli_does():
    players = ["Sam", "Tom", "Kate", "Zed"]
    got = _league().balance(players, teams=2, newcomers=["Zed"])
    want = json.loads(cli("teams", str(NIGHTS), "--players", ",".join(players), "--teams", "2",
                          "--new", "Zed", "--format", "json"))
    assert [t["players"] for t in got[0]["teams"]] == [t["players"] for t in want["splits"][0]["groups"]]
    assert got[0]["unevenness"] == pytest.approx(want["splits"][0]["unevenness"], abs=1e-12)
    # As the CLI and the server, it refuses a newcomer the league rated or who is not
    # present, and a group of one.
    with pytest.raises(podium.PodiumError, match=r'newcomers: player "Sam" is rated by the league \(\d+ games\)'):
        _league().balance(players, teams=2, newcomers=["Zed", "Sam"])
    with pytest.raises(podium.PodiumError, match='newcomers: player "Ann" is not among the players present'):
        _league().balance(players, teams=2, newcomers=["Zed", "Ann"])
    with pytest.raises(podium.PodiumError, match="apart: group 0 \\(0-based\\) names 1 player"):
        _league().balance(players, teams=2, newcomers=["Zed"], apart=[["Sam"]])


def _direct(a: str, b: str):
    """Meetings, ahead, behind, ties of `a` against `b`, counted from the file."""
    by_match = defaultdict(dict)
    for row in csv.DictReader(open(NIGHTS, newline="")):
        by_match[row["match"]][row["player"]] = float(row["score"])
    meetings = ahead = behind = ties = 0
    for scores in by_match.values():
        if a in scores and b in scores:
            meetings += 1
            if scores[a] > scores[b]:
                ahead += 1
            elif scores[a] < scores[b]:
                behind += 1
            else:
                ties += 1
    return meetings, ahead, behind, ties


def test_versus_figures_equal_a_direct_count_over_the_example_nights():
    names = ["Sam", "Tom", "Kate", "Priya"]
    for a in names:
        for b in names:
            if a == b:
                continue
            v = podium.versus(str(NIGHTS), a, b)
            assert (v["meetings"], v["ahead"], v["behind"], v["ties"]) == _direct(a, b)
            assert 0.0 < v["today"] < 1.0


def test_versus_equals_the_cli():
    v = podium.versus(str(NIGHTS), "Sam", "Tom")
    want = json.loads(cli("versus", str(NIGHTS), "Sam", "Tom", "--format", "json"))
    assert v["expected_share"] == pytest.approx(want["versus"]["expected_share"], abs=1e-12)
    assert v["today"] == pytest.approx(want["today"], abs=1e-12)


def test_rivals_list_opponents_met_often_enough():
    r = podium.versus(str(NIGHTS), "Sam", min_meetings=3)
    assert r["player"] == "Sam"
    for v in r["frequent"]:
        assert v["meetings"] == _direct("Sam", v["opponent"])[0]
    with pytest.raises(podium.PodiumError, match="themselves"):
        podium.versus(str(NIGHTS), "Sam", "Sam")


def test_balance_splits_at_most_200_players_as_the_league_server_does():
    names = [f"p{i}" for i in range(201)]
    league = podium.League("sme")
    league.rate(names)
    with pytest.raises(podium.ConfigError) as err:
        league.balance(names, tables=100)
    assert str(err.value) == "players: 201 named, at most 200 can be split at once"
    # 200 are taken (and then checked: one of them is not in the league).
    with pytest.raises(podium.PodiumError, match='unknown player "nobody"'):
        league.balance(names[:199] + ["nobody"], tables=100)


def test_balance_names_the_argument_given_the_wrong_type():
    league = _league()
    cases = [
        (dict(players="Sam", teams=2), "players: expected a list of player names, not a str"),
        (dict(players=["Sam", 3], teams=2), "players[1]: expected a player name (a str), not an int"),
        (dict(players=5, teams=2), "players: expected a list of player names, not an int"),
        (dict(players=["Sam", "Tom"], teams=2, apart="ST"),
         "apart: expected a list of groups, each a list of player names, not a str"),
        (dict(players=["Sam", "Tom"], teams=2, together=["ST"]),
         "together[0]: expected a list of player names, not a str"),
        (dict(players=["Sam", "Tom"], teams=2, newcomers="Zed"),
         "newcomers: expected a list of player names, not a str"),
        (dict(players=["Sam", "Tom"], sizes="11"), "sizes: expected a list of team sizes (ints), not a str"),
        (dict(players=["Sam", "Tom"], sizes=[1, 1.0]), "sizes[1]: expected a team size (an int), not a float"),
        (dict(players=["Sam", "Tom"], teams=2, fix=[("Sam", 1)]),
         "fix: expected a dict of player names to team numbers, not a list"),
        (dict(players=["Sam", "Tom"], teams=2, fix={1: 1}), "fix: a key is a player name (a str), not an int"),
        (dict(players=["Sam", "Tom"], teams=2, fix={"Sam": "1"}),
         'fix["Sam"]: expected a team number (an int, from 1), not a str'),
    ]
    for kwargs, message in cases:
        players = kwargs.pop("players")
        with pytest.raises(TypeError) as err:
            league.balance(players, **kwargs)
        assert str(err.value) == message


def test_balance_takes_any_iterable_of_names():
    league = _league()
    want = league.balance(["Sam", "Tom", "Kate", "Priya"], teams=2, apart=[["Sam", "Tom"]])
    got = league.balance(("Sam", "Tom", "Kate", "Priya"), teams=2, apart=({"Sam", "Tom"},))
    assert got == want
    got = league.balance(iter(["Sam", "Tom", "Kate", "Priya"]), teams=2, apart=[("Sam", "Tom")])
    assert got == want
    split = league.balance({"Sam", "Tom"}, teams=2)[0]
    assert sorted(p for t in split["teams"] for p in t["players"]) == ["Sam", "Tom"]


def test_versus_takes_a_list_of_paths_as_every_reader_does():
    nights = [str(NIGHTS), str(EXAMPLES / "game-night.jsonl")]
    v = podium.versus(nights, "Maya", "Tom")
    want = json.loads(cli("versus", *nights, "--player", "Maya", "--opponent", "Tom", "--format", "json"))
    assert v["meetings"] == want["versus"]["meetings"]
    assert v["expected_share"] == pytest.approx(want["versus"]["expected_share"], abs=1e-12)
    assert podium.versus([NIGHTS], "Maya", "Tom") == podium.versus(str(NIGHTS), "Maya", "Tom")
    # And matches as backtest takes them: a Matches, or rankings.
    assert podium.versus(podium.read(nights), "Maya", "Tom") == v
    assert podium.versus([["a", "b"], ["b", "a"], ["a", "b"]], "a", "b")["ahead"] == 2
    with pytest.raises(TypeError) as err:
        podium.versus(5, "Maya", "Tom")
    assert str(err.value) == "matches are an iterable of matches (or a podium.Matches), not int"
