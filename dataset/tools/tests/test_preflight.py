"""hbdata.preflight: the real command as a subprocess (a machine where nothing can be installed, a
ready one, a bad command line), real interpreters without pytest, and real subject fetches.

Nothing here installs anything: every run sets HEALBENCH_NO_INSTALL=1 or --no-install. The "ready"
tests need the machine prepared by `preflight --for tests` (deploy/local/test-all.sh runs it first).
The fetch tests reach the Debian mirror (a few seconds, like test_subjects.py's).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hbdata import preflight, subjects
from hbdata.__main__ import main
from hbdata.instances import DATASET_DIR, load_instance

TOOLS_DIR = Path(__file__).resolve().parents[1]
STATISTICS = "stdlib-statistics-keyerror-sum"          # cpython-stdlib@3.11.7: nothing to fetch
TOOLZ_INSTANCE = "toolz-itertoolz-typeerror-partition-all"  # debian-source:toolz@0.12.0 on 3.11.2


def run_preflight(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(TOOLS_DIR), "HEALBENCH_NO_INSTALL": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "hbdata", "preflight", *args], env=environment,
                          capture_output=True, text=True, timeout=600)


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


# --- a machine where nothing can be installed --------------------------------------------------

@pytest.mark.parametrize("env, flags, reason", [
    ({}, [], "HEALBENCH_NO_INSTALL=1"),
    ({"HEALBENCH_NO_INSTALL": "0"}, ["--no-install"], "--no-install was given"),
    ({"HEALBENCH_NO_INSTALL": "0"}, [], "no apt-get on PATH"),      # allowed, but apt-get is nowhere
])
def test_missing_tools_that_cannot_be_installed_fail_with_the_command(
        tmp_path: Path, env: dict[str, str], flags: list[str], reason: str) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    done = run_preflight("--instances", STATISTICS, "--runs-dir", str(tmp_path / "runs"), "--json", *flags,
                         env={"PATH": str(empty), "HEALBENCH_TOOL_PATH": str(empty), **env})
    assert done.returncode == 3, done.stderr
    assert "bubblewrap" in done.stderr
    assert "preflight: missing bubblewrap (bwrap): install it with: apt-get install bubblewrap" in done.stderr
    assert "apt-get install patch" in done.stderr and "util-linux (prlimit)" in done.stderr
    assert reason in done.stderr
    assert "preflight: installed" not in done.stderr
    report = last_json(done.stdout)
    assert report["ready"] is False and report["installed"] == []
    assert {"what": "bubblewrap (bwrap)", "provides": "apt-get install bubblewrap"} in report["missing"]
    # The interpreter and its pytest were found: only the four tools are missing.
    assert sorted(m["what"] for m in report["missing"]) == [
        "bubblewrap (bwrap)", "patch", "util-linux (prlimit)", "util-linux (setpriv)"]
    assert report["interpreters"] == ["3.11.7"] and report["subjects"] == 1


def test_install_is_forbidden_by_any_setting_but_empty_or_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    for allowed in ("", "0"):
        monkeypatch.setenv("HEALBENCH_NO_INSTALL", allowed)
        assert preflight.install_blockers(False) == []
    monkeypatch.setenv("HEALBENCH_NO_INSTALL", "yes")
    assert preflight.install_blockers(False) == ["HEALBENCH_NO_INSTALL=yes"]
    monkeypatch.delenv("HEALBENCH_NO_INSTALL")
    assert preflight.install_blockers(True) == ["--no-install was given"]


# --- a ready machine ---------------------------------------------------------------------------

def test_ready_for_a_stdlib_instance_is_quiet_and_says_so_in_json(tmp_path: Path) -> None:
    runs = tmp_path / "runs" / "nested"
    done = run_preflight("--instances", STATISTICS, "--runs-dir", str(runs), "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    report = last_json(done.stdout)
    assert report["ready"] is True and report["missing"] == [] and report["installed"] == []
    assert report["subjects"] == 1 and report["interpreters"] == ["3.11.7"]
    assert isinstance(report["seconds"], float)
    assert runs.is_dir()                                  # the runs directory is created

    # Without --json nothing at all is printed; the second run reuses the remembered probe.
    again = run_preflight("--instances", STATISTICS, "--runs-dir", str(runs))
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")


def test_ready_for_the_tests_checks_every_supported_interpreter(tmp_path: Path) -> None:
    done = run_preflight("--for", "tests", "--runs-dir", str(tmp_path / "runs"), "--json")
    assert done.returncode == 0, done.stderr
    report = last_json(done.stdout)
    assert report["ready"] is True and report["subjects"] == 0
    assert sorted(report["interpreters"]) == sorted([*subjects.PYENV_VERSIONS, subjects.DEBIAN_PYTHON_VERSION])


def test_unwritable_runs_directory_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = run_preflight("--instances", STATISTICS, "--runs-dir", str(blocker / "runs"), "--json")
    assert done.returncode == 3
    assert f"missing a writable runs directory ({blocker / 'runs'}: Not a directory)" in done.stderr
    assert "--runs-dir DIR" in done.stderr
    assert [m["what"].split(" (")[0] for m in last_json(done.stdout)["missing"]] == ["a writable runs directory"]


# --- the command line --------------------------------------------------------------------------

def test_unknown_instance_id_is_a_usage_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preflight", "--instances", f"{STATISTICS},no-such-instance", "--no-install"]) == 2
    err = capsys.readouterr().err
    assert "unknown instance id: no-such-instance" in err
    assert STATISTICS not in err.split("unknown")[1]

    # The same through the real entry point, with two unknown ids given as separate options.
    done = run_preflight("--instances", "nope-1", "--instances", "nope-2")
    assert done.returncode == 2 and "unknown instance ids: nope-1, nope-2" in done.stderr


def test_bad_purpose_is_a_usage_error() -> None:
    done = run_preflight("--for", "everything")
    assert done.returncode == 2 and "--for" in done.stderr


# --- interpreters without pytest ---------------------------------------------------------------

def pyenv_python() -> Path:
    return subjects.interpreter("3.11.7")


def test_an_interpreter_without_pytest_is_reported_with_the_wheelhouse_command(tmp_path: Path) -> None:
    subprocess.run([str(pyenv_python()), "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    problem = preflight.pytest_missing(python, "3.11.7")
    assert problem is not None
    assert problem.what == f"pytest for Python 3.11.7 ({python})"
    assert problem.provides == (f"{python} -m pip install --quiet --disable-pip-version-check "
                                "--no-warn-script-location --index-url file:///opt/pypi/simple "
                                "--extra-index-url file:///opt/pypi-more/simple pytest")
    assert problem.fix == preflight.Fix("wheelhouse", str(python), "pytest for 3.11.7")
    assert problem.message().startswith(f"preflight: missing pytest for Python 3.11.7 ({python}): install it with: ")
    # The real interpreter has it.
    assert preflight.pytest_missing(pyenv_python(), "3.11.7") is None


def test_a_broken_pytest_is_reported_with_its_error(tmp_path: Path) -> None:
    subprocess.run([str(pyenv_python()), "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    site = next((tmp_path / "venv" / "lib").glob("python3.*/site-packages"))
    (site / "pytest.py").write_text("raise RuntimeError('half installed')\n")
    problem = preflight.pytest_missing(tmp_path / "venv" / "bin" / "python", "3.11.7")
    assert problem is not None and "RuntimeError: half installed" in problem.what


def test_the_wheelhouse_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEALBENCH_WHEELHOUSE", "file:///srv/one file:///srv/two")
    command = preflight.pip_install_command(Path("/p/bin/python"), "pytest")
    assert command[-5:] == ["--index-url", "file:///srv/one", "--extra-index-url", "file:///srv/two", "pytest"]


def test_a_remembered_probe_is_dropped_when_the_interpreter_changes(tmp_path: Path) -> None:
    """The memo that keeps a no-op preflight fast: a venv seeing the pyenv's pytest probes fine and
    is remembered; a package added to its site-packages invalidates it, and the probe sees it."""
    venv = tmp_path / "venv"
    subprocess.run([str(pyenv_python()), "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / "bin" / "python"
    found = preflight.probe(python, "3.11.7")
    assert found.error is None and found.pytest_error is None, found
    memo = preflight.ProbeMemo(tmp_path / "memo.json")
    memo.put(found)
    memo.save()
    assert preflight.ProbeMemo(tmp_path / "memo.json").get(python, "3.11.7") == found
    assert preflight.ProbeMemo(tmp_path / "memo.json").get(python, "3.12.1") is None

    time.sleep(0.05)                                     # a new mtime even on coarse clocks
    site = next((venv / "lib").glob("python3.*/site-packages"))
    (site / "pytest.py").write_text("raise ImportError('shadowed')\n")
    assert preflight.ProbeMemo(tmp_path / "memo.json").get(python, "3.11.7") is None
    assert "ImportError: shadowed" in (preflight.probe(python, "3.11.7").pytest_error or "")
    memo.put(preflight.probe(python, "3.11.7"))          # failures are never remembered
    assert memo.entries[str(python)]["signature"] != preflight._signature(python, found.path)


def test_installed_line_groups_by_source() -> None:
    assert preflight.installed_line(["bubblewrap (apt)", "python3-pytest (apt)",
                                     "pytest for 3.12.1 (wheelhouse)", "pytest for 3.13.0 (wheelhouse)"]) == (
        "preflight: installed bubblewrap, python3-pytest (apt); pytest for 3.12.1, 3.13.0 (wheelhouse)")


def test_the_requirements_are_one_list_covering_both_purposes() -> None:
    names = [r.name for r in preflight.REQUIREMENTS]
    assert len(names) == len(set(names))
    for purpose in preflight.PURPOSES:
        assert {"bwrap", "patch", "prlimit", "setpriv", "pytest"} <= {
            r.name for r in preflight.REQUIREMENTS if purpose in r.purposes}
    assert [r.name for r in preflight.REQUIREMENTS if r.purposes == ("run",)] == ["subjects"]
    assert [r.name for r in preflight.REQUIREMENTS if r.purposes == ("tests",)] == ["nox", "stdlib tests", "chromium"]


# --- subjects ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fetch_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One private cache for the fetch tests, so apt-get update runs once."""
    return tmp_path_factory.mktemp("preflight-fetch-cache")


