"""Wheel subjects (docs/dataset.md §3-§5): the subject string and catalog entry, a real install from
the local wheelhouses into a private cache, and workspaces that link into the read-only
environment instead of copying it. The environment is sortedcontainers 2.4.0, a small pure-Python
wheel, so the install takes seconds; the pandas instances' validation covers a large one."""
from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

import pytest

from hbdata import preflight, sourcetree, subjects, wheels
from hbdata.debian import FetchError
from hbdata.instances import load_instance
from hbdata.materialize import materialize
from hbdata.runner import run_target
from hbdata.subjects import ParsedSpec, SubjectError

SPEC = "wheel:sortedcontainers@2.4.0"
CATALOG = f'''\
subject: {SPEC}
codebase: sortedcontainers
python: "3.11.7"
project_roots: [sortedcontainers]
not_instrumented: [sortedcontainers/sorteddict.py]
test_paths: [sortedcontainers]
deps: []
policy: default
'''
OWN_TEST = '''\
import sortedcontainers
from sortedcontainers import SortedDict


def test_the_patched_package_and_the_linked_module_import():
    assert sortedcontainers.__version__ == "2.4.0+fixed"
    assert list(SortedDict({2: "b", 1: "a"})) == [1, 2]
'''


@pytest.mark.parametrize("spec, expected", [
    ("wheel:pandas@2.3.3", ("wheel", "pandas", "2.3.3")),
    ("wheel:python-dateutil@2.9.0.post0", ("wheel", "python-dateutil", "2.9.0.post0")),
])
def test_parse_wheel_subject(spec: str, expected: tuple[str, str, str]) -> None:
    assert subjects.parse_subject(spec) == ParsedSpec(*expected, None)


@pytest.mark.parametrize("spec, problem", [
    ("wheel:pandas", "no @<version>"),
    ("wheel:pandas@latest", "'latest' is not a release version"),
    ("wheel:../pandas@2.3.3", "'../pandas' is not a distribution name"),
])
def test_parse_wheel_subject_errors(spec: str, problem: str) -> None:
    with pytest.raises(SubjectError, match=problem):
        subjects.parse_subject(spec)


@pytest.mark.parametrize("edit, problem", [
    (lambda t: t.replace("deps: []", "deps: [numpy>=2]"), "deps: 'numpy>=2' is not a pin <dist>==<version>"),
    (lambda t: t.replace('"3.11.7"', '"3.11.2"'), "python: a wheel subject installs with a pyenv interpreter's pip"),
    (lambda t: t.replace("sortedcontainers/sorteddict.py]", "other/x.py]"),
     "not_instrumented: 'other/x.py' lies under none of the project_roots"),
])
def test_malformed_wheel_catalog_entry(tmp_path: Path, edit, problem: str) -> None:
    (tmp_path / "sortedcontainers.yaml").write_text(edit(CATALOG))
    with pytest.raises(SubjectError, match=problem):
        subjects.config_for("sortedcontainers", tmp_path)


def test_another_pin_is_another_environment() -> None:
    key = wheels.environment_key("pandas", "2.3.3", ["numpy==2.3.5", "pytz==2026.4"])
    assert key == wheels.environment_key("pandas", "2.3.3", ["pytz==2026.4", "numpy==2.3.5"])
    assert key != wheels.environment_key("pandas", "2.3.3", ["numpy==2.2.6", "pytz==2026.4"])


# --- a real install and the workspaces on it ---------------------------------------------------

@pytest.fixture(scope="module")
def wheel_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("wheel-cache")


