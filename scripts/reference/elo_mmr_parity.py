#!/usr/bin/env python3
"""Rate Catan, Formula 1 and Codeforces with elo-mmr-py and compare with podium's elo-mmr.

For each history, converted to long CSV by `podium import`, this replays the contests in
podium's order with elo-mmr-py 2.0.0's `Rater("mmr")` (ties as `(name, lo, hi)` ranks,
dates as `time_seconds` where the file has them) and prints:

- the warm-pair accuracy of podium's backtest (crates/podium-eval/src/backtest.rs): before
  each contest, every pair of participants at different places who both played an earlier
  contest of the file; 1 if the higher-rated finished ahead, 1/2 if the ratings are equal;
- the time elo-mmr-py takes to rate the whole history (`rate_latest`, alone);
- with `--compare`: podium's accuracy and time (`podium backtest --system elo-mmr`) and the
  largest |Δμ| over the players with 5 or more contests (`podium rate`);
- with `--ratings FILE`: each player's final μ, σ and contests (CSV).

Ratings are `PlayerRating.mu` (the float mean) unless `--rounded` (the integer `.rating`).

    python3 scripts/reference/elo_mmr_parity.py --compare       # creates target/elo-mmr-venv

The script creates a virtual environment (default `target/elo-mmr-venv`) and installs
`elo-mmr-py==2.0.0` into it when it is not there, then runs itself inside it. It needs the
podium binary (`cargo build --release -p podium-cli`; `--podium PATH` to use another) and
the data in `../shared/data` (`--data DIR`).
"""
import argparse
import csv
import datetime
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = "elo-mmr-py==2.0.0"
HISTORIES = {
    "catan": ["catan", "catan/games.txt"],
    "f1": ["f1", "f1"],
    "codeforces": ["codeforces", "codeforces/standings"],
}


