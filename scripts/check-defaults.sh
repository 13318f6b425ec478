#!/usr/bin/env bash
# Checks every system's defaults by evidence: each setting below is backtested against
# the system's defaults on every history given (warm-pair accuracy, `podium backtest
# --no-log-loss`), and a markdown table says where the setting predicts better on every
# history (`better on all`), worse on every one (`worse on all`), the same on some and
# only better or only worse on the others (`better or equal on all`, `worse or equal on
# all`), the same on every one (`the same on all`), or better on some and worse on others
# (`mixed`).
# A default that loses on every history is changed, or its parameter says in `podium
# systems` why it stays (docs/defaults.md).
# Usage: bash scripts/check-defaults.sh HISTORY.csv...   (long CSV or JSON Lines files)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bash scripts/check-defaults.sh HISTORY.csv..." >&2; exit 2; }
cargo build --release -q -p podium-cli
podium=target/release/podium

# One setting per line: a system and the parameters it changes (the other values halve or
# double a default, flip a switch, or try the rule a system's source leaves open).
settings='
sme k=16
sme k=64
pairwise k=16
pairwise k=64
pairwise per_opponent=true
shares k=16
shares k=64
shares winner_takes_all=true
whitewhale k=25
whitewhale k=100
proportional k=8
proportional k=32
mes k=8
mes k=32
mes provisional_games=0
mes seed_median=true
plackett-luce beta=2.0833
plackett-luce beta=8.3333
plackett-luce tau=0
plackett-luce tau=0.3333
plackett-luce daily_tau=0
plackett-luce daily_tau=0.3333
bradley-terry-full beta=2.0833
bradley-terry-full beta=8.3333
bradley-terry-full tau=0
bradley-terry-full tau=0.3333
bradley-terry-full daily_tau=0
bradley-terry-full daily_tau=0.3333
bradley-terry-part beta=2.0833
bradley-terry-part beta=8.3333
bradley-terry-part tau=0
bradley-terry-part tau=0.3333
bradley-terry-part daily_tau=0
bradley-terry-part daily_tau=0.3333
bradley-terry-part window_size=2
bradley-terry-part window_size=8
thurstone-mosteller-full beta=2.0833
thurstone-mosteller-full beta=8.3333
thurstone-mosteller-full tau=0
thurstone-mosteller-full tau=0.3333
thurstone-mosteller-full daily_tau=0
thurstone-mosteller-full daily_tau=0.3333
thurstone-mosteller-part beta=2.0833
thurstone-mosteller-part beta=8.3333
thurstone-mosteller-part tau=0
thurstone-mosteller-part tau=0.3333
thurstone-mosteller-part daily_tau=0
thurstone-mosteller-part daily_tau=0.3333
thurstone-mosteller-part window_size=2
thurstone-mosteller-part window_size=8
trueskill beta=2.0833
trueskill beta=8.3333
trueskill tau=0
trueskill tau=0.3333
trueskill daily_tau=0
trueskill daily_tau=0.3333
trueskill draw_probability=0.1
elo-mmr weight_limit=0.1
elo-mmr weight_limit=0.4
elo-mmr sig_limit=40
elo-mmr sig_limit=160
elo-mmr split_ties=true
elo-mmr transfer_speed=0.5
elo-mmr transfer_speed=2
elo-mmx weight_limit=0.1
elo-mmx weight_limit=0.4
elo-mmx sig_limit=40
elo-mmx sig_limit=160
glicko c=0
glicko c=17.5
glicko c=35
glicko c=70
glicko rd_per_day=5
glicko2 tau=0.3
glicko2 tau=1.2
glicko2 volatility=0.03
glicko2 volatility=0.12
glicko2 max_volatility=0.05
glicko2 max_volatility=0.2
glicko2 rd_per_day=5
kalman-mmr switch_z=3
kalman-mmr field_noise=2
kalman-mmr field_noise=8
kalman-mmr jump=35
kalman-mmr jump=140
kalman-mmr clip=0.5
kalman-mmr clip=2
kalman-mmr reversion=0
kalman-mmr reversion=2
kalman-mmr prior_forgetting=0.998
kalman-mmr prior_forgetting=0.9995
kalman-mmr robust_field=8
kalman-mmr robust_field=32
'

# Accuracy (%) of a system with settings on every file, space-separated; "n/a" where the
# system cannot rate a file.
accuracies() { # system, settings...
  local system=$1 f row out=""
  shift
  local args=()
  for kv in "$@"; do args+=(--set "$kv"); done
  for f in "${files[@]}"; do
    row=$($podium backtest "$f" --systems "$system" --format csv --no-log-loss \
      ${args[@]+"${args[@]}"} 2>/dev/null | awk -F, -v s="$system" '$1 == s { print $2 }')
    if [ -n "$row" ]; then out="$out $(awk -v a="$row" 'BEGIN { printf "%.2f", 100 * a }')"; else out="$out n/a"; fi
  done
  echo "$out"
}
# One line of the work list ("N system settings..." or "N system" for its defaults):
# "N<TAB>system<TAB>settings<TAB>accuracies".
one() {
  local n=$1 system=$2
  shift 2
  printf '%s\t%s\t%s\t%s\n' "$n" "$system" "$*" "$(accuracies "$system" "$@")"
}
export -f accuracies one
export podium
files=("$@")
FILES=$(printf '%s\n' "$@")
export FILES

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The work list: each system's defaults first, then every setting, numbered in order.
{
  grep -v '^$' <<<"$settings" | awk '!seen[$1]++ { print $1 }'
  grep -v '^$' <<<"$settings"
} | awk '{ print NR " " $0 }' >"$tmp/work"
# Runs JOBS (default: the cores) backtests side by side.
xargs -P "${JOBS:-$(nproc)}" -L 1 bash -c 'mapfile -t files <<<"$FILES"; one "$@"' _ <"$tmp/work" |
  sort -n -k1,1 >"$tmp/rows"

names=()
for f in "$@"; do names+=("$(basename "${f%.*}")"); done
header="| system | setting |"
rule="|---|---|"
for n in "${names[@]}"; do header="$header $n |"; rule="$rule---:|"; done
echo "$header verdict |"
echo "$rule---|"
awk -F'\t' '
  $3 == "" { base[$2] = $4; next }
  { rows[++n] = $0 }
  END {
    for (r = 1; r <= n; r++) {
      split(rows[r], f, "\t")
      if (!(f[2] in shown)) {
        shown[f[2]] = 1
        k = split(base[f[2]], b, " "); cells = ""
        for (i = 1; i <= k; i++) cells = cells " " b[i] " |"
        printf "| %s | defaults |%s |\n", f[2], cells
      }
      k = split(base[f[2]], b, " "); split(f[4], g, " ")
      better = 0; worse = 0; cells = ""
      for (i = 1; i <= k; i++) {
        cells = cells " " g[i] " |"
        if (b[i] == "n/a" || g[i] == "n/a") continue
        if (g[i] + 0 > b[i] + 0) better++; else if (g[i] + 0 < b[i] + 0) worse++
      }
      v = (better == 0 && worse == 0) ? "the same on all" : \
        (better == k) ? "**better on all**" : (worse == k) ? "worse on all" : \
        (better > 0 && worse == 0) ? "better or equal on all" : \
        (worse > 0 && better == 0) ? "worse or equal on all" : "mixed"
      printf "| %s | %s |%s %s |\n", f[2], f[3], cells, v
    }
  }' "$tmp/rows"
