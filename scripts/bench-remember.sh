#!/usr/bin/env bash
# Elo-MMR on the whole Codeforces history (613 contests, 648,010 results, 70,938 players),
# side by side in one run, for docs/benchmarks.md ("Systems that remember"):
# 1. elo-mmr-py 2.0.0 `Rater("mmr")` rating every contest (`rate_latest`, contests built
#    beforehand and not timed);
# 2. podium's `backtest --systems elo-mmr`, without and with the log loss;
# 3. podium's `rate --system elo-mmr` (the leaderboard of every player: peak memory).
# Creates target/elo-mmr-venv with elo-mmr-py when missing (VENV=... to use another).
# Usage: bash scripts/bench-remember.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p podium-cli
podium=target/release/podium
data=${PODIUM_DATA:-../shared/data}
venv=${VENV:-target/elo-mmr-venv}
if ! "$venv/bin/python" -c 'import elo_mmr_py' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q elo-mmr-py==2.0.0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$podium import codeforces "$data/codeforces/standings" >"$tmp/cf.csv" 2>/dev/null
t() { /usr/bin/time -f '  -> %e s wall, %U s user, %S s sys, %M KB peak' "$@"; }
echo "## load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## elo-mmr-py, rate_latest(contests, \"mmr\")"
t "$venv/bin/python" scripts/bench/elo_mmr_python.py "$tmp/cf.csv" mmr
echo "## podium backtest, elo-mmr, accuracy only"
t $podium backtest "$tmp/cf.csv" --systems elo-mmr --no-log-loss
echo "## podium backtest, elo-mmr, with the exact log loss"
t $podium backtest "$tmp/cf.csv" --systems elo-mmr
echo "## podium rate, elo-mmr, every player's rating"
t $podium rate "$tmp/cf.csv" --system elo-mmr --format csv >/dev/null
echo "## load average: $(cut -d' ' -f1-3 /proc/loadavg)"
