#!/usr/bin/env python3
"""The exact Kalman filter of players and factors with their full covariance.

usage: joint_filter.py FILE.csv [--factor COLUMN] [--player-drift G] [--factor-drift G]
                       [--player-prior S] [--factor-prior S]

FILE is a podium CSV of free-for-alls (match, player, rank, time; rows of a match
contiguous, in time order). The model is linear and Gaussian: every entry of a match
shows a performance, the normal score of its place (the standard normal quantile of
`(place − ½) / last place`, the winner's positive), and that performance is its player's
skill plus the rating of its factor value (with `--factor`) plus noise of variance 1,
all taken relative to the match's mean. A skill starts at 0 with σ `--player-prior`, a
factor value at 0 with σ `--factor-prior`, and each variance grows by the square of its
drift per year between the days it plays.

The filter keeps one Gaussian belief over every player and factor value seen, with
their whole covariance: it is the exact posterior of that model given every earlier
match, which rating systems that keep one belief per player approximate (a shared car
makes its drivers' and its own ratings depend on one another). Every warm pair is
scored as `podium backtest` scores it (two players at different places who have both
played an earlier match; 1 if the strengths before the match order them right, ½ if
the two are equal), by skill plus factor. The figures say how much a factor can add
in this model when nothing is lost to approximation. Needs numpy.
"""

import argparse
import sys
from statistics import NormalDist

import numpy as np

from hindsight import read


class Filter:
    """One Gaussian belief over every variable seen: mean, covariance, last day played."""

    def __init__(self):
        self.index = {}
        self.mean = np.zeros(64)
        self.cov = np.zeros((64, 64))
        self.last = np.zeros(64)

    def variable(self, key, sigma, day):
        if key not in self.index:
            n = len(self.index)
            if n == len(self.mean):
                grown = 2 * n
                self.mean = np.resize(self.mean, grown)
                self.last = np.resize(self.last, grown)
                cov = np.zeros((grown, grown))
                cov[:n, :n] = self.cov
                self.cov = cov
            self.index[key] = n
            self.mean[n], self.cov[n, n], self.last[n] = 0.0, sigma * sigma, day
        return self.index[key]

    def drift(self, i, drift, day):
        self.cov[i, i] += drift * drift * (day - self.last[i]) / 365.25
        self.last[i] = day

    def observe(self, design, values):
        """The Kalman update from the rows of `design` (one per entry) seeing `values`,
        all relative to the match's mean; the last row is dropped, as the centred rows
        sum to zero."""
        n = len(self.index)
        m = len(values)
        centre = np.eye(m) - 1.0 / m
        h = (centre @ design)[:-1, :n]
        y = (centre @ values)[:-1]
        p = self.cov[:n, :n]
        hp = h @ p
        s = hp @ h.T + centre[:-1, :-1]
        gain = np.linalg.solve(s, hp).T
        self.mean[:n] += gain @ (y - h @ self.mean[:n])
        self.cov[:n, :n] = p - gain @ hp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--factor")
    ap.add_argument("--player-drift", type=float, default=0.5)
    ap.add_argument("--factor-drift", type=float, default=0.3)
    ap.add_argument("--player-prior", type=float, default=0.7)
    ap.add_argument("--factor-prior", type=float, default=0.7)
    args = ap.parse_args()
    try:
        matches = read(args.file, args.factor)
    except OSError as e:
        sys.exit(f"{args.file}: {e.strerror}")
    normal = NormalDist()
    belief = Filter()
    played = set()
    right, pairs = 0.0, 0
    for name, date, rows in matches:
        if date is None:
            sys.exit(f"{args.file}: match {name!r} has no `time`: the drifts need dates")
        day = date.toordinal()
        entries = []
        for player, rank, value in rows:
            i = belief.variable(("player", player), args.player_prior, day)
            belief.drift(i, args.player_drift, day)
            keys = [i]
            if value:
                j = belief.variable(("factor", value), args.factor_prior, day)
                belief.drift(j, args.factor_drift, day)
                keys.append(j)
            entries.append((player, rank, keys))
        strength = [sum(belief.mean[k] for k in keys) for _, _, keys in entries]
        warm = [(rank, s) for (p, rank, _), s in zip(entries, strength) if p in played]
        for a in range(len(warm)):
            for b in range(a + 1, len(warm)):
                (ra, sa), (rb, sb) = warm[a], warm[b]
                if ra == rb:
                    continue
                pairs += 1
                if sa == sb:
                    right += 0.5
                elif (sa > sb) == (ra < rb):
                    right += 1.0
        if len(entries) > 1:
            last = max(rank for _, rank, _ in entries)
            values = np.array([-normal.inv_cdf((rank - 0.5) / last) for _, rank, _ in entries])
            design = np.zeros((len(entries), len(belief.index)))
            for e, (_, _, keys) in enumerate(entries):
                design[e, keys] = 1.0
            belief.observe(design, values)
        played.update(p for p, _, _ in entries)
    print(f"warm pairs: {pairs}")
    if pairs:
        label = f"players and {args.factor}" if args.factor else "players"
        print(f"{label}: {100 * right / pairs:.2f} %")


if __name__ == "__main__":
    main()
