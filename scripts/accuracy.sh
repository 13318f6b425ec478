#!/usr/bin/env bash
# Writes docs/accuracy.md (and docs/img/simulation.svg): every podium system and the
# rating libraries people already use (openskill 6.2, trueskill 0.4.5, elo-mmr-py 2.0, each
# with its defaults) backtested side by side on the same real histories with the same
# metric, and the simulation of every podium system.
#
# The libraries run from scripts/reference/libraries.py in a virtual environment this
# script makes (target/accuracy/venv, packages from PyPI). They take about an hour on
# Codeforces on two cores, so their results are kept in target/accuracy/ under the
# checksum of the history and of libraries.py, a file per system, and reused while
# neither changes; `--fresh` runs them again. LIBRARY_TIME_LIMIT (seconds, default 1200) bounds each
# library system on each history: a system that runs out is reported on the matches it
# got through.
# Usage: bash scripts/accuracy.sh [--fresh]   (PODIUM_DATA=... for another data directory)
set -euo pipefail
cd "$(dirname "$0")/.."
fresh=no
[ "${1:-}" = "--fresh" ] && fresh=yes
cargo build --release -q -p podium-cli
podium=target/release/podium
data=${PODIUM_DATA:-../shared/data}
trials=${TRIALS:-10000}
limit=${LIBRARY_TIME_LIMIT:-1200}
out=docs/accuracy.md
cache=target/accuracy
venv=$cache/venv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/img "$cache"

if ! "$venv/bin/python" -c 'import openskill, trueskill, elo_mmr_py, numpy' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q numpy openskill==6.2.0 trueskill==0.4.5 elo-mmr-py==2.0.0
fi
default=$($podium rate --help | awk '/--system </ { s = 1 } s && /\[default:/ { gsub(/.*default: |\]/, ""); print; exit }')

