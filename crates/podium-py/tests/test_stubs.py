"""The type stubs (podium.pyi) accept what the module takes: `mypy --strict` over
stubs_check/uses.py, against the installed package, as a user's code would be checked."""

import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("mypy")
pytest.importorskip("numpy")

USES = pathlib.Path(__file__).parent / "stubs_check" / "uses.py"


def test_the_stubs_accept_what_the_module_takes(tmp_path):
    # From elsewhere, so that mypy reads the installed package's stubs, not this folder's.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path),
         str(USES)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
