"""HealBench dataset tooling (docs/dataset.md): `python3 -m hbdata` with PYTHONPATH=dataset/tools."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parents[3]
HEALRT_DIR = REPO_ROOT / "healrt"


def healrt_module(name: str) -> ModuleType:
    """A module of healrt itself (never a twin of it); healrt is stdlib-only, so importable here."""
    if str(HEALRT_DIR) not in sys.path:
        sys.path.append(str(HEALRT_DIR))
    return importlib.import_module(f"healrt.{name}")
