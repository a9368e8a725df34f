"""Smoke test of the overhead benchmark: `--quick` runs and its last line has the promised keys.

Performance is measured (by the benchmark), not asserted here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

TOOLS_DIR = Path(__file__).resolve().parents[2]
KEYS = ("overhead_ratio", "overhead_ratio_full", "overhead_ratio_replay", "crash_to_context_ms_p50",
        "probe_roundtrip_ms_p50", "probe_inplace_roundtrip_ms_p50", "suites", "code_cache")


def test_quick_benchmark_reports_every_figure() -> None:
    # The benchmark as documented, `python3 -m overhead`: it measures stdlib suites, which
    # Debian's interpreter does not ship.
    python3 = shutil.which("python3")
    assert python3, "python3 must be on PATH"
    env = {**os.environ, "PYTHONPATH": str(TOOLS_DIR)}
    run = subprocess.run([python3, "-m", "overhead", "--quick"], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert all(key in result for key in KEYS), result
    assert result["suites"], result
    for figures in result["suites"].values():
        assert figures["ratio_full"] > 0 and figures["ratio_replay"] > 0
    assert result["code_cache"]["ratio_warm"] > 0 and result["code_cache"]["ratio_changed_first"] > 0
