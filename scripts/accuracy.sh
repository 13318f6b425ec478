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
#
# With OUTSIDE_DATA=DIR it adds a section of histories from outside the repository: DIR
# holds their long CSVs and `histories.tsv`, tab-separated with a header line and one
# line per history: `file` (a CSV in DIR), `title`, `source` (Markdown), `systems`
# (podium's systems to run, `all` or a list) and `conversion` (Markdown: how a match and
# a player were read from the source). Library rows of
# `scripts/reference/libraries.py FILE --systems S`, if any, are read from
# DIR/libraries/NAME/*.csv (NAME: the file without `.csv`); the libraries are not run on
# these histories here.
#
# podium's backtests and simulations are kept too, in target/accuracy-podium/ under the checksum of the
# binary, the arguments and the history, and reused while none changes. `--no-libraries`
# runs no library system: the tables show the library rows already kept, if any.
# Usage: bash scripts/accuracy.sh [--fresh] [--no-libraries]   (PODIUM_DATA=... for another data directory)
set -euo pipefail
cd "$(dirname "$0")/.."
fresh=no
run_libraries=yes
for arg in "$@"; do
  case $arg in
    --fresh) fresh=yes ;;
    --no-libraries) run_libraries=no ;;
    *) echo "usage: bash scripts/accuracy.sh [--fresh] [--no-libraries]" >&2; exit 2 ;;
  esac
