"""The on-disk cache of compiled rewrites, and which project files are instrumented at all."""

from __future__ import annotations

import hashlib
import importlib
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import pytest

from healrt.codecache import CodeCache, cache_dir
from healrt.intercept import ProjectFinder, install, not_instrumented_reason
from healrt.rewrite import PROPAGATE
from healrt.sites import SiteTable

MODULE = '''\
def double(x):
    y = x * 2
    return y


def boom():
    return 1 / 0
'''


class _NoHooks:
    handle = staticmethod(lambda site_id: 0)
    return_value = staticmethod(lambda: None)


@pytest.fixture
def importer() -> Iterator:
    """import_from(source_dir, cache, names) -> (finder, table, module of names[0]); undone afterwards."""
    saved_path, saved_meta = list(sys.path), list(sys.meta_path)
    names: list[str] = []

    def import_from(source_dir: Path, cache: CodeCache, *modules: str, hooks_for=lambda first_site: _NoHooks()):
        names.extend(modules)
        table = SiteTable()
        finder = install(str(source_dir.resolve()), [m.partition(".")[0] for m in modules], table, hooks_for, cache)
        loaded = [importlib.import_module(m) for m in modules]
        return finder, table, loaded[0]

    yield import_from
    sys.path[:], sys.meta_path[:] = saved_path, saved_meta
    for loaded in list(sys.modules):
        if loaded.partition(".")[0] in {n.partition(".")[0] for n in names}:
            del sys.modules[loaded]


def _project(root: Path, source: str = MODULE) -> Path:
    root.mkdir(parents=True)
    (root / "cachedmod.py").write_text(source)
    return root


def test_second_import_is_served_from_the_cache_with_its_own_path(tmp_path, importer):
    cache = CodeCache(tmp_path / "cache")
    _, first_table, first = importer(_project(tmp_path / "ws1"), cache, "cachedmod")
    assert (cache.hits, cache.misses) == (0, 1)
    assert len(list((tmp_path / "cache").iterdir())) == 1
    del sys.modules["cachedmod"]
    # A fresh workspace (another directory) with the same source: the entry is reused.
    _, table, module = importer(_project(tmp_path / "ws2"), cache, "cachedmod")
    assert (cache.hits, cache.misses) == (1, 1)
    assert module.double(4) == 8 and first.double(4) == 8
    assert table.counts() == first_table.counts()  # the blocks were replayed too
    new_file = str((tmp_path / "ws2" / "cachedmod.py").resolve())
    assert module.double.__code__.co_filename == new_file
    assert [s.file for s in table.sites] == [new_file] * len(first_table.sites)
    assert [(s.line, s.source) for s in table.sites] == [(s.line, s.source) for s in first_table.sites]
    assert table.is_instrumented(new_file)
    with pytest.raises(ZeroDivisionError) as raised:
        module.boom()
    assert raised.traceback[-1].path == Path(new_file)


def test_changed_source_or_variant_misses(tmp_path):
    cache = CodeCache(tmp_path)
    base = cache.key(b"x = 1\n", "v:all")
    assert base != cache.key(b"x = 2\n", "v:all")
    assert base != cache.key(b"x = 1\n", "v:3.0")


def test_an_entry_serves_a_module_imported_after_a_changed_one(tmp_path, importer):
    # A patch that changes one module (a FIXED variant, a guard suite case, an injected bug) moves
    # the ids of every site imported after it: those modules' entries still serve, and their code
    # still counts and reports its own sites.
    cache = CodeCache(tmp_path / "cache")

    def workspace(name: str, first_module: str) -> Path:
        root = _project(tmp_path / name)
        (root / "firstmod.py").write_text(first_module)
        return root

    importer(workspace("ws1", "a = 1\n"), cache, "firstmod", "cachedmod")
    for name in ("firstmod", "cachedmod"):
        del sys.modules[name]
    crashed: list[int] = []

    def hooks_for(first_site: int) -> SimpleNamespace:
        return SimpleNamespace(handle=lambda place: crashed.append(first_site + place) or PROPAGATE,
                               return_value=lambda: None)

    _, table, _ = importer(workspace("ws2", "a = 1\nif a:\n    b = 2\nc = 3\n"), cache, "firstmod", "cachedmod",
                           hooks_for=hooks_for)
    assert (cache.hits, cache.misses) == (1, 3)  # only the changed module was rewritten again
    module = sys.modules["cachedmod"]
    assert module.double(4) == 8
    with pytest.raises(ZeroDivisionError):
        module.boom()
    [crash] = crashed
    cached_file = str((tmp_path / "ws2" / "cachedmod.py").resolve())
    assert (table.sites[crash].file, table.sites[crash].source) == (cached_file, "return 1 / 0")
    counts = dict(zip((site.source for site in table.sites), table.counts()))
    assert (counts["b = 2"], counts["c = 3"], counts["y = x * 2"], counts["return y"]) == (1, 1, 1, 1)


