#!/usr/bin/env bash
# Runs every command of the README's `sh` code blocks, in order, in a fresh clone of the
# repository (its committed HEAD, in a temporary directory, with no ../shared beside it)
# and fails when one exits non-zero or runs longer than the limit. The binary `podium`
# comes from the release build (`cargo build --release -p podium-cli`, put on PATH);
# `cargo` commands share this repository's target directory and have no time limit.
# A command ending in `&` runs in the background (a `podium serve` is waited for until it
# listens) and is stopped at the end. Skipped: `bash scripts/test.sh`, which .ci/run runs
# on its own, and `cargo install`, which would write to ~/.cargo.
# Usage: bash scripts/readme-commands.sh   (README_COMMAND_LIMIT=SECONDS, default 60)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
limit=${README_COMMAND_LIMIT:-60}
cd "$repo"
cargo build --release -q -p podium-cli || exit 1
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
export PATH="$target_dir/release:$PATH" CARGO_TARGET_DIR="$target_dir"

tmp=$(mktemp -d -t podium-readme.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
git clone -q "$repo" "$tmp/podium" || exit 1

# The commands: lines of ```sh blocks, continuation lines joined, comment lines dropped.
mapfile -t commands < <(awk '
  /^```sh/ { inside = 1; next }
  /^```/ { inside = 0; next }
  inside {
    line = $0
    if (pending != "") { line = pending " " line; pending = "" }
    if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; next }
    if (line ~ /^[ \t]*(#|$)/) next
    print line
  }' README.md)

cd "$tmp/podium"
set -a   # a variable a command sets (TOKEN=...) is seen by the ones after it
failed=0
count=0
for cmd in "${commands[@]}"; do
  case $cmd in
    "bash scripts/test.sh"* | "cargo install"*) echo "skip: $cmd" >&2; continue ;;
  esac
  count=$((count + 1))
  echo "\$ $cmd" >&2
  start=$(date +%s)
  if [[ $cmd =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then
    eval "$cmd"
    status=$?
  elif [[ $cmd =~ \&[[:space:]]*(#.*)?$ ]]; then
    background=${cmd%%&*}
    log="$tmp/background-$count.log"
    bash -c "exec $background" >"$log" 2>&1 &
    pids+=($!)
    status=0
    if [[ $background == "podium serve"* ]]; then
      status=1
      for _ in $(seq $((limit * 10))); do
        grep -q '^listening on ' "$log" && { status=0; break; }
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
      done
      [ "$status" = 0 ] || cat "$log" >&2
    fi
  elif [[ $cmd == cargo* ]]; then
    bash -c "$cmd" >/dev/null
    status=$?
  else
    timeout "$limit" bash -c "$cmd" >/dev/null
    status=$?
  fi
  took=$(($(date +%s) - start))
  if [ "$status" -ne 0 ]; then
    echo "readme-commands: FAILED (exit $status after ${took}s): $cmd" >&2
    failed=$((failed + 1))
  elif [ "$took" -ge 10 ]; then
    echo "  (${took}s)" >&2
  fi
done
echo "readme-commands: $count commands, $failed failed" >&2
[ "$failed" -eq 0 ]
