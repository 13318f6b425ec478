#!/usr/bin/env bash
# Runs the real-data suite on the datasets in ../shared/data (beside the repository):
# the binary's, and the Python package's (the package against the binary on real data).
# Usage: bash scripts/test-real-data.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -p podium-cli --features real-data --test real_data
bash scripts/test-python.sh --real-data