def test_modules_rewritten_by_two_threads_at_once_keep_their_own_sites(tmp_path, monkeypatch):
    # A module's code names its sites by their place in it, so its sites need consecutive ids even
    # while another thread rewrites a module (SiteTable.registering).
    project = tmp_path / "ws"
    project.mkdir()
    for name in ("leftmod", "rightmod"):
        (project / f"{name}.py").write_text("def f(x):\n" + "".join(f"    x = x + {i}\n" for i in range(20))
                                            + "    return 1 / 0\n")
    add = SiteTable.add

    def add_slowly(self: SiteTable, **fields: object):
        time.sleep(0.001)  # the other thread runs between two sites
        return add(self, **fields)

    monkeypatch.setattr(SiteTable, "add", add_slowly)
    crashed: list[int] = []

    def hooks_for(first_site: int) -> SimpleNamespace:
        return SimpleNamespace(handle=lambda place: crashed.append(first_site + place) or PROPAGATE,
                               return_value=lambda: None)

    cache = CodeCache(tmp_path / "cache")
    saved_path, saved_meta = list(sys.path), list(sys.meta_path)
    try:
        for concurrently in (True, False):  # the second time from the entries the first stored
            table = SiteTable()
            install(str(project.resolve()), ["leftmod", "rightmod"], table, hooks_for, cache)
            threads = [threading.Thread(target=importlib.import_module, args=(name,)) for name in ("leftmod", "rightmod")]
            for thread in threads:
                thread.start()
                if not concurrently:
                    thread.join()
            for thread in threads:
                thread.join()
            modules = [sys.modules.pop(name) for name in ("leftmod", "rightmod")]
            assert sum(len(vars(module)["_healrt_hits"]) for module in modules) == len(table.sites)
            for module in modules:
                with pytest.raises(ZeroDivisionError):
                    module.f(0)
                assert (table.sites[crashed[-1]].file, table.sites[crashed[-1]].source) == (module.__file__, "return 1 / 0")
            counts = dict(zip(((site.file, site.source) for site in table.sites), table.counts()))
            assert [counts[(module.__file__, "x = x + 19")] for module in modules] == [1, 1]
        assert (cache.hits, cache.misses) == (2, 2)
    finally:
        sys.path[:], sys.meta_path[:] = saved_path, saved_meta


def test_an_entry_is_named_by_its_source_digest_first(tmp_path, importer):
    # The sandbox leaves a file's entries out of a session's view by this prefix alone (SharedCodeCache).
    cache = CodeCache(tmp_path / "cache")
    importer(_project(tmp_path / "ws"), cache, "cachedmod")
    [entry] = (tmp_path / "cache").iterdir()
    source = (tmp_path / "ws" / "cachedmod.py").read_bytes()
    assert entry.name.startswith(hashlib.sha256(source).hexdigest() + "-")
    assert cache.key(source, "v:all").split("-")[0] == hashlib.sha256(source).hexdigest()


def test_corrupt_entry_is_ignored_and_replaced(tmp_path, importer):
    cache = CodeCache(tmp_path / "cache")
    importer(_project(tmp_path / "ws1"), cache, "cachedmod")
    [entry] = (tmp_path / "cache").iterdir()
    entry.write_bytes(b"\x00garbage")
    del sys.modules["cachedmod"]
    _, _, module = importer(_project(tmp_path / "ws2"), cache, "cachedmod")
    assert module.double(2) == 4 and cache.hits == 0
    assert entry.read_bytes() != b"\x00garbage"


def test_unwritable_cache_directory_is_skipped_silently(tmp_path, importer):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cache = CodeCache(blocker / "cache")  # cannot be created under a regular file
    _, table, module = importer(_project(tmp_path / "ws"), cache, "cachedmod")
    assert module.double(3) == 6 and table.sites


