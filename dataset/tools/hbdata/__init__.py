"""HealBench dataset tooling (docs/dataset.md): `python3 -m hbdata` with PYTHONPATH=dataset/tools."""
from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
HEALRT_DIR = REPO_ROOT / "healrt"
