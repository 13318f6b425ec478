#!/usr/bin/env bash
# Benchmark of `podium frags` on a large generated Quake 3 log, against `grep -c Kill:`.
# Usage: bash scripts/bench-frags.sh [SIZE_MB=600] [COPIES=50]
# The log is generated in /tmp (never committed) from the real logs in ../shared/data/quake3:
# their games concatenated again and again, each copy with renamed players.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-600}
COPIES=${2:-50}
DATA=${PODIUM_DATA:-$(cd .. && pwd)/shared/data}
[ -d "$DATA" ] || DATA=$(cd ../.. && pwd)/shared/data
LOG=/tmp/podium-frags-bench-${SIZE}mb-${COPIES}.log
cargo build --release -q -p podium-cli --bin podium --example gen_quake_log
if [ ! -f "$LOG" ]; then
  target/release/examples/gen_quake_log "$LOG" "$SIZE" "$COPIES" \
    "$DATA/quake3/qgames.log" "$DATA/quake3/osp_ffa_match.log"
fi
BYTES=$(stat -c %s "$LOG")
echo "log: $LOG ($BYTES bytes, $(grep -c '' "$LOG") lines)"
cat "$LOG" > /dev/null # warm the page cache

measure() { # label, command...: best wall time of 3 runs, that run's CPU time and peak RSS
  local label=$1; shift
  local best=999999 rss=0 cpu=0
  for _ in 1 2 3; do
    /usr/bin/time -v -o /tmp/podium-bench-time.txt "$@" > /tmp/podium-bench-out.txt 2> /tmp/podium-bench-err.txt
    local t r c
    t=$(grep 'Elapsed (wall clock)' /tmp/podium-bench-time.txt | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    r=$(grep 'Maximum resident' /tmp/podium-bench-time.txt | awk '{print $NF}')
    c=$(grep -E '(User|System) time' /tmp/podium-bench-time.txt | awk '{s+=$NF} END{print s}')
    if awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$r; cpu=$c; fi
  done
  local mbs
  mbs=$(awk "BEGIN{printf \"%.0f\", $BYTES/1e6/$best}")
  printf '| %s | %.2f s | %.2f s | %s MB/s | %.1f MB |\n' "$label" "$best" "$cpu" "$mbs" "$(awk "BEGIN{print $rss/1024}")"
  LAST_TIME=$best
  LAST_CPU=$cpu
}

echo "| command | wall time (best of 3) | CPU time (user+sys) | throughput | peak RSS |"
echo "|---|---|---|---|---|"
measure "grep -c Kill:" grep -c Kill: "$LOG"
GREP_TIME=$LAST_TIME
GREP_CPU=$LAST_CPU
echo "  (grep counted $(cat /tmp/podium-bench-out.txt) Kill lines)" >&2
measure "podium frags" target/release/podium frags "$LOG" --format csv
FRAGS_TIME=$LAST_TIME
FRAGS_CPU=$LAST_CPU
head -1 /tmp/podium-bench-err.txt >&2
echo "  ($(($(wc -l < /tmp/podium-bench-out.txt) - 1)) players ranked)" >&2
measure "podium frags --static" target/release/podium frags "$LOG" --static --format csv
awk "BEGIN{printf \"podium frags / grep: %.2fx wall time, %.2fx CPU time\\n\", $FRAGS_TIME/$GREP_TIME, $FRAGS_CPU/$GREP_CPU}"
