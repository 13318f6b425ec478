#!/usr/bin/env python3
"""What a factor's season, seen in hindsight, would add to a system's own ratings.

usage: season_residuals.py FILE.csv HISTORY.csv --factor COLUMN [--scale A ...]

FILE is a podium CSV of free-for-alls with the factor column (match, player, rank,
time, COLUMN; rows of a match contiguous, in the order `podium` rates them), and
HISTORY the same matches rated by one system without the factor:
`podium rate FILE.csv --system S --history HISTORY.csv`. Every warm pair is scored as
`podium backtest` scores it (two players at different places who have both played an
earlier match; 1 if right, ½ if equal), by the player's rating before the match (the
history's `rating_before`) plus A times the factor value's season residual: the mean
rating change (`change`) of every player who carried that value in the *other* matches
of the same calendar year, past and future, shrunk towards 0 as if four changes of 0
had been seen (`sum / (n + 4)`).

With A = 0 this is the system's own warm-pair accuracy (`podium backtest FILE.csv
--systems S`). If the factor decided results in a way the system's ratings missed, its
drivers' ratings would keep moving the same way through the season, and some A > 0
would order more pairs; if the ratings already carry the factor, no A helps. No rating
has hindsight, so a gain here is more than an online rating of the factor could reach.
Standard library only.
"""

import argparse
import csv
import sys
from collections import defaultdict

from hindsight import read


def read_factor(path, column):
    """(match, player) → (factor value or "", year or None) from FILE, read as
    hindsight.py reads it."""
    return {(mid, player): (value, date.year if date else None)
            for mid, date, rows in read(path, column)
            for player, _, value in rows}


def read_history(path):
    """The history's matches in order: (id, [(player, place, rating_before, change)])."""
    matches = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        need = ["match", "player", "place", "rating_before", "change"]
        missing = [c for c in need if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"{path}:1: no column {', '.join(missing)} (a `podium rate --history` file)")
        for line, row in enumerate(reader, start=2):
            if row.get("factor_kind"):
                sys.exit(f"{path}:{line}: a factor's row: rate FILE without --factor")
            try:
                entry = (row["player"], int(row["place"]), float(row["rating_before"]),
                         float(row["change"]))
            except ValueError:
                sys.exit(f"{path}:{line}: field `place`, `rating_before` or `change` is not a number")
            if not matches or matches[-1][0] != row["match"]:
                matches.append((row["match"], []))
            matches[-1][1].append(entry)
    return matches


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("history")
    ap.add_argument("--factor", required=True)
    ap.add_argument("--scale", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0, 4.0, 8.0])
    args = ap.parse_args()
    factor = read_factor(args.file, args.factor)
    matches = read_history(args.history)
    # Per (value, year): per match, the changes of the players who carried it.
    changes = defaultdict(lambda: defaultdict(list))
    for mid, rows in matches:
        for player, _, _, change in rows:
            key = factor.get((mid, player))
            if key is None:
                sys.exit(f"{args.history}: match {mid!r}, player {player!r} is not in {args.file}")
            if key[0]:
                changes[key][mid].append(change)
    totals = {k: (sum(sum(v) for v in d.values()), sum(len(v) for v in d.values()))
              for k, d in changes.items()}

    def residual(mid, player):
        key = factor[(mid, player)]
        if not key[0]:
            return 0.0
        total, count = totals[key]
        own = changes[key].get(mid, [])
        return (total - sum(own)) / (count - len(own) + 4)

    print("scale,pair_accuracy,warm_pairs")
    for scale in args.scale:
        seen = set()
        right = pairs = 0.0
        for mid, rows in matches:
            warm = [(place, before + scale * residual(mid, player))
                    for player, place, before, _ in rows if player in seen]
            for i, (pa, va) in enumerate(warm):
                for pb, vb in warm[i + 1:]:
                    if pa == pb:
                        continue
                    pairs += 1
                    if va == vb:
                        right += 0.5
                    elif (va > vb) == (pa < pb):
                        right += 1
            seen.update(player for player, _, _, _ in rows)
        print(f"{scale:g},{right / pairs:.6f},{int(pairs)}")


if __name__ == "__main__":
    main()
