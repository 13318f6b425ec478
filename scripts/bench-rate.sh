#!/usr/bin/env bash
# Benchmark: `podium rate` with sme, end to end from long CSV, on generated files of
# 250,000, 500,000 and 1,000,000 matches (2-10 players each, from a pool of players), and
# the last one with its match ids written backwards,
# against the time `awk -F,` takes merely to split the same file's fields, and against
# `rate_floor` (scripts/bench/rate-floor): the least work any program must
# do to give the same ratings (split, look players up, sme's arithmetic; no validation).
#
# Then, for each pool, every system of SYSTEMS on the 1,000,000-match file, the default
# system first, with the same timing.
#
# Usage: [SYSTEMS="..."] bash scripts/bench-rate.sh [RUNS] [POOLS]
#   RUNS     timed runs per command; the fastest is reported (default 3)
#   POOLS    sizes of the player pool, one table each (default "10000 50000")
#   SYSTEMS  systems timed on the 1,000,000-match file (default
#            "kalman-mmr sme trueskill elo-mmr"; empty: none)
# Files are generated once into ${BENCH_DIR:-/tmp/podium-bench} (about 130 MB for 1M
# matches) and reused; they are never part of the repository.
# Needs /usr/bin/time (GNU time) for peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
POOLS=${2:-10000 50000}
SYSTEMS=${SYSTEMS-kalman-mmr sme trueskill elo-mmr}
DIR=${BENCH_DIR:-/tmp/podium-bench}
mkdir -p "$DIR"

cargo build --release -q -p podium-cli --bin podium --example gen_matches
cargo build --release -q --manifest-path scripts/bench/rate-floor/Cargo.toml --target-dir target

# The CPU time a virtual machine's hypervisor gave to other guests (steal), from
# /proc/stat: on a busy host a two-core guest may get one core's worth, and podium's two
# threads then run one after the other while awk's one thread barely notices.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9 }' /proc/stat 2>/dev/null || echo "0 0"; }
read -r total0 steal0 <<<"$(cpu_ticks)"
PODIUM=target/release/podium
GEN=target/release/examples/gen_matches
FLOOR=target/release/rate-floor

# Prints "user+sys seconds, wall seconds, max RSS KB" of the fastest of $RUNS runs.
best() {
    local best_wall="" line
    for _ in $(seq "$RUNS"); do
        line=$(/usr/bin/time -f "%U %S %e %M" "$@" 2>&1 >/dev/null | tail -1)
        read -r u s e m <<<"$line"
        if [[ -z "$best_wall" ]] || awk -v a="$e" -v b="$best_wall" 'BEGIN{exit !(a<b)}'; then
            best_wall=$e
            best_line="$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}') $e $m"
        fi
    done
    echo "$best_line"
}

for PLAYERS in $POOLS; do
echo "pool of $PLAYERS players"
printf '%-18s %10s %8s | %-28s | %-20s | %-20s | %s\n' matches rows MB \
    "podium: cpu s / wall s / rows/s" "awk: cpu s / wall s" "floor: cpu s / wall s" "podium peak RSS"
for n in 250000 500000 1000000 1000000-backwards; do
    f="$DIR/matches-$n-$PLAYERS.csv"
    if [[ $n == *-backwards ]]; then
        # The same matches with every id written backwards (m123 -> 321m): ids that do
        # not rise, which the contiguity check pays for (docs/benchmarks.md).
        [[ -s "$f" ]] || awk -F, -v OFS=, 'NR == 1 { print; next }
            { r = ""; for (i = length($1); i > 0; i--) r = r substr($1, i, 1); $1 = r; print }' \
            "$DIR/matches-1000000-$PLAYERS.csv" >"$f"
    fi
    [[ -s "$f" ]] || "$GEN" "$f" "$n" "$PLAYERS" 1 2>/dev/null
    rows=$(($(wc -l <"$f") - 1))
    mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN{printf "%.0f", b/1e6}')
    read -r pc pw pm <<<"$(best "$PODIUM" rate "$f" --system sme --format csv)"
    read -r ac aw _ <<<"$(best awk -F, '{n+=NF} END{print n}' "$f")"
    read -r fc fw _ <<<"$(best "$FLOOR" "$f")"
    rps=$(awk -v r="$rows" -v w="$pw" 'BEGIN{printf "%.0f", r/w}')
    printf '%-18s %10s %8s | %6s / %6s / %10s    | %6s / %6s      | %6s / %6s      | %s MB\n' \
        "$n" "$rows" "$mb" "$pc" "$pw" "$rps" "$ac" "$aw" "$fc" "$fw" "$((pm / 1024))"
done
# The yardstick must give podium's ratings, or it proves nothing.
f="$DIR/matches-250000-$PLAYERS.csv"
"$PODIUM" rate "$f" --system sme --format csv >"$DIR/podium.csv"
"$FLOOR" "$f" >"$DIR/floor.csv"
awk -F, 'NR == FNR { r[$1] = $2; next }
    FNR > 1 { if (!($2 in r)) { print "floor lacks " $2; exit 1 }
              d = $3 - r[$2]; if (d < 0) d = -d; if (d > m) m = d; n++ }
    END { printf "floor and podium agree on %d players: largest rating difference %g\n", n, m }' \
    "$DIR/floor.csv" "$DIR/podium.csv"
if [[ -n "$SYSTEMS" ]]; then
    f="$DIR/matches-1000000-$PLAYERS.csv"
    printf '%-12s | %-20s | %10s | %s\n' system "cpu s / wall s" "rows/s" "peak RSS"
    rows=$(($(wc -l <"$f") - 1))
    for s in $SYSTEMS; do
        read -r pc pw pm <<<"$(best "$PODIUM" rate "$f" --system "$s" --format csv)"
        rps=$(awk -v r="$rows" -v w="$pw" 'BEGIN{printf "%.0f", r/w}')
        printf '%-12s | %6s / %6s      | %10s | %s MB\n' "$s" "$pc" "$pw" "$rps" "$((pm / 1024))"
    done
fi
done
read -r total1 steal1 <<<"$(cpu_ticks)"
steal=$(awk -v t=$((total1 - total0)) -v s=$((steal1 - steal0)) 'BEGIN { if (t > 0) printf "%.0f%%", 100 * s / t; else print "unknown" }')
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), steal during the run: $steal"
