#!/usr/bin/env bash
# Benchmark of the Python package (crates/podium-py); figures in docs/benchmarks.md.
#   1. per update: 100-player free-for-alls rated with plackett-luce through the Python
#      API, against openskill 6.2.0 on the same matches;
#   2. a 1,000,000-match long CSV (gen_matches: 10,000 players, seed 1) rated from Python
#      by the default system (kalman-mmr) and sme (SYSTEMS=a,b for others),
#      against `podium rate FILE --system S --format csv`.
# Installs what it needs into a temporary virtual environment (maturin, openskill 6.2.0),
# builds the wheel and the binary in release mode, and removes the environment at the
# end. The CSV is generated once into ${BENCH_DIR:-/tmp/podium-bench} and reused (about
# 130 MB; never part of the repository). Needs /usr/bin/time (GNU time) for peak memory.
# Usage: bash scripts/bench-python.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
DIR=${BENCH_DIR:-/tmp/podium-bench}
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${PYTHON:-python3}" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "maturin>=1.9.4,<2" "openskill==6.2.0"
cargo build --release -q -p podium-cli --bin podium --example gen_matches
"$tmp/venv/bin/maturin" build --release --quiet -m crates/podium-py/Cargo.toml -o "$tmp/wheels"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "$tmp"/wheels/*.whl
csv="$DIR/matches-1000000-10000.csv"
[[ -s "$csv" ]] || target/release/examples/gen_matches "$csv" 1000000 10000 1
"$tmp/venv/bin/python" scripts/bench/python_api.py --csv "$csv" --podium target/release/podium --runs "$RUNS" --systems "${SYSTEMS:-kalman-mmr,sme}"
