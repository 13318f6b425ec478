#!/usr/bin/env bash
# Benchmark of the league server on PostgreSQL (docs/benchmarks.md, "League server"):
# starts a throwaway PostgreSQL server (scripts/with-postgres.sh), two `podium serve`
# (release build) on one database, and runs the benchmark example against them:
# acknowledged submissions per second spread over both; then the leaderboard and the
# correction benchmarks with their ledgers in scratch databases of the same server.
# Usage: bash scripts/bench-server-postgres.sh [bench options, e.g. --clients 32 --matches 20000]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--inside" ]; then
  cargo build --release -q -p podium-cli --bin podium
  cargo build --release -q -p podium-server --example bench
  exec bash scripts/with-postgres.sh bash "$0" --inside "$@"
fi
shift
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
podium="$target_dir/release/podium"
bench="$target_dir/release/examples/bench"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

bases=()
for name in a b; do
  RUST_LOG=warn "$podium" serve --db "$PODIUM_TEST_POSTGRES" --addr 127.0.0.1:0 --instance "$name" \
    >"$tmp/$name.out" 2>"$tmp/$name.log" &
  pids+=("$!")
  for _ in $(seq 300); do
    grep -qs '^listening on ' "$tmp/$name.out" && break
    sleep 0.1
  done
  base=$(sed -n 's/^listening on //p' "$tmp/$name.out")
  [ -n "$base" ] || { echo "bench: server $name did not start" >&2; cat "$tmp/$name.log" >&2; exit 1; }
  bases+=("${base%/}")
done
echo "two servers on one PostgreSQL database: ${bases[*]}"
"$bench" --what submit --targets "${bases[0]},${bases[1]}" "$@"
"$bench" --what board,correct --db "$PODIUM_TEST_POSTGRES" "$@"