def test_a_cache_that_cannot_be_written_still_serves_its_entries(tmp_path, importer, monkeypatch):
    warmed = CodeCache(tmp_path / "cache")
    importer(_project(tmp_path / "ws1"), warmed, "cachedmod")
    del sys.modules["cachedmod"]

    def read_only_file_system(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    # The cache as a sandbox sees it: mounted read-only, so every write fails.
    monkeypatch.setattr("healrt.codecache.tempfile.mkstemp", read_only_file_system)
    cache = CodeCache(tmp_path / "cache")
    other = tmp_path / "ws-other"
    other.mkdir()
    (other / "othermod.py").write_text("def triple(x):\n    return x * 3\n")
    _, _, othermod = importer(other, cache, "othermod")  # a miss whose entry cannot be written
    assert othermod.triple(2) == 6 and (cache.hits, cache.misses) == (0, 1)
    _, _, module = importer(_project(tmp_path / "ws2"), cache, "cachedmod")
    assert module.double(5) == 10 and (cache.hits, cache.misses) == (1, 1)
    assert len(list((tmp_path / "cache").iterdir())) == 1


def test_cache_directory_configuration(monkeypatch, tmp_path):
    monkeypatch.setenv("HEALRT_CACHE", str(tmp_path / "env"))
    assert cache_dir(None) == tmp_path / "env"
    assert cache_dir(str(tmp_path / "spec")) == tmp_path / "spec"
    assert cache_dir("") is None
    monkeypatch.delenv("HEALRT_CACHE")
    assert cache_dir(None) == Path.home() / ".cache" / "healbench" / "healrt-code"


@pytest.mark.parametrize("path, instrumented", [
    ("pkg/core.py", True),
    ("pkg/__init__.py", True),
    ("pkg/contest.py", True),
    ("pkg/tests/__init__.py", False),
    ("pkg/tests/helpers.py", False),
    ("pkg/test/data.py", False),
    ("pkg/testing.py", False),
    ("pkg/testing/__init__.py", False),
    ("docs/conf.py", False),
    ("pkg/examples/demo.py", False),
    ("pkg/benchmarks/run.py", False),
    ("pkg/_vendor/six.py", False),
    ("pkg/vendor/lib.py", False),
    ("pkg/vendored/lib.py", False),
    ("pkg/third_party/lib.py", False),
    ("pkg/test_core.py", False),
    ("pkg/core_test.py", False),
    ("pkg/conftest.py", False),
    ("conftest.py", False),
])
def test_which_project_files_are_instrumented(path, instrumented):
    assert (not_instrumented_reason(path) is None) is instrumented


def test_tests_and_vendored_code_load_from_source_dir_without_instrumentation(tmp_path, importer):
    package = tmp_path / "src" / "exclpkg"
    for sub in ("tests", "_vendor"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("VALUE = 1\n")
    (package / "core.py").write_text("def f():\n    return 1\n")
    (package / "tests" / "test_core.py").write_text("def test_f():\n    assert True\n")
    (package / "_vendor" / "lib.py").write_text("def g():\n    return 2\n")
    (package / "conftest.py").write_text("X = 3\n")
    finder, table, core = importer(tmp_path / "src", CodeCache(None), "exclpkg.core", "exclpkg.tests.test_core",
                                   "exclpkg._vendor.lib", "exclpkg.conftest")
    assert isinstance(finder, ProjectFinder)
    loaded = {name: sys.modules[name] for name in
              ("exclpkg.tests.test_core", "exclpkg._vendor.lib", "exclpkg.conftest", "exclpkg.tests",
               "exclpkg._vendor")}
    for module in loaded.values():
        assert str(Path(module.__file__).resolve()).startswith(str((tmp_path / "src").resolve()))
        assert "_healrt_rt" not in vars(module)
        assert not table.is_instrumented(module.__file__)
    assert set(finder.not_instrumented) == set(loaded)
    assert "_healrt_rt" in vars(core) and table.is_instrumented(core.__file__)
    assert sys.modules["exclpkg._vendor.lib"].g() == 2


def test_a_shared_cache_is_read_first_and_never_written(tmp_path, importer):
    shared = tmp_path / "shared"
    importer(_project(tmp_path / "ws1"), CodeCache(shared), "cachedmod")  # a trusted run warms it
    del sys.modules["cachedmod"]
    warmed = sorted(shared.iterdir())
    own = tmp_path / "own"
    cache = CodeCache(own, shared)
    _, _, module = importer(_project(tmp_path / "ws2"), cache, "cachedmod")
    assert module.double(4) == 8 and (cache.hits, cache.misses) == (1, 0)
    other = tmp_path / "ws-other"
    other.mkdir()
    (other / "othermod.py").write_text("def triple(x):\n    return x * 3\n")
    _, _, othermod = importer(other, cache, "othermod")  # a miss: compiled, stored in its own directory only
    assert othermod.triple(2) == 6 and (cache.hits, cache.misses) == (1, 1)
    assert sorted(shared.iterdir()) == warmed and len(list(own.iterdir())) == 1


def test_a_corrupt_shared_entry_falls_back_to_the_own_directory(tmp_path, importer):
    own = tmp_path / "own"
    importer(_project(tmp_path / "ws1"), CodeCache(own), "cachedmod")
    del sys.modules["cachedmod"]
    shared = tmp_path / "shared"
    shared.mkdir()
    for entry in own.iterdir():
        (shared / entry.name).write_bytes(b"not marshal")  # planted garbage under the same key
    cache = CodeCache(own, shared)
    _, _, module = importer(_project(tmp_path / "ws2"), cache, "cachedmod")
    assert module.double(6) == 12 and (cache.hits, cache.misses) == (1, 0)
