"""Systems by name: the list, parameters with their defaults and docs, checked values."""

import pickle

import pytest

import podium
from conftest import cli_csv

ALL = [s.name for s in podium.systems()]


def test_the_list_is_the_cli_s():
    rows = podium.systems()
    assert rows.columns == ["name", "summary", "source", "has_uncertainty", "rates_factors", "params"]
    assert ALL[:2] == ["elo", "sme"] and "trueskill" in ALL and "plackett-luce" in ALL
    for s in rows:
        assert s.summary and s.source
        assert s.params == {p.name: p.default for p in s.parameters}


@pytest.mark.parametrize("name", ALL)
def test_every_system_is_reachable_and_rates(name):
    system = podium.System(name)
    league = podium.League(system)
    if name == "elo":
        matches = [["ann", "bo"], ["bo", "ann"], {"ann": 1, "bo": 1}]
    else:
        matches = [["ann", "bo", "cy"], {"cy": 1, "ann": 2, "bo": 2}, [["ann", "bo"], "cy"]]
    for m in matches:
        changes = league.rate(m)
        assert len(changes) >= 2
        # After = before + change, to the last bits of a rating near 0 (ttt's scale).
        assert all(c.rating_after == pytest.approx(c.rating_before + c.change, rel=1e-15, abs=1e-12)
                   for c in changes)
    assert len(league.standings()) == (2 if name == "elo" else 3)
    assert league.system == system
    assert (league.rating("ann").sigma is None) == (not system.has_uncertainty)


def test_parameters_have_defaults_docs_and_values():
    pl = podium.System("plackett-luce", beta=4.0, limit_sigma=True)
    assert pl.params["beta"] == 4.0 and pl.params["limit_sigma"] is True
    beta = next(p for p in pl.parameters if p.name == "beta")
    assert beta.value == 4.0 and beta.default == 25 / 6 and "noise" in beta.doc
    assert repr(pl).startswith("System('plackett-luce', mu=25.0, sigma=8.333333333333334, beta=4.0,")
    mes = podium.System("mes")
    assert isinstance(mes.params["provisional_games"], int)
    assert isinstance(mes.params["seed_median"], bool)
    assert podium.System("sme", k=24) == podium.System("sme", k=24.0)
    assert podium.System("sme", k=24) != podium.System("sme")
    assert podium.System("sme").with_params(k=24) == podium.System("sme", k=24)
    assert podium.System("SME").name == "sme"
    assert pickle.loads(pickle.dumps(pl)) == pl
    assert hash(pickle.loads(pickle.dumps(pl))) == hash(pl)


def test_numbers_reach_the_library_at_full_precision():
    v = 0.1 + 0.2
    assert podium.System("sme", k=v).params["k"] == v


def test_bad_parameters_raise_the_library_s_errors():
    with pytest.raises(podium.ConfigError, match="unknown system \"nope\"; known systems: elo, sme"):
        podium.System("nope")
    with pytest.raises(podium.ConfigError, match="system sme has no parameter \"kk\"; its parameters: k, scale, initial"):
        podium.System("sme", kk=1)
    with pytest.raises(podium.ConfigError, match=r"parameter sigma: \"1e\+155\" is not valid, expected a finite number in \[1e-9, 1e9\]"):
        podium.System("trueskill", sigma=1e155)
    with pytest.raises(podium.ConfigError, match="is not valid"):
        podium.System("sme", k=float("nan"))
    with pytest.raises(podium.ConfigError, match="true or false"):
        podium.System("pairwise", per_opponent="maybe")
    with pytest.raises(TypeError, match="parameter k"):
        podium.System("sme", k=object())
    with pytest.raises(podium.ConfigError, match=r"setting max_volatility is given twice \(max_volatility=0.1, then max-volatility=0.2\): give it once"):
        podium.System("glicko2", max_volatility=0.1, **{"max-volatility": 0.2})
    with pytest.raises(podium.ConfigError, match="given twice"):
        podium.System("glicko2").with_params(max_volatility=0.1, **{"max-volatility": 0.2})
    # A later call's value replaces an earlier one's.
    assert podium.System("sme", k=20).with_params(k=24).params["k"] == 24
    assert issubclass(podium.ConfigError, ValueError)
    assert issubclass(podium.ConfigError, podium.PodiumError)
    with pytest.raises(podium.ConfigError):
        podium.League("sme", k=-1)


def test_a_league_takes_a_name_with_parameters():
    league = podium.League("sme", k=24)
    assert league.system == podium.System("sme", k=24)
    league = podium.League(podium.System("sme"), k=16)
    assert league.system.params["k"] == 16.0
    with pytest.raises(TypeError):
        podium.League(3)


def test_win_probability():
    sme = podium.System("sme")
    assert abs(sme.win_probability(1600, 1500) - 1 / (1 + 10 ** (-100 / 400))) < 1e-12
    ts = podium.System("trueskill")
    assert ts.win_probability((25, 1), (25, 1)) == pytest.approx(0.5)


@pytest.mark.parametrize("system, a, b, message", [
    ("sme", float("nan"), 1400, "a: rating nan is outside the range system sme can rate (−1e9 ≤ rating ≤ 1e9)"),
    ("sme", 1400, float("inf"), "b: rating inf is outside the range system sme can rate (−1e9 ≤ rating ≤ 1e9)"),
    ("sme", 2e9, 1400, "a: rating 2000000000.0 is outside the range system sme can rate (−1e9 ≤ rating ≤ 1e9)"),
    ("trueskill", (25, -8), (20, 3), "a: sigma -8.0 is outside the range system trueskill can rate (1e-9 ≤ σ ≤ 1e9)"),
    ("trueskill", (25, 8), (20, float("nan")), "b: sigma nan is outside the range system trueskill can rate (1e-9 ≤ σ ≤ 1e9)"),
    ("trueskill", (float("nan"), 8), (20, 3), "a: rating nan is outside the range system trueskill can rate (−1e9 ≤ rating ≤ 1e9)"),
    ("sme", (1500, -1), 1400, "a: sigma -1.0 is outside the range system sme can rate (0 ≤ σ ≤ 1e9)"),
])
def test_win_probability_refuses_a_rating_the_system_cannot_rate(system, a, b, message):
    with pytest.raises(podium.RateError) as err:
        podium.System(system).win_probability(a, b)
    assert str(err.value) == message
    with pytest.raises(TypeError) as err:
        podium.System(system).win_probability("x", b)
    assert str(err.value) == "a: a rating is a number, or a (rating, sigma) pair, not a str"


def test_a_list_refused_as_a_parameter_is_named_as_it_was_given():
    expected = "expected comma-separated numbers, one to eight values, each in [0, 10000]"
    for call in (lambda: podium.System("kalman-mmr", taus=[]),
                 lambda: podium.System("kalman-mmr").with_params(taus=[]),
                 lambda: podium.League("kalman-mmr", taus=[])):
        with pytest.raises(podium.ConfigError) as err:
            call()
        assert str(err.value) == f"parameter taus: [] is not valid, {expected}"
    with pytest.raises(podium.ConfigError) as err:
        podium.System("kalman-mmr", taus=(1, -5))
    assert str(err.value) == f"parameter taus: (1, -5) is not valid, {expected}"
    # A list the parameter takes is read as before.
    assert podium.System("kalman-mmr", taus=[0, 12.5]).params["taus"] == "0,12.5"
