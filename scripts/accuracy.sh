#!/usr/bin/env bash
# Writes docs/accuracy.md (and docs/img/simulation.svg): the simulation of seed 001 for
# every registered system, and backtests of every system on the real datasets in
# ../shared/data (Catan, Formula 1, Codeforces).
# Usage: bash scripts/accuracy.sh   (a release build; a few minutes on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p podium-cli
podium=target/release/podium
data=${PODIUM_DATA:-../shared/data}
trials=${TRIALS:-10000}
out=docs/accuracy.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/img

{
echo "# Accuracy of the rating systems"
echo
echo "Produced by \`bash scripts/accuracy.sh\` ($($podium --version), $(date -u +%Y-%m-%d))."
echo "Definitions: [evaluation lab](evaluation.md). Numbers are percentages."
echo
echo "## Simulation (seed 001, SPEC §4)"
echo
echo "Ten players with true ratings 1100, 1200, …, 2000; each round every player's game"
echo "score is drawn from Normal(true rating, 200) and the finishing order is the order of"
echo "the scores. Predictive ability: over the 45 pairs, how often the higher-rated player"
echo "outscores the other in a fresh game (equal ratings count ½). $trials trials, seed 1:"
echo
$podium simulate --systems all --trials "$trials" --seed 1 --format csv \
  --plot docs/img/simulation.svg >"$tmp/sim.csv" 2>"$tmp/sim.err"
echo "\`podium simulate --systems all --trials $trials --seed 1 --plot docs/img/simulation.svg\`"
echo
awk -F, 'NR > 1 {
           if (!($1 in seen)) { seen[$1] = 1; names[++ns] = $1 }
           if (!($2 in rseen)) { rseen[$2] = 1; rounds[++nr] = $2 }
           v[$1, $2] = 100 * $3 }
         END {
           printf "| round |"; for (i = 1; i <= ns; i++) printf " %s |", names[i]; print ""
           printf "|---:|"; for (i = 1; i <= ns; i++) printf "---:|"; print ""
           for (j = 1; j <= nr; j++) {
             printf "| %s |", rounds[j]
             for (i = 1; i <= ns; i++) printf " %.1f |", v[names[i], rounds[j]]
             print ""
           } }' "$tmp/sim.csv"
echo
sed 's/^/- /' "$tmp/sim.err"
echo
echo "![Predictive ability against rounds played](img/simulation.svg)"
echo
echo "### sme against seed 001's table"
echo
echo "| round | seed 001 | podium | difference |"
echo "|---:|---:|---:|---:|"
awk -F, 'BEGIN { split("1 2 3 4 5 10 20 1000", r, " "); split("62.3 72.5 77.3 79.2 80.3 82.2 83.3 83.9", s, " ");
               for (i = 1; i <= 8; i++) seed[r[i]] = s[i] }
         $1 == "sme" && ($2 in seed) { v = 100 * $3; printf "| %s | %.1f | %.2f | %+.2f |\n", $2, seed[$2], v, v - seed[$2] }
         $1 == "ideal" && $2 == 1 { ideal = 100 * $3 }
         END { printf "| ideal | 84.5 | %.2f | %+.2f |\n", ideal, ideal - 84.5 }' "$tmp/sim.csv"
echo
echo "### Two players"
echo
echo "\`elo\` rates two-entry matches only; with two players (true ratings 1400 and 1600, so"
echo "the stronger outscores the weaker in 76 % of games) every system runs:"
echo
echo '```'
echo "\$ podium simulate --systems all --true 1400,1600 --rounds 1,2,5,10,100 --trials $trials --seed 1"
$podium simulate --systems all --true 1400,1600 --rounds 1,2,5,10,100 --trials "$trials" --seed 1
echo '```'
echo
echo "## Backtests on real data (SPEC §5)"
echo
echo "Every match is replayed in order; before each update the system predicts every *warm"
echo "pair* (two players of different entries, at different places, who have both played"
echo "before): the higher-rated finishes ahead. Pair accuracy counts 1 per right pair and ½"
echo "per pair with exactly equal ratings; log loss is the mean of −ln p of each system's own"
echo "win probability for the pair's actual order. \`seconds\` is each system's own replay"
echo "time while the systems run in parallel on two cores."
} >"$out"

backtest() { # title, file
  {
    echo
    echo "### $1"
    echo
    echo '```'
    echo "\$ podium backtest $(basename "$2") --systems all"
    $podium backtest "$2" --systems all
    echo '```'
  } >>"$out"
}

pending() { # title, reason
  printf '\n### %s\n\nPending: %s\n' "$1" "$2" >>"$out"
}

if $podium import catan "$data/catan/games.txt" >"$tmp/catan.csv" 2>"$tmp/catan.err"; then
  backtest "Catan (242 games of one friend group, 3–8 players)" "$tmp/catan.csv"
else
  pending "Catan" "this build has no \`podium import catan\` ($(head -1 "$tmp/catan.err"))."
fi
if $podium import f1 "$data/f1" >"$tmp/f1.csv" 2>"$tmp/f1.err"; then
  backtest "Formula 1 (1,143 races 1950–2025, finish = positionOrder)" "$tmp/f1.csv"
else
  pending "Formula 1" "this build has no \`podium import f1\` ($(head -1 "$tmp/f1.err"))."
fi
$podium import codeforces "$data/codeforces/standings" >"$tmp/codeforces.csv" 2>/dev/null
backtest "Codeforces (613 contests, ids 1–655, up to 4,989 contestants)" "$tmp/codeforces.csv"
echo "wrote $out"