def ensure_venv(venv):
    """Re-runs this script inside `venv`, creating it and installing elo-mmr-py first."""
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    if not os.path.exists(python):
        print(f"creating {venv} with {PACKAGE}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    probe = subprocess.run([python, "-c", "import elo_mmr_py"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "-q", PACKAGE], check=True)
    os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


def seconds(text):
    """Unix seconds of a `YYYY-MM-DD` or RFC 3339 time."""
    if len(text) == 10:
        d = datetime.date.fromisoformat(text)
        return int(datetime.datetime(d.year, d.month, d.day, tzinfo=datetime.timezone.utc).timestamp())
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def read_matches(path):
    """The matches of a long CSV from `podium import`, in podium's rating order (stable by
    time when the file has times): a list of (id, time or None, [(player, rank)])."""
    matches = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t = seconds(row["time"]) if row.get("time") else None
            if not matches or matches[-1][0] != row["match"]:
                matches.append((row["match"], t, []))
            matches[-1][2].append((row["player"], float(row["rank"])))
    if all(m[1] is not None for m in matches):
        matches.sort(key=lambda m: m[1])
    return matches


def standings(players):
    """(name, lo, hi) with 0-based places; tied players share lo..hi; best first."""
    players = sorted(players, key=lambda p: p[1])
    out, i = [], 0
    while i < len(players):
        j = i
        while j < len(players) and players[j][1] == players[i][1]:
            j += 1
        out.extend((name, i, j - 1) for name, _ in players[i:j])
        i = j
    return out


def pair_counts(warm):
    """(concordant, tied, discordant) over the pairs of `warm` = [(place, rating)] at
    different places, in O(n log n) with a Fenwick tree over the ratings."""
    values = sorted({r for _, r in warm})
    index = {v: k + 1 for k, v in enumerate(values)}
    tree = [0] * (len(values) + 1)

    def add(k):
        while k < len(tree):
            tree[k] += 1
            k += k & -k

    def upto(k):
        s = 0
        while k > 0:
            s += tree[k]
            k -= k & -k
        return s

    warm = sorted(warm)
    conc = tied = disc = 0
    ahead = 0
    i = 0
    while i < len(warm):
        j = i
        while j < len(warm) and warm[j][0] == warm[i][0]:
            j += 1
        for _, r in warm[i:j]:
            k = index[r]
            below, level = upto(k - 1), upto(k) - upto(k - 1)
            disc += below  # someone ahead was rated lower
            tied += level
            conc += ahead - below - level
        for _, r in warm[i:j]:
            add(index[r])
        ahead += j - i
        i = j
    return conc, tied, disc


def reference(matches, rounded):
    """elo-mmr-py on the history: accuracy counts, final ratings, and the time of a plain
    `rate_latest` over all contests."""
    from elo_mmr_py import Contest, Rater, rate_latest

    # elo-mmr-py takes non-negative times; only differences matter (idle days), so the
    # times count from the first contest (F1 starts in 1950).
    origin = min((t for _, t, _ in matches if t is not None), default=0)
    contests = [
        Contest(standings=standings(players), name=mid, time_seconds=t - origin if t is not None else 0)
        for mid, t, players in matches
    ]
    start = time.perf_counter()
    rate_latest(contests, "mmr")
    seconds_taken = time.perf_counter() - start

    rater = Rater("mmr")
    seen = set()
    conc = tied = disc = 0
    for contest, (_, _, players) in zip(contests, matches):
        names = [p for p, _ in players]
        if any(p in seen for p in names):
            ratings = rater.ratings
            warm = []
            for name, lo, _ in contest.standings:
                if name in seen:
                    r = ratings.get(name)
                    # A player seen only in contests where everyone tied is unrated.
                    value = (r.rating if rounded else r.mu) if r else (1500 if rounded else 1500.0)
                    warm.append((lo, value))
            c, t, d = pair_counts(warm)
            conc, tied, disc = conc + c, tied + t, disc + d
        rater.add(contest)
        seen.update(names)
    return (conc, tied, disc), rater.ratings, seconds_taken


def podium_side(podium, csv_path):
    """podium's elo-mmr backtest (accuracy, warm pairs, seconds) and final ratings."""
    out = subprocess.run(
        [podium, "backtest", csv_path, "--systems", "elo-mmr", "--no-log-loss", "--format", "csv"],
        check=True, capture_output=True, text=True,
    ).stdout
    row = next(csv.DictReader(out.splitlines()))
    board = subprocess.run(
        [podium, "rate", csv_path, "--system", "elo-mmr", "--format", "csv"],
        check=True, capture_output=True, text=True,
    ).stdout
    ratings = {r["player"]: (float(r["rating"]), int(r["games"])) for r in csv.DictReader(board.splitlines())}
    return float(row["pair_accuracy"]), int(row["warm_pairs"]), float(row["seconds"]), ratings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venv", default=os.path.join(ROOT, "target", "elo-mmr-venv"))
    ap.add_argument("--podium", default=os.path.join(ROOT, "target", "release", "podium"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--histories", default="catan,f1,codeforces")
    ap.add_argument("--rounded", action="store_true", help="use the rounded .rating, not .mu")
    ap.add_argument("--compare", action="store_true", help="also run podium and compare")
    ap.add_argument("--ratings", metavar="DIR", help="write DIR/<history>.csv: player,mu,sig,contests")
    args = ap.parse_args()
    ensure_venv(os.path.abspath(args.venv))
    import importlib.metadata

    print(f"elo-mmr-py {importlib.metadata.version('elo-mmr-py')}, Python {sys.version.split()[0]}\n")
    header = "| history | warm pairs | elo-mmr-py | time (s)"
    if args.compare:
        header += " | podium | Δ (points) | time (s) | max abs Δμ, ≥ 5 contests |"
    else:
        header += " |"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.histories.split(","):
            kind, source = HISTORIES[name]
            path = os.path.join(tmp, f"{name}.csv")
            with open(path, "w") as f:
                subprocess.run([args.podium, "import", kind, os.path.join(args.data, source)],
                               stdout=f, stderr=subprocess.DEVNULL, check=True)
            matches = read_matches(path)
            (conc, tied, disc), final, secs = reference(matches, args.rounded)
            pairs = conc + tied + disc
            acc = (conc + 0.5 * tied) / pairs
            row = f"| {name} | {pairs:,} | {100 * acc:.2f} % | {secs:.1f}"
            if args.ratings:
                os.makedirs(args.ratings, exist_ok=True)
                with open(os.path.join(args.ratings, f"{name}.csv"), "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(["player", "mu", "sig", "contests"])
                    for p in sorted(final):
                        r = final[p]
                        w.writerow([p, repr(r.mu), repr(r.sig), r.contests_played])
            if args.compare:
                pacc, ppairs, psecs, pratings = podium_side(args.podium, path)
                assert ppairs == pairs, f"{name}: podium counts {ppairs} warm pairs, the script {pairs}"
                gap = max(
                    (abs(pratings[p][0] - r.mu) for p, r in final.items() if r.contests_played >= 5),
                    default=0.0,
                )
                row += f" | {100 * pacc:.2f} % | {100 * (pacc - acc):+.3f} | {psecs:.1f} | {gap:.2e} |"
            else:
                row += " |"
            rows.append(row)
            print(f"{name}: accuracy {100 * acc:.4f} % over {pairs} warm pairs; "
                  f"{len(final)} players; rated in {secs:.2f} s", file=sys.stderr)
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
