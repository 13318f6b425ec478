#!/usr/bin/env python3
"""Warm-pair backtest of the multiplayer rating libraries people already use.

Run (numpy, openskill 6.2, trueskill 0.4.5 and elo-mmr-py 2.0 installed; scripts/accuracy.sh
makes such a virtual environment and runs it):

    python libraries.py catan.csv f1.csv codeforces.csv            # every system, CSV on stdout
    python libraries.py f1.csv --systems mmr,cfsys                  # a selection
    python libraries.py codeforces.csv --time-limit 900             # per-system time budget
    python libraries.py codeforces.csv --prefix 150                 # only the first 150 matches

What it measures (the warm-pair backtest of `podium backtest`, docs/evaluation.md):

* Matches are replayed in time order (stable sort on the `time` column when every match has
  one; file order otherwise).  **Before** a match is rated, every *warm pair* of it is scored:
  two players of different entries who finished at different places and who have both
  played at least one earlier match.
* Pair accuracy: the player with the higher rating mean is predicted to finish ahead; 1 if
  right, 1/2 if the two means are exactly equal, 0 if wrong; mean over all warm pairs of all
  matches.  Counted exactly in O(N log N) per match (sort by place, count inversions).
* Log loss: mean over the same pairs of -ln p, where p is the system's own probability that
  the player who finished ahead does so, clamped to [1e-15, 1 - 1e-15].  Exact, O(W^2) per
  match (vectorised with numpy, in column blocks).
* seconds: wall-clock time of the whole replay (rating plus scoring) of one system.

Input: long CSV with columns match, player, rank|score, team, time, weight (docs/datasets.md); rows of
one match contiguous; rank 1 = best (or higher score = better); equal finish = tie; players
with the same non-empty team in a match form one entry.

Library systems and the choices this script makes (each library's defaults otherwise):

* openskill 6.2: PlackettLuce, BradleyTerryFull, BradleyTerryPart, ThurstoneMostellerFull,
  ThurstoneMostellerPart, each `Model()` with default parameters (mu 25, sigma 25/3,
  beta 25/6, tau 25/300).  `model.rate(teams, ranks=places)`; if `rate` raises (e.g.
  OverflowError in very large fields) the match is left unrated and counted in
  `failures`; ties = equal ranks; partial
  play is passed as `weights` only when some weight differs from 1 (openskill then
  normalises weights within a team to [1, 2], its default `weight_bounds`).  Win probability
  of a pair = the library's own 2-team `predict_win`:
  Phi((mu_a - mu_b) / sqrt(2 beta^2 + sigma_a^2 + sigma_b^2)).  openskill has no notion of
  time, so dates only order the matches.
* trueskill 0.4.5: `trueskill.TrueSkill()` defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300,
  draw_probability 0.10).  `env.rate(groups, ranks=places, weights=...)`; ties = equal ranks.
  Win probability = the library's documented 1-vs-1 formula
  Phi((mu_a - mu_b) / sqrt(2 beta^2 + sigma_a^2 + sigma_b^2)).  No idle-time handling (the
  library has none).  If `rate` raises (FloatingPointError on extreme fields) the match is
  left unrated and counted in the `failures` column.
* elo-mmr-py 2.0: `Rater(system)` for every supported system (bar, glicko, cfsys, tcsys,
  trueskill, mmx, mmx-fast, mmr, mmr-fast, mmr-simple), mu_noob 1500, sig_noob 350.  A match
  is one `Contest` whose standings are (player, lo, hi) with zero-based positions, a tied
  group sharing the interval of positions it covers; a team's players share the interval of
  positions the team's players cover (elo-mmr-py has no teams, so teammates are rated as if
  tied with each other); partial play
  is not passed (no per-player weight in the library).  `time_seconds` = seconds since the
  first match of the file (elo-mmr-py needs non-negative times and F1 starts in 1950; only
  differences matter, and with the default drift_per_day = 0 they do not matter at all); 0
  for files without times.  The rating mean used for ranking is `PlayerRating.mu` (the
  unrounded posterior mean; `.rating` is that mean rounded to an integer, which makes exact
  ties).  Win probability from each system's own performance model:
    - mmr, mmr-fast, mmr-simple: logistic performances of standard deviation
      beta = sig_limit * sqrt(1 + 1/weight_limit) = 80 sqrt(6) around the skill:
      p = L((mu_a - mu_b) / sqrt(sig_a^2 + sig_b^2 + 2 beta^2)), L the logistic CDF with unit
      standard deviation, L(z) = 1 / (1 + exp(-pi z / sqrt 3));
    - mmx, mmx-fast: the same with the normal CDF Phi;
    - bar: its own win_probability, L((mu_a - mu_b) / sqrt(sig_a^2 + sig_b^2 + 2 beta^2)),
      beta = 400 (pi / sqrt 3) / ln 10;
    - glicko: its per-game expectation made symmetric (Glickman's prediction of a game between
      two rated players): L((mu_a - mu_b) / sqrt(beta^2 + sig_a^2 + sig_b^2)), same beta;
    - cfsys: its own Elo expectation L((mu_a - mu_b) / beta) = 1 / (1 + 10^((mu_b - mu_a)/400));
    - tcsys: its own Phi((mu_a - mu_b) / sqrt(sig_a^2 + sig_b^2));
    - trueskill: Phi((mu_a - mu_b) / sqrt(sig_a^2 + sig_b^2 + 2 beta^2)), beta = 175.

Pure-Python libraries can be very slow on contests with thousands of entrants: every system
gets the wall-clock budget --time-limit (default 1200 s).  A system that runs out stops
after the match in progress and its row reports only the matches it got through
(`complete` = no, `matches` = how many were rated and scored).  Compare it with another
system on the same prefix with --prefix.

Output: CSV on stdout with columns
dataset,library,system,accuracy_pct,log_loss,warm_pairs,seconds,matches,complete,failures
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import math
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

MIN_P = 1e-15
SQRT3 = math.sqrt(3.0)
TANH_MULTIPLIER = math.pi / SQRT3
# elo-mmr's scale for its Elo-like systems: a logistic of this standard deviation is Elo's
# 400-point curve.
EMMR_ELO_BETA = 400.0 * TANH_MULTIPLIER / math.log(10.0)
EMMR_MMR_BETA = 80.0 * math.sqrt(1.0 + 1.0 / 0.2)
EMMR_TS_BETA = 175.0

OPENSKILL_MODELS = [
    "PlackettLuce",
    "BradleyTerryFull",
    "BradleyTerryPart",
    "ThurstoneMostellerFull",
    "ThurstoneMostellerPart",
]
ELO_MMR_SYSTEMS = [
    "bar",
    "glicko",
    "cfsys",
    "tcsys",
    "trueskill",
    "mmx",
    "mmx-fast",
    "mmr",
    "mmr-fast",
    "mmr-simple",
]


# ----------------------------------------------------------------------------------------
# Input


@dataclass
class Entry:
    """One entry of a match: a player or a team, with its place and position interval."""

    players: list[str]
    weights: list[float]
    place: int  # 1 + number of entries strictly ahead (competition ranking)
    lo: int  # zero-based first position of its tied group
    hi: int  # zero-based last position of its tied group


@dataclass
class Match:
    id: str
    time: float | None  # seconds since the Unix epoch
    entries: list[Entry]  # sorted best first


def parse_time(text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    if len(text) == 10:
        d = dt.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc)
    else:
        d = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        if d.tzinfo is None:
            d = d.replace(tzinfo=dt.timezone.utc)
    return d.timestamp()


def load_matches(path: str) -> list[Match]:
    """Reads a long CSV (docs/datasets.md) into matches, in rating order."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        cols = set(reader.fieldnames or [])
        use_rank = "rank" in cols
        groups: list[tuple[str, list[dict]]] = []
        for row in reader:
            mid = row["match"]
            if not groups or groups[-1][0] != mid:
                groups.append((mid, []))
            groups[-1][1].append(row)

    def finish_of(row: dict) -> float:
        # A sort key where smaller is better.
        if use_rank and row.get("rank", "").strip():
            return float(row["rank"])
        return -float(row["score"])

    matches = []
    for mid, rows in groups:
        by_entry: dict[str, tuple[float, list[str], list[float]]] = {}
        for row in rows:
            team = (row.get("team") or "").strip()
            key = "team:" + team if team else "player:" + row["player"]
            w = (row.get("weight") or "").strip()
            weight = float(w) if w else 1.0
            if key not in by_entry:
                by_entry[key] = (finish_of(row), [], [])
            by_entry[key][1].append(row["player"])
            by_entry[key][2].append(weight)
        items = sorted(by_entry.values(), key=lambda e: e[0])
        entries = []
        i = 0
        while i < len(items):
            j = i
            while j + 1 < len(items) and items[j + 1][0] == items[i][0]:
                j += 1
            for k in range(i, j + 1):
                entries.append(Entry(items[k][1], items[k][2], i + 1, i, j))
            i = j + 1
        t = parse_time(rows[0].get("time") or "")
        matches.append(Match(mid, t, entries))
    if matches and all(m.time is not None for m in matches):
        matches.sort(key=lambda m: m.time)  # stable
    return matches


