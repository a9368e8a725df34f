"""hbdata.subjects and hbdata.debian: subject strings, interpreters, the catalog, and real fetches.

The debian-source test fetches toolz from the Debian mirror into a private cache (a few seconds;
the mirror is reachable here); git is only exercised up to a failing clone (no network for it).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hbdata import debian, subjects
from hbdata.subjects import FetchError, SubjectError

TOOLS_DIR = Path(__file__).resolve().parents[1]
TOOLZ = "debian-source:toolz@0.12.0"


# --- subject strings ---------------------------------------------------------------------------

@pytest.mark.parametrize("spec, expected", [
    ("cpython-stdlib@3.12.1", ("cpython-stdlib", "cpython-stdlib", "3.12.1", None)),
    ("debian-source:python-toml@0.10.2", ("debian-source", "python-toml", "0.10.2", None)),
    ("debian-package:python3-tornado@6.2.0", ("debian-package", "python3-tornado", "6.2.0", None)),
    ("git:https://example.org/a/repo.git@0123abc", ("git", "repo", "0123abc", "https://example.org/a/repo.git")),
    # the URL itself holds an '@': the commit is after the last one
    ("git:git@example.org:a/tool@89abcdef", ("git", "tool", "89abcdef", "git@example.org:a/tool")),
    ("local:/srv/code/proj", ("local", "proj", None, "/srv/code/proj")),
])
def test_parse_subject(spec: str, expected: tuple) -> None:
    parsed = subjects.parse_subject(spec)
    assert (parsed.kind, parsed.name, parsed.version, parsed.location) == expected


@pytest.mark.parametrize("spec, problem", [
    ("toolz", "no kind"),
    ("pypi:toolz@0.12.0", "unknown kind 'pypi'"),
    ("cpython-stdlib@3.12", "'3.12' is not a Python version"),
    ("debian-source:toolz", "no @<version>"),
    ("debian-source:toolz@", "'' is not an upstream version"),
    ("debian-source:Toolz@0.12.0", "'Toolz' is not a Debian package name"),
    ("debian-package:python3-six@1.16.0-4", "'1.16.0-4' is not an upstream version"),
    ("git:https://example.org/repo.git", "no @<commit>"),
    ("git:https://example.org/repo.git@main", "'main' is not a commit hash"),
    ("local:", "empty path"),
])
def test_parse_subject_errors(spec: str, problem: str) -> None:
    with pytest.raises(SubjectError) as error:
        subjects.parse_subject(spec)
    assert problem in str(error.value)
    assert repr(spec) in str(error.value) and "expected one of" in str(error.value)


@pytest.mark.parametrize("debian_version, upstream", [
    ("0.12.0-1", "0.12.0"), ("3.1.2-1+deb12u3", "3.1.2"), ("1:1.8.6-3", "1.8.6"),
    ("0.13.0-1.1~deb12u1", "0.13.0"), ("2.1.2-1+b1", "2.1.2"), ("4.2+dfsg-1", "4.2"),
    ("3.0+ds1-2", "3.0"), ("1.0", "1.0"),
])
def test_upstream_version(debian_version: str, upstream: str) -> None:
    assert debian.upstream_version(debian_version) == upstream


# --- interpreters ------------------------------------------------------------------------------

def test_interpreter_pyenv_version_is_checked_by_running_it() -> None:
    python = subjects.interpreter("3.12.1")
    assert python.name == "python" and python.parent.parent.name == "3.12.1"
    done = subprocess.run([str(python), "-c", "import sys; print(sys.version_info[:2])"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "(3, 12)"


def test_interpreter_mismatch_names_both_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pretend Debian's python3 is the pyenv 3.13.0 binary: the declared 3.11.2 must be refused.
    monkeypatch.setattr(subjects, "DEBIAN_PYTHON", subjects.interpreter("3.13.0"))
    with pytest.raises(SubjectError, match=r"is Python 3\.13\.0, not the declared 3\.11\.2"):
        subjects.interpreter("3.11.2")


def test_interpreter_unsupported_version() -> None:
    with pytest.raises(SubjectError, match=r"python '3\.10\.13': supported are 3\.11\.2"):
        subjects.interpreter("3.10.13")


# --- the catalog -------------------------------------------------------------------------------

def test_every_catalog_entry_loads_and_names_its_policy() -> None:
    entries = sorted(subjects.SUBJECTS_DIR.glob("*.yaml"))
    assert len(entries) >= 12
    codebases = set()
    for path in entries:
        config = subjects.load_config(path)
        assert config.policy == config.codebase, path
        codebases.add(config.codebase)
    assert len(codebases - {"cpython-stdlib"}) >= 11


def test_config_for_by_name_and_by_subject_string() -> None:
    by_name = subjects.config_for("toolz")
    assert by_name is not None and by_name.subject == TOOLZ and by_name.python == "3.11.2"
    assert subjects.config_for(TOOLZ) == by_name
    assert subjects.config_for("no-such-subject") is None
    assert subjects.config_for("debian-source:toolz@0.11.0") is None


CONFIG = """\
subject: debian-source:toolz@0.12.0
codebase: toolz
python: "3.11.2"
project_roots: [toolz]
test_paths: [toolz/tests]
policy: toolz
"""


@pytest.mark.parametrize("edit, problem", [
    (lambda t: t + "colour: blue\n", "colour: unknown field"),
    (lambda t: t.replace("codebase: toolz\n", ""), "codebase: missing"),
    (lambda t: t.replace("test_paths: [toolz/tests]", "test_paths: toolz/tests"), "test_paths: must be a list"),
    (lambda t: t.replace('"3.11.2"', '"3.12.1"'), "python: Debian packages are built for 3.11.2"),
    (lambda t: t.replace("debian-source:toolz@0.12.0", "cpython-stdlib@3.12.1"), "cannot test the stdlib of 3.12.1"),
    (lambda t: t.replace("@0.12.0", ""), "subject: subject 'debian-source:toolz': no @<version>"),
    (lambda t: t + "deps: [../../etc]\n", "deps: '../../etc' is not a Debian binary package name"),
    (lambda t: t.replace("policy: toolz", "policy: nonexistent"), "policy: no "),
])
def test_malformed_catalog_entry_names_file_and_field(tmp_path: Path, edit, problem: str) -> None:
    path = tmp_path / "toolz.yaml"
    path.write_text(edit(CONFIG))
    with pytest.raises(SubjectError) as error:
        subjects.config_for("toolz", tmp_path)
    assert str(error.value).startswith(f"{path}: ") and problem in str(error.value)


def test_defaults_and_duplicate_subjects(tmp_path: Path) -> None:
    (tmp_path / "toolz.yaml").write_text(CONFIG)
    config = subjects.config_for(TOOLZ, tmp_path)
    assert config is not None and config.deps == [] and config.deselect == [] and config.pytest_args == []
    (tmp_path / "toolz-again.yaml").write_text(CONFIG)
    with pytest.raises(SubjectError, match="more than one catalog entry"):
        subjects.config_for(TOOLZ, tmp_path)


# --- resolving without a fetch -----------------------------------------------------------------

def test_resolve_stdlib_needs_no_fetch(private_cache: Path) -> None:
    subject = subjects.resolve("cpython-stdlib@3.12.1")
    prefix = subjects.interpreter("3.12.1").parent.parent
    assert subject.root == prefix / "lib" / "python3.12" and (subject.root / "textwrap.py").is_file()
    assert subject.config is not None and subject.config.codebase == "cpython-stdlib"
    assert subject.readable == [subject.root, prefix]
    assert not (private_cache / "subjects").exists()


def test_resolve_unknown_name() -> None:
    with pytest.raises(SubjectError, match="no subject named 'nope'"):
        subjects.resolve("nope")


def test_resolve_local(tmp_path: Path) -> None:
    subject = subjects.resolve(f"local:{tmp_path}")
    assert (subject.kind, subject.root, subject.version, subject.pythonpath) == ("local", tmp_path, None, [])
    with pytest.raises(FetchError, match="is not a directory"):
        subjects.resolve(f"local:{tmp_path / 'missing'}")


def test_git_clone_failure_is_a_fetch_error_and_leaves_nothing(private_cache: Path, tmp_path: Path) -> None:
    url = f"file://{tmp_path}/no-such-repo.git"
    with pytest.raises(FetchError) as error:
        subjects.resolve(f"git:{url}@0123abcd")
    assert f"git:{url}@0123abcd: git clone failed" in str(error.value)
    left = sorted(p.name for p in (private_cache / "subjects" / "git").iterdir())
    assert left == [".no-such-repo-0123abcd.lock"]


def test_fetch_command_prints_the_root_or_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert subjects.fetch_command(argparse.Namespace(subject="cpython-stdlib@3.13.0")) == 0
    assert capsys.readouterr().out.strip() == str(subjects.resolve("cpython-stdlib@3.13.0").root)
    assert subjects.fetch_command(argparse.Namespace(subject="cpython-stdlib@3.9")) == 1
    assert "hbdata fetch: subject 'cpython-stdlib@3.9'" in capsys.readouterr().err


# --- real fetches from the Debian mirror ------------------------------------------------------

@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One private cache for the fetch tests, so apt-get update runs once."""
    return tmp_path_factory.mktemp("fetch-cache")


