"""Shared helpers of the Python suite: where the repository and the `podium` binary are,
and how to read what the binary prints."""

import csv
import io
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
CATAN = ROOT.parent / "shared" / "data" / "catan" / "games.txt"


def podium_bin() -> str:
    """The `podium` binary: $PODIUM_BIN, else the workspace's debug or release build."""
    given = os.environ.get("PODIUM_BIN")
    if given:
        return given
    for profile in ("debug", "release"):
        path = ROOT / "target" / profile / "podium"
        if path.exists():
            return str(path)
    raise RuntimeError("no podium binary: build it with `cargo build -p podium-cli` or set PODIUM_BIN")


def cli(*args: str) -> str:
    """Runs `podium ARGS` and returns its standard output; fails the test on an error."""
    done = subprocess.run([podium_bin(), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"podium {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def cli_csv(*args: str) -> list:
    """The rows (dicts) of what `podium ARGS` prints as CSV."""
    return list(csv.DictReader(io.StringIO(cli(*args))))


def number(text: str):
    """A number as the binary prints it, or None for an empty field."""
    return None if text == "" else float(text)


@pytest.fixture(scope="session")
def catan_csv(tmp_path_factory):
    """The Catan log converted by `podium import catan` (skips when the data is absent)."""
    if not CATAN.exists():
        pytest.skip(f"real data not found at {CATAN}")
    out = tmp_path_factory.mktemp("catan") / "catan.csv"
    out.write_text(cli("import", "catan", str(CATAN)))
    return out
