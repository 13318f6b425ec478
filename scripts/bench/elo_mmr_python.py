#!/usr/bin/env python3
"""Time elo-mmr-py's `mmr` on a whole history, for scripts/bench-remember.sh.

    python scripts/bench/elo_mmr_python.py HISTORY.csv [SYSTEM]

HISTORY.csv is long CSV from `podium import` (read and ordered as
scripts/reference/elo_mmr_parity.py reads it). The contests are built first; only
`rate_latest(contests, SYSTEM)` (default `mmr`) is timed. Prints the seconds and the
number of players rated.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "reference"))
from elo_mmr_parity import read_matches, standings  # noqa: E402

from elo_mmr_py import Contest, rate_latest  # noqa: E402


def main():
    path = sys.argv[1]
    system = sys.argv[2] if len(sys.argv) > 2 else "mmr"
    matches = read_matches(path)
    origin = min((t for _, t, _ in matches if t is not None), default=0)
    contests = [
        Contest(standings=standings(players), name=mid, time_seconds=t - origin if t is not None else 0)
        for mid, t, players in matches
    ]
    start = time.perf_counter()
    ratings = rate_latest(contests, system)
    seconds = time.perf_counter() - start
    print(f"elo-mmr-py {system}: {len(contests)} contests, {len(ratings)} players rated in {seconds:.1f} s")


if __name__ == "__main__":
    main()
