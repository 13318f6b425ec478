#!/usr/bin/env python3
"""Benchmarks of the Python package, run by scripts/bench-python.sh (which installs what
they need): prints two markdown tables.

1. Per update: free-for-alls of 100 players (drawn from a pool of 1,000, seed 1) rated
   with Plackett-Luce one match per call: podium's `League.rate(ranking)` against
   openskill 6.2.0's `PlackettLuce().rate(teams)` with the ratings kept in a dict. Both
   rate the same matches; their final ratings are compared (they must agree). The
   default system, kalman-mmr, on the same matches beside them.
2. A long CSV of free-for-alls rated end to end, for each system of `--systems` (the
   default first): `podium rate FILE --system S --format csv` against a Python process
   that imports podium, rates the file (`League(S).rate_files`, or `read_csv` then
   `rate_many`, as it chooses and forced one by one) and builds the leaderboard. Each is
   a fresh process, run alternately; wall time and peak memory.
"""
import argparse
import platform
import random
import statistics
import subprocess
import sys
import time

import podium
from openskill.models import PlackettLuce


def ffa_matches(count, size=100, pool=1000, seed=1):
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(pool)]
    return [rng.sample(players, size) for _ in range(count)]


def podium_updates(matches, history, system="plackett-luce"):
    league = podium.League(system, history=history)
    wall, cpu = time.perf_counter(), time.process_time()
    for m in matches:
        league.rate(m)
    return time.perf_counter() - wall, time.process_time() - cpu, league


def openskill_updates(matches):
    model = PlackettLuce()
    ratings = {}
    wall, cpu = time.perf_counter(), time.process_time()
    for m in matches:
        teams = [[ratings.get(p) or model.rating(name=p)] for p in m]
        for p, team in zip(m, model.rate(teams)):
            ratings[p] = team[0]
    return time.perf_counter() - wall, time.process_time() - cpu, ratings


def fmt_us(seconds):
    return f"{seconds * 1e6:,.0f} µs" if seconds < 1e-2 else f"{seconds * 1e3:,.2f} ms"


def per_update(runs, count):
    matches = ffa_matches(count)
    rows = {"podium `League.rate` (history kept)": [], "podium `League.rate`, `history=False`": [],
            "openskill 6.2.0 `PlackettLuce.rate`": [],
            "podium `League(\"kalman-mmr\").rate` (the default; history kept)": []}
    for _ in range(runs):
        w, c, _ = podium_updates(matches, True, "kalman-mmr")
        rows["podium `League(\"kalman-mmr\").rate` (the default; history kept)"].append((w, c))
        w, c, league = podium_updates(matches, True)
        rows["podium `League.rate` (history kept)"].append((w, c))
        w, c, _ = podium_updates(matches, False)
        rows["podium `League.rate`, `history=False`"].append((w, c))
        w, c, ratings = openskill_updates(matches)
        rows["openskill 6.2.0 `PlackettLuce.rate`"].append((w, c))
    diff = max(
        max(abs(league.rating(p).value - r.mu), abs(league.rating(p).sigma - r.sigma))
        for p, r in ratings.items()
    )
    best = {k: (min(w for w, _ in v) / count, min(c for _, c in v) / count) for k, v in rows.items()}
    ref_w, ref_c = best["openskill 6.2.0 `PlackettLuce.rate`"]
    print(f"Per update, {count} free-for-alls of 100 players, best of {runs} runs:\n")
    print("| | wall per update | CPU per update | openskill ÷ this (wall) | (CPU) |")
    print("|---|---|---|---|---|")
    for k, (w, c) in best.items():
        print(f"| {k} | {fmt_us(w)} | {fmt_us(c)} | {ref_w / w:.1f}× | {ref_c / c:.1f}× |")
    print(f"\nLargest difference between the two libraries' final μ and σ: {diff:.1e}\n")


def timed(cmd):
    """Wall seconds of one run of `cmd`, its output discarded."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_kib(cmd):
    """Peak resident memory (KiB) of one run of `cmd`, as GNU time reports it."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], check=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(out.stderr.strip().splitlines()[-1])


PY_RATE_FILES = """
import sys, podium
league = podium.League(sys.argv[2])
league.rate_files(sys.argv[1])
board = league.standings()
assert len(board) > 0
"""

PY_READ_RATE = """
import sys, podium
league = podium.League(sys.argv[2])
at_once = {"timed": None, "one-by-one": False}[sys.argv[3]]
league.rate_many(podium.read_csv(sys.argv[1]), at_once=at_once)
board = league.standings()
assert len(board) > 0
"""


def whole_file(runs, csv_path, binary, system):
    cli_name = f"`podium rate FILE --system {system} --format csv`"
    cmds = {
        cli_name: [binary, "rate", csv_path, "--system", system, "--format", "csv"],
        f"Python: `League(\"{system}\").rate_files(FILE)` + `standings()`":
            [sys.executable, "-c", PY_RATE_FILES, csv_path, system],
        "Python: `rate_many(read_csv(FILE))` + `standings()`":
            [sys.executable, "-c", PY_READ_RATE, csv_path, system, "timed"],
        "Python: `rate_many(read_csv(FILE), at_once=False)` + `standings()`":
            [sys.executable, "-c", PY_READ_RATE, csv_path, system, "one-by-one"],
    }
    times = {k: [] for k in cmds}
    for _ in range(runs):
        for k, cmd in cmds.items():
            times[k].append(timed(cmd))
    peak = {k: peak_kib(cmd) for k, cmd in cmds.items()}
    cli = min(times[cli_name])
    print(f"{csv_path}, {system}, {runs} alternated runs each:\n")
    print("| command | best wall | median wall | ÷ binary (best) | peak RSS |")
    print("|---|---|---|---|---|")
    for k, v in times.items():
        print(f"| {k} | {min(v):.2f} s | {statistics.median(v):.2f} s | {min(v) / cli:.2f}× | {peak[k] / 1024:.0f} MiB |")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--podium", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--updates", type=int, default=300)
    ap.add_argument("--systems", default="kalman-mmr,sme",
                    help="comma-separated systems rating the file (default: the default system, then sme)")
    a = ap.parse_args()
    print(f"podium {podium.__version__}, CPython {platform.python_version()}, {platform.machine()}\n")
    per_update(a.runs, a.updates)
    for system in a.systems.split(","):
        whole_file(a.runs, a.csv, a.podium, system)


if __name__ == "__main__":
    main()
