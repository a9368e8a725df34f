"""Shared fixtures: copies of the stdlib instances in tmp_path, a private cache, and a real-bug
instance of our own (fix patch and target test generated here from the pristine stdlib)."""
from __future__ import annotations

import difflib
import shutil
import sys
from pathlib import Path
from typing import Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hbdata import subjects  # noqa: E402  (needs the path above)
from hbdata.instances import DATASET_DIR  # noqa: E402

STDLIB = "cpython-stdlib@3.11.7"
STATISTICS = "stdlib-statistics-keyerror-sum"


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Validation records go to a fresh cache; the stdlib subjects need nothing fetched."""
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("HEALBENCH_CACHE", str(cache))
    return cache


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    (tmp_path / "dataset" / "instances").mkdir(parents=True)
    return tmp_path / "dataset"


@pytest.fixture
def copy_instance(dataset: Path) -> Callable[..., Path]:
    """copy_instance(name, edit=None, new_name=None): a copy of a committed instance, its
    instance.yaml optionally passed through `edit(text) -> text`."""
    def copy(name: str, edit: Callable[[str], str] | None = None, new_name: str | None = None) -> Path:
        target = dataset / "instances" / (new_name or name)
        shutil.copytree(DATASET_DIR / "instances" / name, target)
        yaml = target / "instance.yaml"
        text = yaml.read_text()
        if new_name:
            text = text.replace(f"id: {name}\n", f"id: {new_name}\n")
        yaml.write_text(edit(text) if edit else text)
        return target
    return copy


OWN_TEST = '''\
import colorsys


def test_none_channel_is_black():
    assert colorsys.rgb_to_hls(None, 0.0, 0.0) == (0.0, 0.0, 0.0)
'''


@pytest.fixture
def own_real_bug(dataset: Path) -> Path:
    """A real-bug-tier instance: the pristine colorsys.rgb_to_hls crashes on a None channel (our
    test), our fix patch treats None as 0.0. The crash line is looked up, not assumed."""
    root = subjects.resolve(STDLIB).root
    lines = (root / "colorsys.py").read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("def rgb_to_hls("))
    crash = next(i for i in range(start, len(lines)) if lines[i].strip() == "maxc = max(r, g, b)")
    fixed = lines[:crash] + ["    r = 0.0 if r is None else r\n"] + lines[crash:]
    directory = dataset / "instances" / "own-colorsys-none"
    directory.mkdir()
    (directory / "fix.patch").write_text(
        "".join(difflib.unified_diff(lines, fixed, "a/colorsys.py", "b/colorsys.py", n=1)))
    (directory / "test_own.py").write_text(OWN_TEST)
    (directory / "instance.yaml").write_text(f'''\
id: own-colorsys-none
subject: {STDLIB}
python: "3.11.7"
project_roots: [colorsys.py]
fix_patch: fix.patch
target_test: test_own.py::test_none_channel_is_black
target_test_origin: instance
expected_crash:
  type: TypeError
  file: colorsys.py
  function: rgb_to_hls
  line: {crash + 1}
policy: default
provenance:
  kind: real-bug
  issue: test-only
  fixed_in: "never"
  description: "a None channel reaches max() (made up for hbdata's tests)"
determinism:
  PYTHONHASHSEED: "0"
''')
    return directory
