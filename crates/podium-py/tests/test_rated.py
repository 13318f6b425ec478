"""A league rates each match once, in time order: a match dated before the league's last
dated match, or one whose id the league rated, is a bad match for `rate`, `rate_many`
and `rate_files`, as it is for `podium rate --resume`; matches the league numbered are
never refused for their number."""

import copy
import pickle
import re
import subprocess

import pytest

import podium
from conftest import EXAMPLES, podium_bin

GAME_NIGHT = EXAMPLES / "game-night.csv"
EARLY = ("expected a time no earlier than {}, the last match the league rated: a league "
         "rates its matches in time order (to place an earlier match, rate the whole "
         "history again in a new league)")
RATED = "expected an id the league has not rated (a match id names one match)"


def future_state(tmp_path):
    """A league saved by `podium rate --save` after one match on 2026-01-01."""
    future = tmp_path / "future.csv"
    future.write_text("match,player,rank,time\nfut,Maya,1,2026-01-01\nfut,Tom,2,2026-01-01\n")
    state = tmp_path / "fut.state"
    subprocess.run([podium_bin(), "rate", str(future), "--system", "sme", "--save", str(state)],
                   check=True, capture_output=True)
    return state


def test_rate_files_refuses_matches_before_the_loaded_league_s_last_as_the_cli_does(tmp_path):
    state = future_state(tmp_path)
    cli = subprocess.run([podium_bin(), "rate", str(GAME_NIGHT), "--system", "sme",
                          "--resume", str(state)], capture_output=True, text=True)
    assert cli.returncode != 0 and "45 bad matches" in cli.stderr
    league = podium.League.load(state)
    with pytest.raises(podium.ReadError) as err:
        league.rate_files(GAME_NIGHT)
    assert str(err.value).startswith("45 bad matches found, nothing rated")
    assert err.value.errors[0] == (f'{GAME_NIGHT}:2: field `time`: "2024-09-06" is not valid, '
                                   + EARLY.format("2026-01-01"))
    assert (err.value.line, err.value.field, err.value.match_id) == (2, "time", "2024-09-06 Azul")
    assert league.matches_rated == 1
    summary = league.rate_files(GAME_NIGHT, skip_bad=True)
    assert summary.rated == 0 and len(summary.skipped) == 45
    # The league's own match again: its id is in the saved file.
    again = tmp_path / "again.csv"
    again.write_text("match,player,rank,time\nfut,Tom,1,2026-01-02\nfut,Maya,2,2026-01-02\n")
    with pytest.raises(podium.ReadError) as err:
        league.rate_files(again)
    assert err.value.errors == [f'{again}:2: field `match`: "fut" is not valid, {RATED}']
    assert (err.value.field, err.value.match_id) == ("match", "fut")


def test_rate_and_rate_many_refuse_a_match_before_the_league_s_last():
    league = podium.League("sme")
    league.rate(["a", "b"], time="2024-05-02")
    with pytest.raises(podium.RateError) as err:
        league.rate(["a", "b"], time="2024-05-01")
    assert str(err.value) == ('match "2": field `time`: "2024-05-01" is not valid, '
                              + EARLY.format("2024-05-02"))
    with pytest.raises(podium.RateError, match="no earlier than 2024-05-02"):
        league.rate(podium.Match(["a", "b"], time="2024-05-01T23:59:59Z", id="late"))
    assert league.matches_rated == 1
    league.rate(["b", "a"], time="2024-05-02")  # the same time is no earlier
    assert league.matches_rated == 2

    later = podium.League("sme")
    later.rate(["Maya", "Tom"], time="2026-01-01")
    with pytest.raises(podium.RateError) as err:
        later.rate_many(podium.read_csv(GAME_NIGHT))
    assert str(err.value).startswith("45 bad matches found, nothing rated")
    assert err.value.field == "time" and err.value.match_id == "2024-09-06 Azul"
    assert later.matches_rated == 1
    summary = later.rate_many(podium.read_csv(GAME_NIGHT), skip_bad=True)
    assert summary.rated == 0 and len(summary.skipped) == 45
    # Within one batch, matches are rated in the order given: an earlier one after a
    # later one is refused too.
    batch = [podium.Match(["a", "b"], time="2024-06-02"),
             podium.Match(["b", "a"], time="2024-06-01")]
    fresh = podium.League("sme")
    with pytest.raises(podium.RateError, match='match "2": field `time`'):
        fresh.rate_many(batch)
    assert fresh.matches_rated == 0
    assert fresh.rate_many(batch, skip_bad=True).rated == 1


