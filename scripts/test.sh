#!/usr/bin/env bash
# Runs the whole test suite: unit, doc, property and integration tests of every crate,
# the end-to-end test of the web pages, and the Python package's suite.
# The league server's tests need PostgreSQL: scripts/with-postgres.sh installs it when
# missing (Debian's package), starts a throwaway server for the run and stops it after.
# Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/with-postgres.sh cargo test --workspace --all-targets
cargo test --workspace --doc
bash scripts/e2e.sh
bash scripts/test-python.sh
