#!/usr/bin/env python3
"""Per-update time of openskill's five Weng-Lin models and of trueskill, on the same
free-for-alls as podium's criterion bench (crates/podium/benches/bayes.rs): 2, 8, 32, 100
and 1,000 entries, distinct ratings, no ties.

    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install openskill==6.2.0 trueskill==0.4.5
    /tmp/refenv/bin/python scripts/bench/bayes_python.py

Prints a markdown table (median of repeated runs, each run timed until at least 0.3 s).
"""
import importlib.metadata
import platform
import statistics
import sys
import time

import trueskill
from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

SIZES = [2, 8, 32, 100, 1000]


def spread(n):
    for i in range(n):
        x = ((i * 7919) % 1000) / 1000.0
        yield 15.0 + 20.0 * x, 2.0 + 6.0 * x


def per_update(fn, budget=0.3, runs=5):
    times = []
    for _ in range(runs):
        count, start = 0, time.perf_counter()
        while True:
            fn()
            count += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget:
                break
        times.append(elapsed / count)
        if elapsed > 5:  # one slow update is enough
            break
    return statistics.median(times)


def timed(fn):
    try:
        return fmt(per_update(fn))
    except Exception as e:  # trueskill's pure-Python backend gives up on large fields
        return f"fails ({type(e).__name__})"


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def main():
    rows = []
    for name, cls in [
        ("plackett-luce", PlackettLuce),
        ("bradley-terry-full", BradleyTerryFull),
        ("bradley-terry-part", BradleyTerryPart),
        ("thurstone-mosteller-full", ThurstoneMostellerFull),
        ("thurstone-mosteller-part", ThurstoneMostellerPart),
    ]:
        model = cls()
        cells = []
        for n in SIZES:
            teams = [[model.rating(mu=m, sigma=s)] for m, s in spread(n)]
            cells.append(timed(lambda: model.rate(teams)))
        rows.append((f"openskill {name}", cells))
        print(rows[-1], file=sys.stderr, flush=True)
    env = trueskill.TrueSkill()
    cells = []
    for n in SIZES:
        groups = [(env.create_rating(mu=m, sigma=s),) for m, s in spread(n)]
        ranks = list(range(n))
        cells.append(timed(lambda: env.rate(groups, ranks=ranks)))
    rows.append(("trueskill", cells))
    print(
        f"openskill {importlib.metadata.version('openskill')}, trueskill "
        f"{importlib.metadata.version('trueskill')}, Python {platform.python_version()}"
    )
    print()
    print("| library, model | " + " | ".join(str(n) for n in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    for name, cells in rows:
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
