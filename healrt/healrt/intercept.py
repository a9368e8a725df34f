"""The import hook: project modules are loaded from `source_dir`, rewritten and compiled.

Only `project_modules` (top-level names and their submodules) are touched; everything else is
imported as usual. Compiled rewrites are not cached on disk: get_code is overridden, so no stale
(or instrumented) bytecode is ever read or written.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import types
from typing import Any, Sequence

from .rewrite import rewrite_module
from .sites import SiteTable


class _InstrumentingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, table: SiteTable, hooks: Any) -> None:
        super().__init__(fullname, path)
        self._table = table
        self._hooks = hooks

    def get_code(self, fullname: str) -> types.CodeType:
        source = importlib.util.decode_source(self.get_data(self.path))
        tree = rewrite_module(ast.parse(source, self.path), self.path, source, self._table)
        return compile(tree, self.path, "exec", dont_inherit=True)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["_healrt_rt"] = self._hooks
        module.__dict__["_healrt_hits"] = self._table.hits
        super().exec_module(module)


class ProjectFinder:
    """A meta-path finder placed first, so it wins over pytest's sys.path manipulation too."""

    def __init__(self, source_dir: str, names: Sequence[str], table: SiteTable, hooks: Any) -> None:
        self._source_dir = source_dir
        self._names = frozenset(names)
        self._table = table
        self._hooks = hooks

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in self._names:
            return None
        search = list(path) if path is not None and "." in fullname else [self._source_dir]
        spec = importlib.machinery.PathFinder.find_spec(fullname, search)
        if spec is None or spec.origin is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if not os.path.realpath(spec.origin).startswith(self._source_dir + os.sep):
            return None
        spec.loader = _InstrumentingLoader(fullname, spec.origin, self._table, self._hooks)
        return spec

    def invalidate_caches(self) -> None:
        return None


def overlayable(name: str) -> bool:
    """Frozen and built-in modules are loaded at interpreter start and cannot be replaced."""
    return name not in sys.builtin_module_names and importlib.machinery.FrozenImporter.find_spec(name) is None


def install(source_dir: str, names: Sequence[str], table: SiteTable, hooks: Any) -> ProjectFinder:
    """Swap the project modules: drop the harness's copies and route future imports to source_dir."""
    wanted = frozenset(names)
    for loaded in list(sys.modules):
        if loaded.partition(".")[0] in wanted:
            del sys.modules[loaded]
    sys.path.insert(0, source_dir)
    finder = ProjectFinder(source_dir, names, table, hooks)
    sys.meta_path.insert(0, finder)
    importlib.invalidate_caches()
    return finder
