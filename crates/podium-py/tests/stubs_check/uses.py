"""Uses of the module that the type stubs must accept under `mypy --strict`, as the module
does (test_stubs.py checks them): never run, only type-checked."""

import datetime
from typing import Optional, Union

import numpy as np
from typing_extensions import assert_type

import podium

# Mappings with one kind of key: a Mapping's keys are invariant, so a dict[str, int] must
# be taken where places, scores or factors by player are.
places: dict[str, int] = {"ann": 1, "bo": 2}
scores: dict[str, float] = {"ann": 31.0, "bo": 25.5}
teams: dict[tuple[str, ...], int] = {("ann", "bo"): 1, ("cy",): 2}
factors: dict[str, dict[str, str]] = {"ann": {"car": "red"}}
seats: dict[str, dict[str, int]] = {"ann": {"seat": 1}}
podium.Match(places)
podium.Match(teams)
podium.Match(scores=scores, factors=factors)
podium.Match(["ann", "bo"], factors=seats)
podium.Match({frozenset({"ann", "bo"}): 1, frozenset({"cy"}): 2})
league = podium.League("sme")
league.rate(places, factors=factors)
league.rate_many([places, {"bo": 1, "ann": 2}])
league.predict(["ann", "bo"], factors=factors)

# numpy's numbers, which the module takes wherever a Python int or float is.
podium.Match({"ann": np.int64(1), "bo": np.int64(2)}, time=np.int64(1714564800))
podium.Match({"ann": np.float32(1.0), "bo": np.float32(2.0)})
podium.Match(["ann", "bo"], weights={"ann": np.float32(0.5)})
podium.backtest([places], "sme", start=np.int64(3), threads=np.int32(1))
podium.simulate("sme", rounds=[np.int64(1)], trials=np.int64(20), seed=np.uint64(1))
league.standings(min_games=np.int64(1))
league.set_initial("cy", np.float32(1500.0), games=np.int64(3))
league.balance(np.array(["ann", "bo"]).tolist(), teams=np.int64(2), top=np.int64(1))
podium.System("sme").win_probability(np.float32(1500.0), (np.int64(1400), np.float64(30.0)))
podium.System("sme", k=np.float32(24.0))

# A backtest's window: match numbers and times, not floats.
podium.backtest([places], "sme", start=3, end=datetime.date(2025, 1, 1))
podium.backtest([places], "sme", start="2024-05-01", end=datetime.datetime(2025, 1, 1))

# Balance takes any iterable of names.
league.balance({"ann", "bo"}, teams=2, apart=[("ann", "bo")], fix={"ann": 1}, newcomers=iter([]))

# versus takes a path, a list of paths, or matches.
podium.versus(["a.csv", "b.jsonl"], "ann", "bo")
podium.versus(podium.Matches([places]), "ann")

# A parameter's value may be text: kalman-mmr's taus are "0,12,25,50".
assert_type(podium.System("kalman-mmr").params["taus"], Union[float, int, bool, str])
podium.System("kalman-mmr", taus=[0, 12.5])

# A time before the year 1 comes back as its RFC 3339 text.
Time = Optional[Union[datetime.datetime, str]]
assert_type(podium.Match(["ann", "bo"]).time, Time)
assert_type(league.standings()[0].last_played, Time)
assert_type(league.history()[0].time, Time)
assert_type(league.factor_history()[0].time, Time)

# A mapping of places mixing players and teams.
podium.Match({"ann": 1, ("bo", "cy"): 2})
podium.Match(scores={"ann": 1.5, frozenset({"bo", "cy"}): 2})