# ----------------------------------------------------------------------------------------
# Probability helpers (numpy only)


def _erfc(x: np.ndarray) -> np.ndarray:
    """Complementary error function, fractional error < 1.2e-7 everywhere (Numerical
    Recipes' Chebyshev fit), vectorised."""
    z = np.minimum(np.abs(x), 30.0)  # erfc(30) underflows to 0 anyway
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    r = t * np.exp(poly)
    return np.where(x >= 0, r, 2.0 - r)


def normal_cdf(z: np.ndarray) -> np.ndarray:
    return 0.5 * _erfc(-z / math.sqrt(2.0))


def gaussian_pair(beta2: float):
    """P(a ahead of b) for Gaussian skills with performance noise β² each (TrueSkill's
    and the Thurstone-Mosteller models' own formula)."""

    def prob(mu_a, sig_a, mu_b, sig_b):
        return normal_cdf((mu_a - mu_b) / np.sqrt(2 * beta2 + sig_a**2 + sig_b**2))

    return prob


def logistic_cdf(z: np.ndarray) -> np.ndarray:
    """Logistic CDF of a unit-standard-deviation logistic variable."""
    return 0.5 + 0.5 * np.tanh(0.5 * TANH_MULTIPLIER * z)


# ----------------------------------------------------------------------------------------
# Metric


