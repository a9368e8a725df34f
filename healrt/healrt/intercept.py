"""The import hook: project modules are loaded from `source_dir`, rewritten and compiled.

Only `project_modules` (top-level names and their submodules) are touched; everything else is
imported as usual. Within them, test, documentation, example, benchmark and vendored code is
loaded from `source_dir` too but not instrumented (`not_instrumented_reason`).

Compiled rewrites are cached on disk by codecache (keyed by source, interpreter and rewriter),
never in `__pycache__`: get_code is overridden, so no stale (or instrumented) bytecode is ever
read from or written next to the sources.

With HealGuard on, instrumented modules also get the formatting rewrite (fmtrewrite.py) before the
statement rewrite, and are registered with the guard before they run (guard.register_module).
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import types
from typing import Any, Callable, Sequence

from . import guard
from .codecache import CodeCache, Recorder
from .fmtrewrite import FormatRewriter
from .rewrite import COND_SLOT, rewrite_module
from .sites import SiteTable

# The `_healrt_rt` of a module whose sites start at the given id (Runtime.module_hooks).
HooksFor = Callable[[int], Any]

# Package (directory or dotted-name) components whose code is not the project's own.
_EXCLUDED_PACKAGES = frozenset({
    "test", "tests", "testing", "docs", "examples", "benchmarks",
    "_vendor", "vendor", "vendored", "third_party",
})


def not_instrumented_reason(relative_path: str) -> str | None:
    """Why a project file (path relative to source_dir) is not instrumented, or None if it is."""
    parts = relative_path.replace(os.sep, "/").split("/")
    stem = parts[-1].removesuffix(".py")
    components = parts[:-1] + ([] if stem == "__init__" else [stem])
    excluded = next((part for part in components if part in _EXCLUDED_PACKAGES), None)
    if excluded is not None:
        return f"inside {excluded!r}"
    if stem.startswith("test_") or stem.endswith("_test") or stem == "conftest":
        return "a test file"
    return None


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Plain (uninstrumented) project code, compiled from source like the instrumented modules."""

    def get_code(self, fullname: str) -> types.CodeType:
        source = importlib.util.decode_source(self.get_data(self.path))
        return compile(source, self.path, "exec", dont_inherit=True)


class _InstrumentingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, table: SiteTable, hooks_for: HooksFor, cache: CodeCache,
                 formatting: FormatRewriter | None) -> None:
        super().__init__(fullname, path)
        self._table = table
        self._hooks_for = hooks_for
        self._cache = cache
        self._formatting = formatting

    def get_code(self, fullname: str) -> types.CodeType:
        return self._instrument(fullname)[0]

    def _instrument(self, fullname: str) -> tuple[types.CodeType, int, list[int]]:
        """The module's rewritten code, the id of its first site and its counters (sites.py)."""
        data = self.get_data(self.path)
        source = importlib.util.decode_source(data)
        variant = self._table.rewrite_key(self.path) + ("|" + self._formatting.key if self._formatting else "")
        key = self._cache.key(data, variant)
        entry = self._cache.load(key, self.path)
        tree = None
        if entry is None:  # parsed outside the lock: only adding the sites must not interleave
            tree = ast.parse(source, self.path)
            if self._formatting is not None:
                tree = self._formatting.transform(tree, fullname)
        with self._table.registering:
            first_site = len(self._table.sites)
            if entry is not None:
                entry.replay(self._table, self.path, source)
            else:
                recorder = Recorder(self._table)
                tree = rewrite_module(tree, self.path, source, recorder)  # type: ignore[arg-type]
            counters = self._table.module_counters(first_site)
        if entry is not None:
            return entry.code, first_site, counters
        code = compile(tree, self.path, "exec", dont_inherit=True)
        self._cache.store(key, code, recorder)
        return code, first_site, counters

    def exec_module(self, module: types.ModuleType) -> None:
        code, first_site, counters = self._instrument(module.__name__)
        module.__dict__["_healrt_rt"] = self._hooks_for(first_site)
        module.__dict__["_healrt_hits"] = counters
        # Bound before the module runs, so that its first `if` adds no key to its namespace.
        module.__dict__[COND_SLOT] = None
        if self._formatting is not None:
            guard.register_module(module.__dict__)
        exec(code, module.__dict__)  # what SourceFileLoader.exec_module does with get_code's result
        if self._formatting is not None:
            guard.module_loaded(module.__dict__)


class ProjectFinder:
    """A meta-path finder placed first, so it wins over pytest's sys.path manipulation too."""

    def __init__(
        self, source_dir: str, names: Sequence[str], table: SiteTable, hooks_for: HooksFor, cache: CodeCache,
        formatting: FormatRewriter | None = None,
    ) -> None:
        self._source_dir = source_dir
        self._names = frozenset(names)
        self._table = table
        self._hooks_for = hooks_for
        self._cache = cache
        self._formatting = formatting
        self.not_instrumented: dict[str, str] = {}  # module name -> reason

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in self._names:
            return None
        search = list(path) if path is not None and "." in fullname else [self._source_dir]
        spec = importlib.machinery.PathFinder.find_spec(fullname, search)
        if spec is None or spec.origin is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        origin = os.path.realpath(spec.origin)
        if not origin.startswith(self._source_dir + os.sep):
            return None
        reason = not_instrumented_reason(os.path.relpath(origin, self._source_dir))
        if reason is not None:
            self.not_instrumented[fullname] = reason
            spec.loader = _SourceOnlyLoader(fullname, spec.origin)
        else:
            spec.loader = _InstrumentingLoader(fullname, spec.origin, self._table, self._hooks_for, self._cache,
                                               self._formatting)
        return spec

    def invalidate_caches(self) -> None:
        return None


def overlayable(name: str) -> bool:
    """Frozen and built-in modules are loaded at interpreter start and cannot be replaced."""
    return name not in sys.builtin_module_names and importlib.machinery.FrozenImporter.find_spec(name) is None


def install(
    source_dir: str, names: Sequence[str], table: SiteTable, hooks_for: HooksFor, cache: CodeCache | None = None,
    formatting: FormatRewriter | None = None,
) -> ProjectFinder:
    """Swap the project modules: drop the harness's copies and route future imports to source_dir.
    `formatting`: HealGuard's formatting rewrite (None: the guard is off)."""
    wanted = frozenset(names)
    for loaded in list(sys.modules):
        if loaded.partition(".")[0] in wanted:
            del sys.modules[loaded]
    sys.path.insert(0, source_dir)
    finder = ProjectFinder(source_dir, names, table, hooks_for, cache or CodeCache(None), formatting)
    sys.meta_path.insert(0, finder)
    importlib.invalidate_caches()
    return finder
