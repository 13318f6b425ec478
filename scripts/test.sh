#!/usr/bin/env bash
# Runs the whole test suite: unit, doc, property and integration tests of every crate,
# the end-to-end test of the web pages, and the Python package's suite.
# Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
cargo test --workspace --doc
bash scripts/e2e.sh
bash scripts/test-python.sh