def test_refused_matches_leave_the_league_as_rating_in_time_order_does():
    matches = podium.read_csv(GAME_NIGHT)
    whole = podium.League("trueskill")
    whole.rate_many(matches)
    split = podium.League("trueskill")
    split.rate_many(matches[30:])
    assert split.rate_many(matches[:30], skip_bad=True).rated == 0
    in_order = podium.League("trueskill")
    in_order.rate_many(matches[30:])
    assert split.standings() == in_order.standings()
    assert whole.standings() != split.standings()


def test_files_of_one_call_are_put_in_time_order_after_the_league_s_matches(tmp_path):
    june = tmp_path / "june.csv"
    june.write_text("match,player,rank,time\nj,a,1,2024-06-01\nj,b,2,2024-06-01\n")
    may = tmp_path / "may.csv"
    may.write_text("match,player,rank,time\nm,b,1,2024-05-01\nm,a,2,2024-05-01\n")
    league = podium.League("sme")
    league.rate(["a", "b"], time="2024-04-01")
    assert league.rate_files([june, may]).rated == 2
    april = tmp_path / "april.csv"
    april.write_text("match,player,rank,time\na,b,1,2024-04-01\na,a,2,2024-04-01\n")
    with pytest.raises(podium.ReadError, match="no earlier than 2024-06-01"):
        league.rate_files(april)


def test_a_match_id_the_league_rated_is_refused():
    league = podium.League("sme")
    league.rate(["a", "b"], id="x")
    with pytest.raises(podium.RateError) as err:
        league.rate(["b", "a"], id="x")
    assert str(err.value) == f'match "x": field `match`: "x" is not valid, {RATED}'
    with pytest.raises(podium.RateError, match='match "x"'):
        league.rate(podium.Match(["b", "a"], id="x"))
    with pytest.raises(podium.RateError) as err:
        league.rate_many([podium.Match(["a", "c"], id="y"), podium.Match(["c", "a"], id="x")])
    assert err.value.field == "match" and err.value.match_id == "x"
    assert league.matches_rated == 1
    # Within one batch too.
    fresh = podium.League("sme")
    twice = [podium.Match(["a", "b"], id="x"), podium.Match(["b", "a"], id="x")]
    with pytest.raises(podium.RateError, match="1 bad match found"):
        fresh.rate_many(twice)
    assert fresh.matches_rated == 0
    summary = fresh.rate_many(twice, skip_bad=True)
    assert summary.rated == 1
    assert summary.skipped == [f'match "x": field `match`: "x" is not valid, {RATED}']
    # A batch refused as a whole keeps none of its ids.
    other = podium.League("sme")
    with pytest.raises(podium.RateError):
        other.rate_many([podium.Match(["a", "b"], id="z"), podium.Match(["a", "b"], id="z")])
    other.rate(["a", "b"], id="z")


def test_a_match_id_rated_from_a_file_is_refused_from_python_and_from_a_file(tmp_path):
    first = tmp_path / "first.csv"
    first.write_text("match,player,rank\ng1,a,1\ng1,b,2\ng2,b,1\ng2,c,2\n")
    league = podium.League("sme")
    league.rate_files(first)
    with pytest.raises(podium.RateError, match='match "g2"'):
        league.rate(["a", "c"], id="g2")
    with pytest.raises(podium.ReadError) as err:
        league.rate_files(first)
    assert err.value.errors == [f'{first}:2: field `match`: "g1" is not valid, {RATED}',
                                f'{first}:4: field `match`: "g2" is not valid, {RATED}']
    assert league.matches_rated == 2
    league.rate(["a", "c"], id="g3")
    second = tmp_path / "second.csv"
    second.write_text("match,player,rank\ng3,c,1\ng3,a,2\ng4,c,1\ng4,a,2\n")
    summary = league.rate_files(second, skip_bad=True)
    assert summary.rated == 1
    assert summary.skipped == [f'{second}:2: field `match`: "g3" is not valid, {RATED}']
    # A Matches read from a file holds the same ids.
    with pytest.raises(podium.RateError, match='match "g4"'):
        league.rate_many(podium.read_csv(second)[1:])


