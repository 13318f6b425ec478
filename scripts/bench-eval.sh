#!/usr/bin/env bash
# Times the evaluation lab end to end (release build), for docs/benchmarks.md:
# 1. the full Codeforces backtest (613 contests, 648,010 results) of the linear-time
#    systems, accuracy only and with the exact log loss;
# 2. `podium simulate` of sme, 10,000 trials × 1,000 rounds.
# Usage: bash scripts/bench-eval.sh   (LINEAR=... overrides the list of linear-time systems)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p podium-cli
podium=target/release/podium
data=${PODIUM_DATA:-../shared/data}
linear=${LINEAR:-sme,whitewhale,proportional,mes}
threads=${THREADS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$podium import codeforces "$data/codeforces/standings" >"$tmp/cf.csv" 2>/dev/null
t() { /usr/bin/time -f '  -> %e s wall, %U s user, %M KB peak' "$@"; }
echo "## backtest, Codeforces, $linear, accuracy only, $threads threads"
t $podium backtest "$tmp/cf.csv" --systems "$linear" --no-log-loss --threads "$threads"
echo "## backtest, Codeforces, $linear, with exact log loss, $threads threads"
t $podium backtest "$tmp/cf.csv" --systems "$linear" --threads "$threads"
echo "## simulate, sme, 10,000 trials x 1,000 rounds, $threads threads"
t $podium simulate --systems sme --trials 10000 --rounds 1,2,3,4,5,10,20,100,1000 --threads "$threads"