def test_debian_source_fetch_is_once_and_race_safe(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEALBENCH_CACHE", str(shared_cache))
    resolve = f"from hbdata.subjects import resolve; print(resolve({TOOLZ!r}).root)"
    env = {**os.environ, "PYTHONPATH": str(TOOLS_DIR)}
    racers = [subprocess.Popen([sys.executable, "-c", resolve], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [racer.communicate(timeout=600) for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0], outputs
    roots = {out.strip() for out, _ in outputs}
    entry = shared_cache / "subjects" / "debian-source" / "toolz-0.12.0"
    assert roots == {str(entry / "source")}
    record = json.loads((entry / subjects.MARKER).read_text())
    assert record["root"] == str(entry / "source") and debian.upstream_version(record["version"]) == "0.12.0"
    assert (entry / "source" / "toolz" / "itertoolz.py").is_file()
    assert sorted(p.name for p in entry.parent.iterdir()) == [".toolz-0.12.0.lock", "toolz-0.12.0"]
    assert sorted(p.name for p in entry.iterdir()) == [subjects.MARKER, "source"]

    # A second resolve in this process finds the recorded tree: no apt, no unpacking.
    def no_fetch(*args: object) -> str:
        raise AssertionError("refetched")
    monkeypatch.setattr(debian.Apt, "fetch_source", no_fetch)
    subject = subjects.resolve("toolz")
    assert subject.root == entry / "source" and subject.python == Path("/usr/bin/python3")
    assert subject.readable == [entry / "source"] and subject.config == subjects.config_for("toolz")


def test_debian_version_mismatch_names_both(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEALBENCH_CACHE", str(shared_cache))
    with pytest.raises(FetchError) as error:
        subjects.resolve("debian-source:toolz@0.11.0")
    assert "toolz: declared version 0.11.0, but Debian bookworm has 0.12.0 (0.12.0-" in str(error.value)
    assert not (shared_cache / "subjects" / "debian-source" / "toolz-0.11.0").exists()