def test_numbered_matches_are_never_refused_for_their_number():
    league = podium.League("sme")
    league.rate(["a", "b"], id="2")
    league.rate(["a", "b"])                     # numbered "2"
    league.rate(["b", "a"])                     # numbered "3"
    league.rate(podium.Match(["a", "b"]))       # numbered "4"
    league.rate_many([["a", "b"], podium.Match(["b", "a"])])
    assert [c.match_id for c in league.history()][::2] == ["2", "2", "3", "4", "5", "6"]
    # A Matches numbers the matches without an id from 1, every time.
    built = podium.Matches([["a", "b"], ["b", "a"]])
    assert [m.id for m in built] == ["1", "2"]
    league.rate_many(built)
    league.rate_many(podium.Matches([["a", "b"], ["b", "a"]]))
    league.rate(built[0])
    assert league.matches_rated == 11
    # Numbered matches leave no id behind: an id given later is the first of its name.
    league.rate(["a", "b"], id="3")


def test_the_ids_rated_are_saved_pickled_and_copied(tmp_path):
    league = podium.League("sme")
    league.rate(["a", "b"], id="x", time="2024-05-01")
    league.rate(["b", "a"], time="2024-05-01")
    path = tmp_path / "league.state"
    league.save(path)
    for other in (podium.League.load(path), pickle.loads(pickle.dumps(league)),
                  copy.deepcopy(league), league.copy()):
        refused = re.escape(f'match "x": field `match`: "x" is not valid, {RATED}')
        with pytest.raises(podium.RateError, match=refused):
            other.rate(["a", "b"], id="x", time="2024-06-01")
        with pytest.raises(podium.RateError, match="no earlier than 2024-05-01"):
            other.rate(["a", "b"], id="y", time="2024-04-01")
        other.rate(["a", "b"], id="2", time="2024-06-01")  # "2" was numbered
    # The file is the one `podium rate --resume` reads: it refuses the league's matches.
    again = tmp_path / "again.csv"
    again.write_text("match,player,rank,time\nx,a,1,2024-06-01\nx,b,2,2024-06-01\n")
    cli = subprocess.run([podium_bin(), "rate", str(again), "--system", "sme",
                          "--resume", str(path)], capture_output=True, text=True)
    assert cli.returncode != 0
    assert f'match "x" was rated already by the league resumed from {path}' in cli.stderr
    # A state pickled by an earlier package, without the ids, is still taken.
    state = league.__getstate__()
    old = podium.League.__new__(podium.League)
    old.__setstate__(state[:3])
    assert old.matches_rated == 2
    old.rate(["a", "b"], id="x", time="2024-06-01")


def test_a_league_and_its_copy_each_refuse_the_ids_they_rated_and_no_other(tmp_path):
    league = podium.League("sme")
    league.rate(["a", "b"], id="x")
    twin = league.copy()
    twin.rate(["a", "b"], id="y")
    z = tmp_path / "z.csv"
    z.write_text("match,player,rank\nz,a,1\nz,b,2\n")
    league.rate_files(z)
    w = tmp_path / "w.csv"
    w.write_text("match,player,rank\nw,a,1\nw,b,2\n")
    twin.rate_many(podium.read_csv(w))
    # Each rates what the other alone rated, once.
    league.rate_many([podium.Match(["b", "a"], id="y")])
    league.rate_files(w)
    twin.rate(["b", "a"], id="z")
    assert league.matches_rated == twin.matches_rated == 4
    for lg in (league, twin):
        for rated in ("x", "y", "z", "w"):
            with pytest.raises(podium.RateError, match=f'match "{rated}": field `match`'):
                lg.rate(["a", "b"], id=rated)
        with pytest.raises(podium.ReadError, match='"z" is not valid'):
            lg.rate_files(z)
        assert lg.matches_rated == 4


def test_a_history_read_again_refuses_what_the_files_refused(tmp_path):
    first = tmp_path / "first.csv"
    first.write_text("match,player,rank,time\ng1,a,1,2024-05-01\ng1,b,2,2024-05-01\n")
    second = tmp_path / "second.csv"
    second.write_text("match,player,rank,time\ng0,b,1,2024-04-01\ng0,a,2,2024-04-01\n"
                      "g1,b,1,2024-05-02\ng1,a,2,2024-05-02\n"
                      "g2,b,1,2024-05-03\ng2,a,2,2024-05-03\n")
    league = podium.League("sme")
    league.rate_files(first)
    summary = league.rate_files(second, skip_bad=True)
    assert summary.rated == 1 and len(summary.skipped) == 2
    assert [c.match_id for c in league.history()] == ["g1", "g1", "g2", "g2"]
