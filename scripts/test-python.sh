#!/usr/bin/env bash
# Tests the Python package (crates/podium-py): builds its wheel with maturin into a fresh
# virtual environment, installs it with what the suite needs (maturin, pytest, pandas,
# mypy, from the package registry), checks the type stubs against the module (mypy's
# stubtest) and runs the pytest suite, which compares the package with the `podium`
# binary. The environment and the wheel live in a temporary directory that
# is removed at the end.
# Usage: bash scripts/test-python.sh [--real-data]
#   --real-data   run only the tests on the datasets in ../shared/data
#                 (scripts/test-real-data.sh does); without it, every other test.
# PYTHON names the interpreter to build the environment with (default python3, ≥ 3.9).
set -euo pipefail
cd "$(dirname "$0")/.."
marker="not real_data"
if [[ ${1:-} == --real-data ]]; then
  marker="real_data"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${PYTHON:-python3}" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "maturin>=1.9.4,<2" pytest pandas mypy
cargo build -q -p podium-cli
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
"$tmp/venv/bin/maturin" build --release --quiet -m crates/podium-py/Cargo.toml -o "$tmp/wheels"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "$tmp"/wheels/*.whl
cd crates/podium-py
if [[ $marker != real_data ]]; then
  # From elsewhere, so that mypy reads the installed package's stubs, not this folder's.
  allowlist="$PWD/stubtest-allowlist.txt"
  (cd "$tmp" && "$tmp/venv/bin/python" -m mypy.stubtest podium --allowlist "$allowlist")
fi
PODIUM_BIN="$target_dir/debug/podium" "$tmp/venv/bin/python" -m pytest -q -m "$marker" -p no:cacheprovider tests