# The library rows of one history: each library system's row is kept apart, so that
# the systems can run side by side (LIBRARY_JOBS, default 2) and a run that stops keeps
# what it finished; prints the path of all rows together.
run_library() { # directory, csv file, system
  local f="$1/${3/:/_}.csv"
  "$venv/bin/python" scripts/reference/libraries.py "$2" --systems "$3" --time-limit "$limit" >"$f.part"
  mv "$f.part" "$f"
}
libraries() { # name, csv file
  local key dir s
  key=$(cat "$2" scripts/reference/libraries.py | sha256sum | cut -c1-16)
  dir="$cache/$1-$key"
  mkdir -p "$dir"
  [ "$fresh" = yes ] && rm -f "$dir"/*.csv
  local all
  all=$("$venv/bin/python" -c 'import sys; sys.path.insert(0, "scripts/reference")
import libraries; print(" ".join(libraries.ALL_SYSTEMS))')
  local missing=()
  for s in $all; do [ -s "$dir/${s/:/_}.csv" ] || missing+=("$s"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "running ${#missing[@]} library systems on $1 (up to $limit s each)" >&2
    export -f run_library
    export venv limit
    printf '%s\n' "${missing[@]}" |
      xargs -P "${LIBRARY_JOBS:-2}" -I{} bash -c 'run_library "$@"' _ "$dir" "$2" {}
  fi
  {
    echo "dataset,library,system,accuracy_pct,log_loss,warm_pairs,seconds,matches,complete,failures"
    for s in $all; do tail -n +2 "$dir/${s/:/_}.csv"; done
  } >"$dir/all.csv.txt"
  echo "$dir/all.csv.txt"
}

# One history: podium's systems and the libraries' in one table, best accuracy first.
history() { # title, name, csv file
  local lib
  lib=$(libraries "$2" "$3")
  $podium backtest "$3" --systems all --format csv >"$tmp/$2.podium.csv"
  {
    echo
    echo "### $1"
    echo
    echo "\`podium backtest $2.csv --systems all --format csv\` and"
    echo "\`scripts/reference/libraries.py $2.csv\` (library results of $(date -u -r "$(ls -t "$(dirname "$lib")"/*.csv | head -1)" +%Y-%m-%d))."
    echo
    echo "| system | library | accuracy % | log loss | warm pairs | seconds |"
    echo "|---|---|---:|---:|---:|---:|"
    {
      awk -F, -v d="$default" 'NR > 1 { n = $1; if (n == d) n = "**" n "** (default)";
        printf "%.4f|%s|podium|%.2f|%.4f|%d|%.1f\n", $2, n, 100 * $2, $3, $4, $5 }' "$tmp/$2.podium.csv"
      awk -F, 'NR > 1 { m = ($9 == "yes") ? "" : " (" $8 " matches)";
        printf "%.4f|%s%s|%s|%.2f|%s|%d|%.1f\n", $4 / 100, $3, m, $2, $4, $5, $6, $7 }' "$lib"
    } | sort -t'|' -k1,1gr | cut -d'|' -f2- |
      awk -F'|' '{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; print "" }'
  } >>"$out"
  # The summary row: podium's default, podium's best, the best library (accuracy and
  # log loss), on complete runs only.
  awk -F, -v d="$default" -v t="$2" '
    FNR == 1 { f++; next }
    f == 1 { if ($1 == d) { da = 100 * $2; dl = $3 } if (100 * $2 > pa) { pa = 100 * $2; pn = $1 } }
    f == 2 && $9 == "yes" { if ($4 > la) { la = $4; ln = $2 " " $3 } if (ll == "" || $5 < ll) { ll = $5; lln = $2 " " $3 } }
    END { printf "| %s | %.2f / %.4f | %.2f (%s) | %.2f (%s) | %.4f (%s) | %+.3f |\n",
          t, da, dl, pa, pn, la, ln, ll, lln, da - la }' "$tmp/$2.podium.csv" "$lib" >>"$tmp/summary.md"
}

{
echo "# Accuracy of the rating systems"
echo
echo "Produced by \`bash scripts/accuracy.sh\` ($($podium --version), $(date -u +%Y-%m-%d))."
echo "Definitions: [evaluation lab](evaluation.md). Numbers are percentages unless said."
echo
echo "## Backtests on real histories, beside the other libraries"
echo
echo "Every match is replayed in order; before each update the system predicts every *warm"
echo "pair* (two players of different entries, at different places, who have both played"
echo "before): the higher-rated finishes ahead. Pair accuracy counts 1 per right pair and ½"
echo "per pair with exactly equal ratings; log loss is the mean of −ln p of each system's own"
echo "win probability for the pair's actual order. podium's systems replay side by side on"
echo "the machine's cores (\`seconds\` is each one's own replay time); the library systems run"
echo "two at a time (\`LIBRARY_JOBS\`), each with its own defaults (see \`scripts/reference/libraries.py\` for"
echo "how a match is given to each). A library system that ran out of its time budget is"
echo "shown with the matches it got through and left out of the summary."
} >"$out"

$podium import catan "$data/catan/games.txt" >"$tmp/catan.csv" 2>/dev/null
$podium import f1 "$data/f1" >"$tmp/f1.csv" 2>/dev/null
$podium import codeforces "$data/codeforces/standings" >"$tmp/codeforces.csv" 2>/dev/null
history "Catan (242 games of one friend group, 3–8 players)" catan "$tmp/catan.csv"
history "Formula 1 (1,143 races 1950–2025, finish = positionOrder)" f1 "$tmp/f1.csv"
history "Codeforces (613 contests, up to 4,989 contestants)" codeforces "$tmp/codeforces.csv"

{
echo
echo "### Summary"
echo
echo "podium's default (\`$default\`) against podium's best system and the best library"
echo "system by accuracy and by log loss on each history (\`margin\`: default minus best"
echo "library, in accuracy points):"
echo
echo "| history | default: accuracy / log loss | podium's best | best library | lowest library log loss | margin |"
echo "|---|---:|---:|---:|---:|---:|"
cat "$tmp/summary.md"
echo
awk -F'|' '{ gsub(/[ +]/, "", $7); m += $7; n++ } END { printf "Mean margin over the %d histories: %+.3f points.\n", n, m / n }' "$tmp/summary.md"
echo
echo "## Simulation"
echo
echo "Ten players with true ratings 1100, 1200, …, 2000; each round every player's game"
echo "score is drawn from Normal(true rating, 200) and the finishing order is the order of"
echo "the scores. Predictive ability: over the 45 pairs, how often the higher-rated player"
echo "outscores the other in a fresh game (equal ratings count ½); \`mean-score\` ranks the"
echo "players by their mean score so far, the bound a rating can reach from the same games."
echo "$trials trials, seed 1:"
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
           printf "| system |"; for (j = 1; j <= nr; j++) printf " %s |", rounds[j]; print ""
           printf "|---|"; for (j = 1; j <= nr; j++) printf "---:|"; print ""
           for (i = 1; i <= ns; i++) {
             printf "| %s |", names[i]
             for (j = 1; j <= nr; j++) printf " %.2f |", v[names[i], rounds[j]]
             print ""
           } }' "$tmp/sim.csv"
echo
sed 's/^/- /' "$tmp/sim.err"
echo
echo "![Predictive ability against rounds played](img/simulation.svg)"
echo
echo "### The default against the others and the mean-score bound"
echo
echo "Mean-score ranks players by the mean of their observed game scores, which a system"
echo "that reads only the finishing order cannot know; \`$default\` reads the scores' margins"
echo "when a match gives them."
echo
echo "| round | $default | best other system | mean-score | $default − mean-score |"
echo "|---:|---:|---:|---:|---:|"
awk -F, -v d="$default" '
  NR > 1 && $1 == d { k[$2] = 100 * $3; order[++n] = $2 }
  NR > 1 && $1 == "mean-score" { m[$2] = 100 * $3 }
  NR > 1 && $1 != d && $1 != "mean-score" && $1 != "ideal" {
    if (!($2 in best) || 100 * $3 > best[$2]) { best[$2] = 100 * $3; who[$2] = $1 } }
  END { for (i = 1; i <= n; i++) { r = order[i]
          printf "| %s | %.3f | %.3f (%s) | %.3f | %+.3f |\n", r, k[r], best[r], who[r], m[r], k[r] - m[r] } }' "$tmp/sim.csv"
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
} >>"$out"
echo "wrote $out"