def count_ascending_pairs(a: np.ndarray) -> int:
    """Number of index pairs i < j with a[i] < a[j]; a holds integers >= 0.
    Bottom-up merge levels, each vectorised: O(N log^2 N)."""
    n = len(a)
    if n < 2:
        return 0
    m = int(a.max()) + 1
    arr = a.astype(np.int64)
    idx = np.arange(n, dtype=np.int64)
    total = 0
    width = 1
    while width < n:
        block = idx // (2 * width)
        right = (idx // width) % 2 == 1
        key = block * m + arr
        left_keys = key[~right]  # globally sorted: sorted within blocks, blocks in order
        rk = key[right]
        rb = block[right] * m
        total += int((np.searchsorted(left_keys, rk, "left") - np.searchsorted(left_keys, rb, "left")).sum())
        arr = np.sort(key) - block * m
        width *= 2
    return total


def pair_counts(place: np.ndarray, rating: np.ndarray) -> tuple[int, int, int]:
    """(right, equal-rating, wrong) counts over pairs at different places."""
    n = len(place)
    if n < 2:
        return 0, 0, 0
    _, rank = np.unique(rating, return_inverse=True)
    _, pcount = np.unique(place, return_counts=True)
    pairs = n * (n - 1) // 2 - int((pcount * (pcount - 1) // 2).sum())
    _, vcount = np.unique(rank, return_counts=True)
    _, vpcount = np.unique(rank.astype(np.int64) * (int(place.max()) + 1) + place, return_counts=True)
    tied = int((vcount * (vcount - 1) // 2).sum()) - int((vpcount * (vpcount - 1) // 2).sum())
    # Order by place ascending, rating descending within a place; a wrong pair is then an
    # earlier (better-placed) player with a strictly lower rating.
    order = np.lexsort((-rank, place))
    wrong = count_ascending_pairs(rank[order])
    return pairs - tied - wrong, tied, wrong


def log_loss_sum(place: np.ndarray, mu: np.ndarray, sig: np.ndarray, prob) -> float:
    """Sum over pairs at different places of -ln p(better finishes ahead of worse)."""
    n = len(place)
    if n < 2:
        return 0.0
    order = np.argsort(place, kind="stable")
    place, mu, sig = place[order], mu[order], sig[order]
    ahead = np.searchsorted(place, place, "left")  # players strictly ahead of each
    total = 0.0
    block = max(1, 4_000_000 // n)
    for start in range(0, n, block):
        cols = np.arange(start, min(n, start + block))
        k = int(ahead[cols].max())
        if k == 0:
            continue
        p = prob(mu[:k, None], sig[:k, None], mu[None, cols], sig[None, cols])
        mask = np.arange(k)[:, None] < ahead[None, cols]
        p = np.clip(p, MIN_P, 1.0 - MIN_P)
        total += float(-(np.log(p) * mask).sum())
    return total


# ----------------------------------------------------------------------------------------
# Systems: each gives (mu, sigma) of known players, a pair probability, and an update.


class OpenSkillSystem:
    library = "openskill 6.2"

    def __init__(self, name: str):
        import openskill.models as om

        self.name = name
        self.model = getattr(om, name)()
        self.state: dict[str, tuple[float, float]] = {}
        self.failures = 0
        self.prob = gaussian_pair(self.model.beta ** 2)

    def rating(self, player: str) -> tuple[float, float]:
        return self.state.get(player, (self.model.mu, self.model.sigma))

    def update(self, match: Match) -> None:
        m = self.model
        teams, ranks, weights = [], [], []
        for e in match.entries:
            team = []
            for p in e.players:
                mu, sig = self.state.get(p, (m.mu, m.sigma))
                team.append(m.rating(mu=mu, sigma=sig))
            teams.append(team)
            ranks.append(float(e.place))
            weights.append(list(e.weights))
        partial = any(w != 1.0 for ws in weights for w in ws)
        try:
            out = m.rate(teams, ranks=ranks, weights=weights if partial else None)
        except (OverflowError, ValueError, ZeroDivisionError, FloatingPointError):
            # The library cannot rate this match (e.g. math range error in a huge field):
            # it is left unrated and counted in `failures`.
            self.failures += 1
            for e in match.entries:
                for p in e.players:
                    self.state.setdefault(p, (m.mu, m.sigma))
            return
        for e, team in zip(match.entries, out):
            for p, r in zip(e.players, team):
                self.state[p] = (r.mu, r.sigma)


class TrueSkillSystem:
    library = "trueskill 0.4.5"

    def __init__(self):
        import trueskill

        self.name = "trueskill"
        self.env = trueskill.TrueSkill()
        self.state: dict[str, tuple[float, float]] = {}
        self.failures = 0
        self.prob = gaussian_pair(self.env.beta ** 2)

    def rating(self, player: str) -> tuple[float, float]:
        return self.state.get(player, (self.env.mu, self.env.sigma))

    def update(self, match: Match) -> None:
        env = self.env
        groups, ranks, weights = [], [], []
        for e in match.entries:
            groups.append(tuple(env.create_rating(*self.state.get(p, (env.mu, env.sigma))) for p in e.players))
            ranks.append(e.place)
            weights.append(tuple(e.weights))
        partial = any(w != 1.0 for ws in weights for w in ws)
        try:
            out = env.rate(groups, ranks=ranks, weights=weights if partial else None)
        except (FloatingPointError, ValueError, ZeroDivisionError):
            self.failures += 1
            out = groups  # the match is left unrated
            for e in match.entries:  # but its players have still played
                for p in e.players:
                    self.state.setdefault(p, (env.mu, env.sigma))
            return
        for e, group in zip(match.entries, out):
            for p, r in zip(e.players, group):
                self.state[p] = (r.mu, r.sigma)


class EloMmrSystem:
    library = "elo-mmr-py 2.0"

    def __init__(self, name: str, t0: float):
        import elo_mmr_py

        self.name = name
        self.t0 = t0
        self.rater = elo_mmr_py.Rater(name)
        self.snapshot: dict = {}
        self.failures = 0
        self._contest = elo_mmr_py.Contest
        if name in ("mmr", "mmr-fast", "mmr-simple"):
            b2 = 2 * EMMR_MMR_BETA**2
            self.prob = lambda ma, sa, mb, sb: logistic_cdf((ma - mb) / np.sqrt(sa**2 + sb**2 + b2))
        elif name in ("mmx", "mmx-fast"):
            b2 = 2 * EMMR_MMR_BETA**2
            self.prob = lambda ma, sa, mb, sb: normal_cdf((ma - mb) / np.sqrt(sa**2 + sb**2 + b2))
        elif name == "bar":
            b2 = 2 * EMMR_ELO_BETA**2
            self.prob = lambda ma, sa, mb, sb: logistic_cdf((ma - mb) / np.sqrt(sa**2 + sb**2 + b2))
        elif name == "glicko":
            b2 = EMMR_ELO_BETA**2
            self.prob = lambda ma, sa, mb, sb: logistic_cdf((ma - mb) / np.sqrt(sa**2 + sb**2 + b2))
        elif name == "cfsys":
            self.prob = lambda ma, sa, mb, sb: logistic_cdf((ma - mb) / EMMR_ELO_BETA + 0 * (sa + sb))
        elif name == "tcsys":
            self.prob = lambda ma, sa, mb, sb: normal_cdf((ma - mb) / np.sqrt(sa**2 + sb**2))
        elif name == "trueskill":
            b2 = 2 * EMMR_TS_BETA**2
            self.prob = lambda ma, sa, mb, sb: normal_cdf((ma - mb) / np.sqrt(sa**2 + sb**2 + b2))
        else:
            raise ValueError(name)

    def begin(self) -> None:
        """Called before the ratings of a match are read."""
        self.snapshot = self.rater.ratings

    def rating(self, player: str) -> tuple[float, float]:
        r = self.snapshot.get(player)
        if r is None:
            # Played only matches elo-mmr ignores (everyone tied): still a newcomer to it.
            return self.rater.mu_noob, self.rater.sig_noob
        return r.mu, r.sig

    def update(self, match: Match) -> None:
        # elo-mmr-py ranks players, not entries: a tied group of entries (or one team) covers
        # as many zero-based positions as it has players, all sharing that interval.
        standings = []
        pos = 0
        i = 0
        entries = match.entries
        while i < len(entries):
            j = i
            while j + 1 < len(entries) and entries[j + 1].lo == entries[i].lo:
                j += 1
            group = [p for e in entries[i:j + 1] for p in e.players]
            standings.extend((p, pos, pos + len(group) - 1) for p in group)
            pos += len(group)
            i = j + 1
        t = 0 if match.time is None else int(round(match.time - self.t0))
        self.rater.add(self._contest(standings, name=match.id, time_seconds=t))


def make_system(name: str, t0: float):
    if name in OPENSKILL_MODELS:
        return OpenSkillSystem(name)
    if name == "trueskill":
        return TrueSkillSystem()
    if name.startswith("emmr:"):
        return EloMmrSystem(name[5:], t0)
    raise ValueError(f"unknown system {name!r}")


ALL_SYSTEMS = OPENSKILL_MODELS + ["trueskill"] + ["emmr:" + s for s in ELO_MMR_SYSTEMS]


# ----------------------------------------------------------------------------------------
# Backtest


@dataclass
class Result:
    right: int = 0
    equal: int = 0
    wrong: int = 0
    loss: float = 0.0
    matches: int = 0
    seconds: float = 0.0
    complete: bool = True
    failures: int = 0

    @property
    def pairs(self) -> int:
        return self.right + self.equal + self.wrong

    def accuracy(self) -> float:
        return (self.right + 0.5 * self.equal) / self.pairs if self.pairs else float("nan")


def backtest(system, matches: list[Match], time_limit: float, first: int = 0,
             last: int | None = None) -> Result:
    """Replays every match; scores those with index in [first, last)."""
    res = Result()
    played: set[str] = set()
    start = time.perf_counter()
    for index, match in enumerate(matches):
        if time.perf_counter() - start > time_limit:
            res.complete = False
            break
        if hasattr(system, "begin"):
            system.begin()
        places, mus, sigs = [], [], []
        for e in match.entries:
            for p in e.players:
                if p in played:
                    mu, sig = system.rating(p)
                    places.append(e.place)
                    mus.append(mu)
                    sigs.append(sig)
        scored = index >= first and (last is None or index < last)
        if len(places) > 1 and scored:
            place = np.array(places, dtype=np.int64)
            mu = np.array(mus, dtype=np.float64)
            sig = np.array(sigs, dtype=np.float64)
            r, q, w = pair_counts(place, mu)
            res.right += r
            res.equal += q
            res.wrong += w
            res.loss += log_loss_sum(place, mu, sig, system.prob)
        if len(match.entries) > 1:
            system.update(match)
        for e in match.entries:
            played.update(e.players)
        res.matches += 1
    res.seconds = time.perf_counter() - start
    res.failures = system.failures
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="long CSV files")
    ap.add_argument("--systems", default="all",
                    help="comma list of: " + ",".join(s.replace("emmr:", "") for s in ALL_SYSTEMS)
                    + " (elo-mmr-py systems may be written emmr:NAME; plain 'trueskill' is "
                    "trueskill 0.4.5, 'emmr:trueskill' elo-mmr-py's)")
    ap.add_argument("--time-limit", type=float, default=1200.0,
                    help="wall-clock seconds per (file, system); default 1200")
    ap.add_argument("--prefix", type=int, default=None, help="only the first N matches")
    ap.add_argument("--from", dest="first", type=float, default=0.0,
                    help="score from this match on: an index, or a fraction of the history "
                    "if below 1 (every match is still rated)")
    ap.add_argument("--until", dest="last", type=float, default=None,
                    help="score up to (not including) this match: index or fraction")
    args = ap.parse_args(argv)

    if args.systems == "all":
        systems = ALL_SYSTEMS
    else:
        systems = []
        for s in args.systems.split(","):
            s = s.strip()
            if s in ALL_SYSTEMS:
                systems.append(s)
            elif "emmr:" + s in ALL_SYSTEMS:
                systems.append("emmr:" + s)
            else:
                ap.error(f"unknown system {s!r}")

    out = csv.writer(sys.stdout)
    out.writerow(["dataset", "library", "system", "accuracy_pct", "log_loss", "warm_pairs",
                  "seconds", "matches", "complete", "failures"])
    sys.stdout.flush()
    for path in args.files:
        matches = load_matches(path)
        if args.prefix is not None:
            matches = matches[: args.prefix]
        times = [m.time for m in matches if m.time is not None]
        t0 = min(times) if times else 0.0
        dataset = os.path.splitext(os.path.basename(path))[0]
        def bound(x):
            if x is None:
                return None
            return int(round(x * len(matches))) if x < 1 else int(x)

        for name in systems:
            system = make_system(name, t0)
            res = backtest(system, matches, args.time_limit, bound(args.first) or 0,
                           bound(args.last))
            out.writerow([
                dataset, system.library, system.name,
                f"{100 * res.accuracy():.2f}", f"{res.loss / res.pairs:.4f}" if res.pairs else "nan",
                res.pairs, f"{res.seconds:.1f}", f"{res.matches}/{len(matches)}",
                "yes" if res.complete else "no", res.failures,
            ])
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