done
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
binary_key=$(sha256sum <"$podium" | cut -c1-16)
# `podium ARGS > OUT 2> OUT.err`, kept under the checksum of the binary, the arguments
# and the contents of the files among them (not their paths), and reused while none
# changes. An argument `@PLOT@` is a plot kept beside the output, at "$kept.svg".
kept() { # output file, podium arguments
  local out=$1 key a args=()
  shift
  key=$({
    echo "$binary_key"
    for a in "$@"; do if [ -f "$a" ]; then sha256sum <"$a"; else echo "$a"; fi; done
  } | sha256sum | cut -c1-16)
  kept=$cache-podium/$key
  for a in "$@"; do if [ "$a" = @PLOT@ ]; then args+=("$kept.svg"); else args+=("$a"); fi; done
  mkdir -p "$cache-podium"
  if [ "$fresh" = yes ] || [ ! -s "$kept.out" ]; then
    $podium "${args[@]}" >"$kept.part" 2>"$kept.err" </dev/null
    mv "$kept.part" "$kept.out"
  fi
  cp "$kept.out" "$out"
  cp "$kept.err" "$out.err"
}
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
  if [ ${#missing[@]} -gt 0 ] && [ "$run_libraries" = yes ]; then
    echo "running ${#missing[@]} library systems on $1 (up to $limit s each)" >&2
    export -f run_library
    export venv limit
    printf '%s\n' "${missing[@]}" |
      xargs -P "${LIBRARY_JOBS:-2}" -I{} bash -c 'run_library "$@"' _ "$dir" "$2" {}
  fi
  {
    echo "dataset,library,system,accuracy_pct,log_loss,warm_pairs,seconds,matches,complete,failures"
    for s in $all; do
      if [ -s "$dir/${s/:/_}.csv" ]; then tail -n +2 "$dir/${s/:/_}.csv"; fi
    done
  } >"$dir/all.csv.txt"
  echo "$dir/all.csv.txt"
}

# One history: podium's systems and the libraries' in one table, best accuracy first.
history() { # title, name, csv file
  local lib
  lib=$(libraries "$2" "$3")
  kept "$tmp/$2.podium.csv" backtest "$3" --systems all --format csv
  {
    echo
    echo "### $1"
    echo
    echo "\`podium backtest $2.csv --systems all --format csv\` and"
    local newest
    newest=$(ls -t "$(dirname "$lib")"/*.csv 2>/dev/null | head -1 || true)
    if [ -n "$newest" ]; then
      echo "\`scripts/reference/libraries.py $2.csv\` (library results of $(date -u -r "$newest" +%Y-%m-%d))."
    else
      echo "\`scripts/reference/libraries.py $2.csv\` (no library results kept: not run)."
    fi
    echo
    echo "| system | library | accuracy % | log loss | warm pairs | seconds |"
    echo "|---|---|---:|---:|---:|---:|"
    {
      awk -F, -v d="$default" 'NR > 1 { n = $1; if (n == d) n = "**" n "** (default)";
        printf "%.4f|%s|podium|%.2f|%.4f|%.0f|%.1f\n", $2, n, 100 * $2, $3, $4, $5 }' "$tmp/$2.podium.csv"
      awk -F, 'NR > 1 { m = ($9 == "yes") ? "" : " (" $8 " matches)";
        printf "%.4f|%s%s|%s|%.2f|%s|%.0f|%.1f\n", $4 / 100, $3, m, $2, $4, $5, $6, $7 }' "$lib"
    } | sort -t'|' -k1,1gr | cut -d'|' -f2- |
      awk -F'|' '{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; print "" }'
  } >>"$out"
  # The summary row: podium's default, podium's best, the best library (accuracy and
  # log loss), on complete runs only.
  # Whether podium's elo-mmr and elo-mmx equal elo-mmr-py's mmr and mmx here (2 decimals).
  awk -F, 'FNR == 1 { f++; next }
    f == 1 && $1 == "elo-mmr" { a = sprintf("%.2f", 100 * $2) }
    f == 1 && $1 == "elo-mmx" { x = sprintf("%.2f", 100 * $2) }
    f == 2 && $2 ~ /^elo-mmr-py/ && $3 == "mmr" && $9 == "yes" { b = sprintf("%.2f", $4) }
    f == 2 && $2 ~ /^elo-mmr-py/ && $3 == "mmx" && $9 == "yes" { y = sprintf("%.2f", $4) }
    END { print (a != "" && a == b && x != "" && x == y) ? "yes" : "no" }' \
    "$tmp/$2.podium.csv" "$lib" >>"$tmp/standins"
  awk -F, -v d="$default" -v t="$2" '
    FNR == 1 { f++; next }
    f == 1 { if ($1 == d) { da = 100 * $2; dl = $3 } if (100 * $2 > pa) { pa = 100 * $2; pn = $1 } }
    f == 2 && $9 == "yes" { if ($4 > la) { la = $4; ln = $2 " " $3 } if (ll == "" || $5 < ll) { ll = $5; lln = $2 " " $3 } }
    END { if (ln == "") { printf "| %s | %.2f / %.4f | %.2f (%s) | none | none | |\n", t, da, dl, pa, pn; exit }
          printf "| %s | %.2f / %.4f | %.2f (%s) | %.2f (%s) | %.4f (%s) | %+.3f |\n",
          t, da, dl, pa, pn, la, ln, ll, lln, da - la }' "$tmp/$2.podium.csv" "$lib" >>"$tmp/summary.md"
}

# A long CSV's size: matches, players, the share (%) of players of one match, and the
# mean and largest field (rows per match).
stats() { # csv file
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "match") m = i; if ($i == "player") p = i }; next }
    { if ($m != last) { matches++; last = $m }; rows[$m]++
      if (!(($m SUBSEP $p) in seen)) { seen[$m, $p] = 1; games[$p]++ } }
    END { for (x in games) { players++; if (games[x] == 1) once++ }
          for (x in rows) if (rows[x] > big) big = rows[x]
          printf "%d %d %.1f %.0f %d\n", matches, players, 100 * once / players, (NR - 1) / matches, big }' "$1"
}

# Thousands separated by commas.
commas() { printf "%s" "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }

# The histories of OUTSIDE_DATA (see the header): a description table, podium's systems
# and whatever library rows DIR/libraries holds, and the default's margin on each.
outside() {
  local dir=$OUTSIDE_DATA meta=$OUTSIDE_DATA/histories.tsv
  [ -s "$meta" ] || { echo "OUTSIDE_DATA: no $meta" >&2; exit 1; }
  : >"$tmp/outside-desc.md"
  : >"$tmp/outside-rows.md"
  : >"$tmp/outside-notes.md"
  local file title source systems conversion name m p once mean big
  while IFS=$'\t' read -r file title source systems conversion; do
    name=${file%.csv}
    echo "outside history $name" >&2
    read -r m p once mean big < <(stats "$dir/$file")
    local ran="every podium system"
    [ "$systems" = all ] || ran="podium's ${systems//,/, }"
    echo "- $title: ${conversion:+$conversion; }$ran." >>"$tmp/outside-notes.md"
    echo "| $title | $source | $(commas "$m") | $(commas "$p") | $once % | $(commas "$mean") / $(commas "$big") |" >>"$tmp/outside-desc.md"
    kept "$tmp/out-$name.csv" backtest "$dir/$file" --systems "$systems" --format csv
    {
      echo "dataset,library,system,accuracy_pct,log_loss,warm_pairs,seconds,matches,complete,failures"
      if [ -d "$dir/libraries/$name" ]; then
        for f in "$dir/libraries/$name"/*.csv; do tail -n +2 "$f"; done
      fi
    } >"$tmp/out-$name.lib.csv"
    # podium's elo-mmr and elo-mmx stand for elo-mmr-py's mmr and mmx where those did not
    # complete, when the two gave the same figures on every lab history.
    awk -F, -v d="$default" -v t="$title" -v standin="$(cat "$tmp/standin")" '
      FNR == 1 { f++; next }
      f == 1 { if ($1 == d) { da = 100 * $2; dl = $3; w = $4 }
               else if (100 * $2 > pa) { pa = 100 * $2; pn = $1 }
               if ($1 == "elo-mmr") em = 100 * $2; if ($1 == "elo-mmx") ex = 100 * $2 }
      f == 2 && $9 == "yes" { if ($4 > la) { la = $4; ln = $2 " " $3 }; done[$3] = 1 }
      END {
        if (standin == "yes") {
          if (!("mmr" in done) && em != "" && em > la) { la = em; ln = "elo-mmr-py mmr, by podium elo-mmr" }
          if (!("mmx" in done) && ex != "" && ex > la) { la = ex; ln = "elo-mmr-py mmx, by podium elo-mmx" } }
        lib = (ln == "") ? "none ran" : sprintf("%.2f (%s)", la, ln)
        mg = (ln == "") ? "" : sprintf("%+.2f", da - la)
        printf "| %s | %.0f | %.2f / %.4f | %.2f (%s) | %s | %s |\n", t, w, da, dl, pa, pn, lib, mg }' \
      "$tmp/out-$name.csv" "$tmp/out-$name.lib.csv" >>"$tmp/outside-rows.md"
  done < <(tail -n +2 "$meta")
  echo
  echo "## Histories beyond the lab's"
  echo
  echo "The defaults were set on the three histories above, except kalman-mmr's \`robust_field\`,"
  echo "which was found on Codeforces 761–1360 below ([defaults](defaults.md)). These are"
  echo "real histories from elsewhere, each converted to podium's long CSV (\`match\`, \`player\`,"
  echo "\`rank\`, and \`time\` where the source dates its matches) outside the repository and"
  echo "replayed from their first match. One-off players played one match of the history."
  echo "This section is written when \`OUTSIDE_DATA=DIR bash scripts/accuracy.sh\` names the"
  echo "directory of those files and their description (its layout: the script's header)."
  echo
  echo "| history | source | matches | players | one-off players | mean / largest field |"
  echo "|---|---|---:|---:|---:|---:|"
  cat "$tmp/outside-desc.md"
  echo
  cat "$tmp/outside-notes.md"
  echo
  echo "Each row: \`podium backtest FILE --systems SYSTEMS --format csv\` (the systems above) and,"
  echo "where they were run,"
  echo "\`scripts/reference/libraries.py FILE --systems S --time-limit T\` in the virtual"
  echo "environment this script makes, a system at a time (on the larger files they run out"
  echo "of any budget that fits here). Accuracy in %, then log loss; \`margin\`: the default"
  echo "minus the best library."
  if [ "$(cat "$tmp/standin")" = yes ]; then
    echo "podium's \`elo-mmr\` and \`elo-mmx\` give the same figures as elo-mmr-py's mmr and mmx"
    echo "on every history above, so where those did not complete they stand for them (named"
    echo "\`by podium elo-mmr\`); the libraries' other systems have no identical podium system."
  fi
  echo
  echo "| history | warm pairs | $default (default) | best other podium system | best library | margin |"
  echo "|---|---:|---:|---:|---:|---:|"
  cat "$tmp/outside-rows.md"
  echo
  awk -F'|' '$7 ~ /[0-9]/ { gsub(/ /, "", $7); l = l sep $7; sep = ", "; gsub(/\+/, "", $7); m += $7; n++ }
    END { if (n) printf "Mean margin over the %d with a library figure: %+.2f points (%s).\n", n, m / n, l }' \
    "$tmp/outside-rows.md"
} 

# The margins section: Catan and F1 imported with `--scores`, every system backtested with
# `--scores both` (each system that reads scores a second time on places only).
margins() {
  $podium import catan "$data/catan/games.txt" --scores >"$tmp/catan-scores.csv" 2>/dev/null
  $podium import f1 "$data/f1" --scores >"$tmp/f1-scores.csv" 2>/dev/null
  local h
  for h in catan f1; do
    kept "$tmp/$h-scores.bt.csv" backtest "$tmp/$h-scores.csv" --systems all --scores both --format csv
  done
  # One row: the default with scores, on places only, and the best of the others.
  row() { # title, backtest csv
    awk -F, -v d="$default" -v t="$1" '
      NR == 1 { next }
      $1 == d { s = sprintf("%.2f ± %.2f (log loss %.4f)", 100 * $2, 100 * $6, $3); w = $4; sa = 100 * $2; se = 100 * $6 }
      $1 == d " (ranks only)" { r = sprintf("%.2f ± %.2f (%.4f)", 100 * $2, 100 * $6, $3); ra = 100 * $2 }
      $1 != d && $1 != d " (ranks only)" && 100 * $2 > b { b = 100 * $2; bn = $1 }
      END { printf "| %s (%.0f warm pairs) | %s | %s | %s %.2f |\n", t, w, s, r, bn, b
            printf "%+.2f %.2f\n", sa - ra, se > "/dev/stderr" }' "$2"
  }
  row Catan "$tmp/catan-scores.bt.csv" 2>"$tmp/catan.diff" >"$tmp/margins.md"
  row F1 "$tmp/f1-scores.bt.csv" 2>"$tmp/f1.diff" >>"$tmp/margins.md"
  local cd cse fd
  read -r cd cse <"$tmp/catan.diff"
  read -r fd _ <"$tmp/f1.diff"
  echo
  echo "## With and without score margins"
  echo
  echo "\`podium import catan|f1\` writes places (\`rank\`); with \`--scores\` it writes Catan's"
  echo "victory points and F1's seconds behind the winner as scores instead, with the same places"
  echo "([datasets](datasets.md)). Codeforces standings have places only. \`podium backtest"
  echo "--scores both\` runs each system that reads scores ($default) a second time with every"
  echo "score replaced by its place (\`NAME (ranks only)\`); the other systems read the order only."
  echo "Accuracy ± its standard error:"
  echo
  echo "    podium import catan games.txt --scores > catan-scores.csv"
  echo "    podium import f1 DIR --scores > f1-scores.csv"
  echo "    podium backtest catan-scores.csv --systems all --scores both --format csv"
  echo "    podium backtest f1-scores.csv --systems all --scores both --format csv"
  echo
  echo "| history | $default with scores | $default ranks only | best other system |"
  echo "|---|---:|---:|---:|"
  cat "$tmp/margins.md"
  echo
  echo "Read with the margins, $default's accuracy changes by $cd points on Catan (a standard"
  echo "error is $cse) and by $fd on F1. In F1 the retirements, scored by their missing laps at the"
  echo "winner's lap time, lie hundreds or thousands of seconds behind, so the least-squares"
  echo "line of performance on score is set by who retired when, not by the race among the"
  echo "finishers. The importers write places unless asked."
} >>"$out"

{
echo "# Accuracy of the rating systems"
echo
echo "Produced by \`bash scripts/accuracy.sh\` ($($podium --version), $(date -u +%Y-%m-%d))."
echo "Definitions: [evaluation lab](evaluation.md). Numbers are percentages unless said."
if [ -z "${OUTSIDE_DATA:-}" ]; then
  echo "Histories from outside the repository are added as a section of their own by"
  echo "\`OUTSIDE_DATA=DIR bash scripts/accuracy.sh\` (the layout of DIR: the script's header)."
fi
} >"$out"
margins
{
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
echo "shown with the matches it got through and left out of the summary. \`ttt\` is"
echo "TrueSkill Through Time filtered forward: each match rated from the earlier ones only,"
echo "as every system here ([ttt.md](ttt.md)); its smoother, which also reads later matches,"
echo "cannot be backtested; a forecaster that smooths the past again every few matches can"
echo "([ttt.md](ttt.md#hindsight-forward): it gains on Codeforces only, and stays far below the default)."
} >>"$out"

$podium import catan "$data/catan/games.txt" >"$tmp/catan.csv" 2>/dev/null
$podium import f1 "$data/f1" >"$tmp/f1.csv" 2>/dev/null
$podium import codeforces "$data/codeforces/standings" >"$tmp/codeforces.csv" 2>/dev/null
sizes() { # csv file, what a match is, who plays: "N matches, up to M players"
  local m p once mean big
  read -r m p once mean big < <(stats "$1")
  echo "$(commas "$m") $2, up to $(commas "$big") $3"
}
history "Catan, one friend group ($(sizes "$tmp/catan.csv" games players))" catan "$tmp/catan.csv"
history "Formula 1, finish = positionOrder ($(sizes "$tmp/f1.csv" races drivers))" f1 "$tmp/f1.csv"
history "Codeforces ($(sizes "$tmp/codeforces.csv" contests contestants))" codeforces "$tmp/codeforces.csv"

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
awk -F'|' '$7 ~ /[0-9]/ { gsub(/[ +]/, "", $7); m += $7; n++ }
  END { if (n) printf "Mean margin over the %d histories: %+.3f points.\n", n, m / n }' "$tmp/summary.md"
} >>"$out"
if grep -q no "$tmp/standins"; then echo no; else echo yes; fi >"$tmp/standin"
if [ -n "${OUTSIDE_DATA:-}" ]; then
  outside >>"$out"
fi
{
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
kept "$tmp/sim.csv" simulate --systems all --trials "$trials" --seed 1 --format csv --plot @PLOT@
cp "$kept.svg" docs/img/simulation.svg
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
sed 's/^/- /' "$tmp/sim.csv.err"
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
kept "$tmp/two.txt" simulate --systems all --true 1400,1600 --rounds 1,2,5,10,100 --trials "$trials" --seed 1
cat "$tmp/two.txt"
echo '```'
} >>"$out"
echo "wrote $out"
