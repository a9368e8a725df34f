"""Which healrt the suite tests: the nox sessions install the package into a fresh environment and
set HEALRT_TESTS_INSTALLED=1; then every import of healrt, here and in the runs the tests start,
must be the installed package, not the source tree next to the tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import healrt
from helpers import HEALRT_ROOT

SOURCE = Path(__file__).resolve().parents[1]


def test_the_tests_and_their_runs_import_the_same_healrt() -> None:
    imported = Path(healrt.__file__).resolve().parent
    assert imported.parent == HEALRT_ROOT
    run = subprocess.run([sys.executable, "-c", "import healrt; print(healrt.__file__)"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(HEALRT_ROOT)}, cwd=HEALRT_ROOT, timeout=60)
    assert Path(run.stdout.strip()).resolve().parent == imported, run.stderr
    if os.environ.get("HEALRT_TESTS_INSTALLED") == "1":
        assert imported.is_relative_to(Path(sys.prefix).resolve()), f"{imported} is not installed in {sys.prefix}"
        assert imported != SOURCE / "healrt", f"{imported} is the source tree"
        for data in ("healcore_policy.json", "default_policy.yaml"):
            assert (imported / data).is_file(), f"package data {data} is not installed"
