"""On-disk cache of compiled rewrites: the instrumented code object and its site table.

An entry's key covers everything the rewrite of one file depends on:
- the source bytes (sha256);
- the interpreter (implementation, full version string, bytecode magic number);
- the rewriter (a hash of rewrite.py, sites.py and fmtrewrite.py, the code that shapes the output);
- the table's `rewrite_key` (what else shapes the output, e.g. the replay selection).
Nothing about the other modules of the run is in it: the code names each site by its place in its
own module (rewrite.py), so an entry serves whatever was imported before the file. A run whose
patch changes one module (a FIXED variant, a guard suite case, an injected bug) misses that
module's entry only.
An entry's name is the source's sha256, a dash, and the key: so the sandbox can leave every entry
of one file out of a session's view by the file's content alone (an injected instance's pristine
file is its answer). The file's path is *not* in the key: workspaces are fresh directories, so a
loaded entry has its code objects' `co_filename` and its sites' `file` replaced with the path being
imported.

The site table state a rewrite creates (its sites, and the blocks it declares) is recorded while
rewriting (`Recorder`) and replayed into the table when an entry is loaded.

The cache is best effort: a directory that cannot be written is only read from (a cache warmed by a
trusted run, mounted read-only), a missing one is created or else ignored, and an unreadable,
corrupt or mismatched entry is ignored (and rewritten where it can be).

A second, shared directory may be layered under it (`shared_code_cache`): read first, never
written. The sandbox gives every run its subject's shared cache that way, read-only (an injected
instance's BUGGY run a copy without the entries of the files its bug changes); only a warm-up (a
run with no agent) also gets a private writable directory, whose new entries the sandbox then
publishes into the shared one: no session writes an entry another loads.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

from .sites import Guard, Site, SiteTable

ENV_VAR = "HEALRT_CACHE"
DEFAULT_DIR = Path("~/.cache/healbench/healrt-code")
_FORMAT = 2
_SUFFIX = ".healrt"
_SITE_FIELDS = tuple(field.name for field in dataclasses.fields(Site))


def _rewriter_version() -> str:
    digest = hashlib.sha256(str(_FORMAT).encode())
    package = Path(__file__).resolve().parent
    for name in ("rewrite.py", "sites.py", "fmtrewrite.py"):
        digest.update((package / name).read_bytes())
    return digest.hexdigest()


_INTERPRETER = "|".join((sys.implementation.name, sys.version, importlib.util.MAGIC_NUMBER.hex()))
_REWRITER = _rewriter_version()


def cache_dir(configured: str | None) -> Path | None:
    """The directory to use: the spec's value, else $HEALRT_CACHE, else the default; "" disables."""
    value = configured if configured is not None else os.environ.get(ENV_VAR)
    if value == "":
        return None
    return Path(value).expanduser() if value is not None else DEFAULT_DIR.expanduser()


@dataclasses.dataclass(frozen=True)
class Entry:
    code: types.CodeType
    sites: list[Site]
    blocks: list[tuple[int, ...]]  # each block's sites by their place in the module

    def replay(self, table: SiteTable, path: str, source: str) -> None:
        """Adds the entry's sites and blocks to the table, after the sites it holds already."""
        first = len(table.sites)
        table.add_file(path, source)
        for site in self.sites:
            fields = {name: getattr(site, name) for name in _SITE_FIELDS if name != "id"}
            table.add(**fields)
        for places in self.blocks:
            table.set_block([first + place for place in places])


class Recorder:
    """Stands in for the SiteTable during a rewrite, remembering the sites and blocks it creates."""

    def __init__(self, table: SiteTable) -> None:
        self._table = table
        self._first = len(table.sites)
        # Not `sites`: that name is the table's (every site so far), which the rewriter reads through this.
        self.added: list[Site] = []
        self.blocks: list[tuple[int, ...]] = []

    def add(self, **fields: Any) -> Site:
        site = self._table.add(**fields)
        self.added.append(site)
        return site

    def set_block(self, ids: list[int]) -> None:
        self._table.set_block(ids)
        self.blocks.append(tuple(site_id - self._first for site_id in ids))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)


class CodeCache:
    def __init__(self, directory: Path | None, shared: Path | None = None) -> None:
        self._directory = directory
        self._shared = shared
        # Cleared by the first failed write: a cache mounted read-only still serves what a trusted run
        # put in it, it just stops trying to add entries.
        self._writable = True
        self.hits = 0
        self.misses = 0

    def key(self, source: bytes, variant: str) -> str:
        source_digest = hashlib.sha256(source).hexdigest()
        digest = hashlib.sha256(source_digest.encode())
        digest.update(f"\0{_INTERPRETER}\0{_REWRITER}\0{variant}".encode())
        return f"{source_digest}-{digest.hexdigest()}"

    def load(self, key: str, path: str) -> Entry | None:
        directories = [d for d in (self._shared, self._directory) if d is not None]
        if not directories:
            return None
        for directory in directories:
            try:
                entry = _decode(marshal.loads((directory / (key + _SUFFIX)).read_bytes()), key, path)
            except Exception:  # missing, unreadable or corrupt: try the next, else recompile
                entry = None
            if entry is not None:
                break
        if entry is None:
            self.misses += 1
        else:
            self.hits += 1
        return entry

    def store(self, key: str, code: types.CodeType, recorded: Recorder) -> None:
        if self._directory is None or not self._writable:
            return
        sites = tuple(_encode_site(site) for site in recorded.added)
        payload = marshal.dumps((_FORMAT, key, code, sites, tuple(recorded.blocks)))
        try:
            self._directory.mkdir(parents=True, exist_ok=True)
            # Written whole under a temporary name, then renamed: readers never see a partial entry.
            handle, temporary = tempfile.mkstemp(dir=self._directory, suffix=".tmp")
            try:
                # Readable by all (mkstemp makes it private): a cache warmed by a trusted run can be
                # mounted read-only into sandboxes that run under other uids.
                os.fchmod(handle, 0o644)
                with os.fdopen(handle, "wb") as out:
                    out.write(payload)
                os.replace(temporary, self._directory / (key + _SUFFIX))
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            self._writable = False  # read-only (e.g. inside the sandbox) or full: stop writing, keep reading


def _encode_site(site: Site) -> tuple[Any, ...]:
    values = []
    for name in _SITE_FIELDS:
        value = getattr(site, name)
        if name == "guards":
            value = tuple((guard.kind, guard.handlers) for guard in value)
        values.append(value)
    return tuple(values)


def _decode(payload: Any, key: str, path: str) -> Entry | None:
    fmt, stored_key, code, raw_sites, blocks = payload
    if fmt != _FORMAT or stored_key != key or not isinstance(code, types.CodeType):
        return None
    sites = []
    for raw in raw_sites:
        fields = dict(zip(_SITE_FIELDS, raw, strict=True))
        fields["guards"] = tuple(Guard(kind, tuple(handlers)) for kind, handlers in fields["guards"])
        fields["targets"] = tuple(fields["targets"])
        if fields["function_span"] is not None:
            fields["function_span"] = tuple(fields["function_span"])
        fields["file"] = path
        sites.append(Site(**fields))
    return Entry(_with_filename(code, path), sites, [tuple(places) for places in blocks])


def _with_filename(code: types.CodeType, path: str) -> types.CodeType:
    consts = tuple(_with_filename(c, path) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=path, co_consts=consts)
