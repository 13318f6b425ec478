#!/usr/bin/env bash
# Runs the whole test suite: unit, doc, property and integration tests of every crate,
# the end-to-end test of the web pages, and the Python package's suite.
# Every suite runs even when an earlier one fails; a summary at the end lists each
# suite with passed/FAILED and its time, and the script exits non-zero if any failed.
# What the suites install when missing (from Debian's packages with apt-get, which needs
# root; as another user, install them first: `sudo apt-get install postgresql chromium
# nodejs npm`): PostgreSQL for the league server's tests (scripts/with-postgres.sh starts
# a throwaway server for the run and stops it after), Chromium, Node.js and npm for the
# web pages (scripts/e2e.sh, which also fetches playwright-core with npm); the Python
# suite builds a virtual environment with maturin, pytest, pandas and mypy from PyPI
# (scripts/test-python.sh; needs python3 ≥ 3.9 with venv).
# The criterion benchmarks are compiled (clippy --all-targets in .ci/run) but not run
# here: their figures come from their own commands (docs/benchmarks.md), and one pass of
# the largest contests in a debug build takes minutes.
# Usage: bash scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."

names=()
results=()
times=()
failed=0

# Runs one suite: its name, then its command.
suite() {
  local name=$1 start end status
  shift
  echo "== $name: $*" >&2
  start=$(date +%s)
  "$@"
  status=$?
  end=$(date +%s)
  names+=("$name")
  times+=("$((end - start))")
  if [ "$status" -eq 0 ]; then
    results+=("passed")
  else
    results+=("FAILED (exit $status)")
    failed=1
  fi
}

suite "rust (lib, bins, tests, examples)" \
  bash scripts/with-postgres.sh cargo test --workspace --lib --bins --tests --examples
suite "rust doc tests" cargo test --workspace --doc
suite "web pages end to end" bash scripts/e2e.sh
suite "python package" bash scripts/test-python.sh

echo >&2
echo "summary:" >&2
for i in "${!names[@]}"; do
  printf '  %-36s %-18s %5ss\n' "${names[$i]}" "${results[$i]}" "${times[$i]}" >&2
done
if [ "$failed" -ne 0 ]; then
  echo "some suites failed" >&2
  exit 1
fi
echo "all suites passed" >&2
