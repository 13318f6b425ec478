#!/usr/bin/env python3
"""How well a history's results can be told apart with hindsight of the same year.

usage: hindsight.py FILE.csv [--factor COLUMN] [--blend W ...]

FILE is a podium CSV (match, player, rank, time; rows of a match contiguous, in time
order). Every warm pair is scored as `podium backtest` scores it (two players at
different places who have both played an earlier match; 1 if right, ½ if the two
values are equal), but the value that orders a pair is not a rating: it is the mean of
the player's finishing places (0 first, 1 last) in the *other* matches of the same
calendar year, past and future, with the worst quarter of them left out (retirements
and accidents). With `--factor COLUMN`, that value is blended with the same mean over
every player who carried the entry's factor value that year (the car's season):
`(1 − W)·player + W·factor`, for each W given to `--blend`.

No rating system can know a season's later races, so the figures are a yardstick for
what an online system may reach on the history, not a bound in the strict sense.
Standard library only.
"""

import argparse
import csv
import datetime
import sys
from collections import defaultdict


def trimmed_mean(values):
    """The mean without the worst (largest) quarter of the values."""
    if not values:
        return None
    values = sorted(values)
    keep = len(values) - len(values) // 4 if len(values) > 3 else len(values)
    return sum(values[:keep]) / keep


def read(path, factor):
    """The matches of a CSV of free-for-alls, in file order: (id, date or None when
    `time` is empty, rows), each row (player, rank, the factor's value or "")."""
    matches = []
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        need = ["match", "player", "rank", "time"] + ([factor] if factor else [])
        missing = [c for c in need if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"{path}:1: no column {', '.join(missing)} (needs {', '.join(need)})")
        for line, row in enumerate(reader, start=2):
            if row.get("team"):
                sys.exit(f"{path}:{line}: field `team`: only free-for-alls are read")
            if not matches or matches[-1][0] != row["match"]:
                date = None
                if row["time"]:
                    try:
                        date = datetime.date.fromisoformat(row["time"][:10])
                    except ValueError:
                        sys.exit(f"{path}:{line}: field `time`: {row['time']!r} is not a date")
                matches.append((row["match"], date, []))
            try:
                rank = int(row["rank"])
            except ValueError:
                sys.exit(f"{path}:{line}: field `rank`: {row['rank']!r} is not a whole number")
            matches[-1][2].append((row["player"], rank, row[factor] if factor else ""))
    return matches


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--factor")
    ap.add_argument("--blend", type=float, nargs="*", default=None)
    args = ap.parse_args()
    blends = args.blend if args.blend is not None else ([0.0, 0.25, 0.5] if args.factor else [0.0])
    try:
        matches = read(args.file, args.factor)
    except OSError as e:
        sys.exit(f"{args.file}: {e.strerror}")

    # Every (year, player) and (year, factor value): its matches' places.
    by_player, by_factor = defaultdict(list), defaultdict(list)
    for m, (name, date, rows) in enumerate(matches):
        year = date.year if date else None
        n = len(rows)
        for player, rank, value in rows:
            place = (rank - 1) / (n - 1) if n > 1 else 0.5
            by_player[(year, player)].append((m, place))
            if value:
                by_factor[(year, value)].append((m, place))

    def other(entries, m):
        return trimmed_mean([p for mm, p in entries if mm != m])

    right = [0.0] * len(blends)
    pairs = 0
    played = set()
    for m, (name, date, rows) in enumerate(matches):
        year = date.year if date else None
        warm = []
        for player, rank, value in rows:
            if player not in played:
                continue
            own = other(by_player[(year, player)], m)
            own = 0.5 if own is None else own
            car = other(by_factor[(year, value)], m) if value else None
            car = own if car is None else car
            warm.append((rank, [(1 - w) * own + w * car for w in blends]))
        for i in range(len(warm)):
            for j in range(i + 1, len(warm)):
                (ri, vi), (rj, vj) = warm[i], warm[j]
                if ri == rj:
                    continue
                pairs += 1
                for b in range(len(blends)):
                    if vi[b] == vj[b]:
                        right[b] += 0.5
                    elif (vi[b] < vj[b]) == (ri < rj):
                        right[b] += 1.0
        played.update(player for player, _, _ in rows)

    print(f"warm pairs: {pairs}")
    if pairs == 0:
        return
    for w, r in zip(blends, right):
        label = f"blend {w:g} with {args.factor}" if args.factor else "player"
        print(f"{label}: {100 * r / pairs:.2f} %")


if __name__ == "__main__":
    main()