def test_subjects_are_fetched_once_with_progress_then_quietly(fetch_cache: Path, tmp_path: Path) -> None:
    args = ("--instances", f"{TOOLZ_INSTANCE},{STATISTICS}", "--runs-dir", str(tmp_path / "runs"), "--json")
    first = run_preflight(*args, env={"HEALBENCH_CACHE": str(fetch_cache)})
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0] == "preflight: subject 1/2 cpython-stdlib@3.11.7 ... cached"
    assert lines[1].startswith("preflight: subject 2/2 debian-source:toolz@0.12.0 ... fetched in ")
    assert lines[1].endswith(" s") and len(lines) == 2
    entry = fetch_cache / "subjects" / "debian-source" / "toolz-0.12.0"
    assert (entry / subjects.MARKER).is_file() and (entry / "source" / "toolz" / "itertoolz.py").is_file()
    report = last_json(first.stdout)
    assert report["ready"] is True and report["subjects"] == 2 and report["interpreters"] == ["3.11.2", "3.11.7"]

    second = run_preflight(*args, env={"HEALBENCH_CACHE": str(fetch_cache)})
    assert (second.returncode, second.stderr) == (0, "")


def test_a_fetch_failure_names_the_subject_and_the_error(fetch_cache: Path, copy_instance,
                                                         monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HEALBENCH_CACHE", str(fetch_cache))
    monkeypatch.setenv("HEALBENCH_NO_INSTALL", "1")
    wrong = copy_instance(TOOLZ_INSTANCE, lambda text: text.replace("toolz@0.12.0", "toolz@0.11.0"))
    result = preflight.check("run", [load_instance(wrong)], tmp_path / "runs")
    assert not result.ready
    [problem] = result.missing
    assert problem.what.startswith("subject debian-source:toolz@0.11.0 (fetch failed: ")
    assert "declared version 0.11.0, but Debian bookworm has 0.12.0" in problem.what
    assert problem.provides == "python3 -m hbdata fetch --subject debian-source:toolz@0.11.0"
    err = capsys.readouterr().err
    assert "preflight: subject 1/1 debian-source:toolz@0.11.0 ... failed" in err
    assert "preflight: missing subject debian-source:toolz@0.11.0 (fetch failed: " in err


def test_the_whole_dataset_is_the_default_slice() -> None:
    context = preflight.Context("run", preflight.select(None), DATASET_DIR.parent / "runs")
    assert len(context.instances) == len(list((DATASET_DIR / "instances").glob("*/instance.yaml")))
    assert set(context.versions) == {i.python for i in context.instances}
    assert context.subjects == sorted({i.subject for i in context.instances})
    for spec in context.subjects:
        assert context.config(spec) == subjects.config_for(spec)