@pytest.fixture
def catalog(wheel_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sortedcontainers entry as the only catalog, with one cache for the whole module: the
    environment is installed once."""
    monkeypatch.setenv("HEALBENCH_CACHE", str(wheel_cache))
    directory = tmp_path / "subjects"
    directory.mkdir()
    (directory / "sortedcontainers.yaml").write_text(CATALOG)
    monkeypatch.setattr(subjects, "SUBJECTS_DIR", directory)
    return directory


def test_install_is_once_pinned_and_read_only(catalog: Path, wheel_cache: Path) -> None:
    config = subjects.config_for(SPEC)
    assert config is not None
    assert not preflight.in_cache(SPEC, config)
    subject = subjects.resolve(SPEC)
    assert preflight.in_cache(SPEC, config)
    entry = subjects.wheel_entry(wheel_cache, "sortedcontainers", "2.4.0", [])
    assert subject.root == entry / wheels.SITE_DIR and (subject.root / "sortedcontainers" / "sortedlist.py").is_file()
    assert wheels.installed_version(subject.root, "sortedcontainers") == "2.4.0"
    # The environment is the import path, and the sandbox reads it together with the interpreter.
    assert subject.pythonpath == [subject.root] and subject.readable[0] == subject.root
    written = [p for p in subject.root.rglob("*") if not p.is_symlink() and p.stat().st_mode & stat.S_IWUSR]
    assert written == []
    assert subjects.resolve(SPEC).root == subject.root      # no second install


def test_a_version_the_wheelhouse_lacks_is_a_fetch_error(catalog: Path) -> None:
    (catalog / "sortedcontainers.yaml").write_text(CATALOG.replace("@2.4.0", "@0.0.1"))
    with pytest.raises(FetchError, match=r"wheel:sortedcontainers@0\.0\.1: pip install failed"):
        subjects.resolve("sortedcontainers")


@pytest.fixture
def wheel_instance(catalog: Path, tmp_path: Path) -> Path:
    """A real-bug-shaped instance on the wheel: the fix patch changes the package's version string."""
    init = subjects.resolve(SPEC).root / "sortedcontainers" / "__init__.py"
    lines = init.read_text().splitlines(keepends=True)
    fixed = [line.replace("'2.4.0'", "'2.4.0+fixed'") for line in lines]
    directory = tmp_path / "instances" / "own-sortedcontainers"
    directory.mkdir(parents=True)
    (directory / "fix.patch").write_text("".join(difflib.unified_diff(
        lines, fixed, "a/sortedcontainers/__init__.py", "b/sortedcontainers/__init__.py", n=1)))
    (directory / "test_own.py").write_text(OWN_TEST)
    (directory / "instance.yaml").write_text(f'''\
id: own-sortedcontainers
subject: {SPEC}
python: "3.11.7"
project_roots: [sortedcontainers]
fix_patch: fix.patch
target_test: test_own.py::test_the_patched_package_and_the_linked_module_import
target_test_origin: instance
expected_crash:
  type: AssertionError
  file: sortedcontainers/__init__.py
  function: "<module>"
  line: 1
policy: default
provenance:
  kind: real-bug
  issue: test-only
  fixed_in: "never"
  description: "a version string (made up for hbdata's tests)"
determinism:
  PYTHONHASHSEED: "0"
''')
    return directory


def test_workspace_links_into_the_environment_and_a_patch_never_reaches_it(wheel_instance: Path,
                                                                            tmp_path: Path) -> None:
    root = subjects.resolve(SPEC).root
    instance = load_instance(wheel_instance)
    buggy = tmp_path / "buggy" / "src" / "sortedcontainers"
    reference = tmp_path / "reference" / "src" / "sortedcontainers"
    materialize(instance, "buggy", tmp_path / "buggy")
    plan = materialize(instance, "reference", tmp_path / "reference")
    pristine = root / "sortedcontainers"
    # Hard links, not copies: the same inode as the environment's file.
    assert os.stat(buggy / "sortedlist.py").st_ino == os.stat(pristine / "sortedlist.py").st_ino
    assert os.stat(reference / "sortedset.py").st_ino == os.stat(pristine / "sortedset.py").st_ino
    # The not_instrumented module is a symlink into the environment: it resolves outside src.
    assert (buggy / "sorteddict.py").is_symlink()
    assert (buggy / "sorteddict.py").resolve() == pristine / "sorteddict.py"
    assert not (buggy / "__pycache__").exists()
    # sortedcontainers vendors no shared libraries: nothing but the project root in src.
    assert sorted(path.name for path in (tmp_path / "buggy" / "src").iterdir()) == ["sortedcontainers"]
    # The patched file is the reference workspace's own; the environment's is untouched.
    assert os.stat(reference / "__init__.py").st_ino != os.stat(pristine / "__init__.py").st_ino
    assert "'2.4.0+fixed'" in (reference / "__init__.py").read_text()
    assert "'2.4.0'" in (pristine / "__init__.py").read_text()
    assert plan.pythonpath == [str(root)] and str(root) in plan.readable
    result = run_target(plan, timeout_s=120)
    assert result.passed, result.detail


def test_detach_copies_a_shared_file_only(tmp_path: Path) -> None:
    shared, alone = tmp_path / "shared.py", tmp_path / "alone.py"
    shared.write_text("x = 1\n")
    alone.write_text("y = 2\n")
    os.link(shared, tmp_path / "link.py")
    inode = alone.stat().st_ino
    sourcetree.detach([tmp_path / "link.py", alone, tmp_path / "missing.py"])
    assert (tmp_path / "link.py").stat().st_nlink == 1 and shared.stat().st_nlink == 1
    assert (tmp_path / "link.py").read_text() == "x = 1\n" and alone.stat().st_ino == inode


def test_vendored_libraries_are_symlinked_next_to_the_project_roots(tmp_path: Path) -> None:
    # A repaired manylinux wheel (numpy's): extensions in numpy/_core find their OpenBLAS at
    # $ORIGIN/../../numpy.libs, so the workspace's src needs numpy.libs beside numpy.
    environment, source_dir = tmp_path / "site-packages", tmp_path / "src"
    (environment / "numpy.libs").mkdir(parents=True)
    (environment / "numpy.libs" / "libopenblas.so").write_bytes(b"")
    (environment / "numpy").mkdir()
    (environment / "numpy-2.0.0.dist-info").mkdir()
    (environment / "other.libs").write_text("a file, not a library directory\n")
    (source_dir / "numpy").mkdir(parents=True)
    assert sourcetree.vendored_libraries(environment) == [environment / "numpy.libs"]
    sourcetree.link_vendored_libraries(environment, source_dir)
    sourcetree.link_vendored_libraries(environment, source_dir)        # a second call changes nothing
    assert sorted(path.name for path in source_dir.iterdir()) == ["numpy", "numpy.libs"]
    assert (source_dir / "numpy.libs").is_symlink()
    assert (source_dir / "numpy" / ".." / "numpy.libs" / "libopenblas.so").resolve() == \
        environment / "numpy.libs" / "libopenblas.so"


def test_patched_files_are_the_new_sides_of_a_p1_diff(tmp_path: Path) -> None:
    patch = tmp_path / "fix.patch"
    patch.write_text("--- a/pandas/core/frame.py\n+++ b/pandas/core/frame.py\n@@ -1 +1 @@\n-a\n+b\n"
                     "--- a/pandas/x.py\t2026-01-01\n+++ b/pandas/x.py\t2026-01-01\n@@ -1 +1 @@\n-a\n+b\n")
    assert sourcetree.patched_files(patch) == ["pandas/core/frame.py", "pandas/x.py"]
