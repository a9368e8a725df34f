"""Workspace copies: every path into the base moves to the copy; run products stay behind."""

from __future__ import annotations

from pathlib import Path

from guardeval.runner import copy_workspace


def test_a_copy_moves_the_plans_paths_and_leaves_run_products(tmp_path: Path) -> None:
    base = tmp_path / "ws"
    (base / "src" / "pkg" / "tmp").mkdir(parents=True)
    (base / "src" / "pkg" / "tmp" / "spec.json").write_text("{}")  # a subject's own file of that name
    (base / "basetemp").mkdir()
    (base / "outcome.json").write_text("{}")
    plan = {"source_dir": f"{base}/src", "target_test": f"{base}/tests/t.py::x",
            "pytest_args": [f"{base}/tests/t.py::x", "--rootdir", str(base), f"--basetemp={base}/basetemp"],
            "subject_root": f"{base}2/elsewhere", "python": "/usr/bin/python3"}
    copy = copy_workspace(base, plan, tmp_path / "copy")
    target = tmp_path / "copy"
    assert copy["source_dir"] == f"{target}/src" and copy["target_test"] == f"{target}/tests/t.py::x"
    assert copy["pytest_args"] == [f"{target}/tests/t.py::x", "--rootdir", str(target), f"--basetemp={target}/basetemp"]
    assert copy["subject_root"] == f"{base}2/elsewhere" and copy["python"] == "/usr/bin/python3"
    assert (target / "src" / "pkg" / "tmp" / "spec.json").is_file()
    assert not (target / "basetemp").exists() and not (target / "outcome.json").exists()
