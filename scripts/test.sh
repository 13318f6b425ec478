#!/usr/bin/env bash
# Runs the whole test suite: unit, doc, property and integration tests of every crate,
# the end-to-end test of the web pages, and the Python package's suite.
# The league server's tests need PostgreSQL: scripts/with-postgres.sh installs it when
# missing (Debian's package), starts a throwaway server for the run and stops it after.
# The criterion benchmarks are compiled (clippy --all-targets in .ci/run) but not run
# here: their figures come from their own commands (docs/benchmarks.md), and one pass of
# the largest contests in a debug build takes minutes.
# Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/with-postgres.sh cargo test --workspace --lib --bins --tests --examples
cargo test --workspace --doc
bash scripts/e2e.sh
bash scripts/test-python.sh
