"""The site table: one entry per instrumented statement, shared by all runtime parts.

Hit counting is per *block*: a run of consecutive wrapped statements of one body that nothing but
an exception can leave early. Only a block's first statement (its head) bumps a counter; the
others' counts are derived as the head's count minus `missed`, which the runtime bumps for the
rest of the block whenever an exception leaves the block (propagated, or `return` after a heal).
"""

from __future__ import annotations

import dataclasses
import threading
import types

from .percode import per_code

# Bumped whenever the rewritten code for the same source and selection changes shape.
REWRITE_FORMAT = 4


@dataclasses.dataclass(frozen=True)
class Guard:
    """A program construct lexically enclosing a site within the same function.

    kind "try": `handlers` holds each except clause's type expression source (None = bare).
    kind "with": `handlers` holds each context manager expression source.
    """

    kind: str
    handlers: tuple[str | None, ...]


@dataclasses.dataclass(frozen=True)
class Site:
    id: int
    file: str
    line: int
    end_line: int
    col: int
    end_col: int
    kind: str
    targets: tuple[str, ...]
    source: str
    function: str | None
    function_span: tuple[int, int] | None
    can_return: bool
    guards: tuple[Guard, ...]


# The statements to wrap in replay mode, per file: (line, col) of each statement's start.
Selection = dict[str, frozenset[tuple[int, int]]]


class SiteTable:
    """Registry of sites of every instrumented file, plus the hit counters the rewritten code bumps."""

    def __init__(self, selection: Selection | None = None) -> None:
        self.sites: list[Site] = []
        # Each instrumented module's counters (`module_counters`), with the id of its first site.
        self._counters: list[tuple[int, list[int]]] = []
        # Held while one module's sites are added, so that they get consecutive ids even when two
        # threads import at once (its code names them by their place in the module).
        self.registering = threading.Lock()
        self._heads: list[int] = []
        self._tails: list[tuple[int, ...]] = []
        self._missed: list[int] = []
        self._by_line: dict[str, dict[int, list[Site]]] = {}
        self.sources: dict[str, str] = {}
        # None: wrap every statement (full mode); else only the selected ones (replay mode).
        self.selection = selection

    def add_file(self, file: str, source: str) -> None:
        self.sources[file] = source
        self._by_line.setdefault(file, {})

    def wants(self, file: str, line: int, col: int) -> bool:
        return self.selection is None or (line, col) in self.selection.get(file, frozenset())

    def rewrite_key(self, file: str) -> str:
        """What, besides the source and interpreter, the rewritten code of `file` depends on."""
        if self.selection is None:
            return f"v{REWRITE_FORMAT}:all"
        chosen = sorted(self.selection.get(file, frozenset()))
        return f"v{REWRITE_FORMAT}:" + ",".join(f"{line}.{col}" for line, col in chosen)

    def add(self, **fields: object) -> Site:
        site = Site(id=len(self.sites), **fields)  # type: ignore[arg-type]
        self.sites.append(site)
        self._heads.append(site.id)
        self._tails.append(())
        self._missed.append(0)
        lines = self._by_line.setdefault(site.file, {})
        for line in range(site.line, site.end_line + 1):
            lines.setdefault(line, []).append(site)
        return site

    def set_block(self, ids: list[int]) -> None:
        """Declare consecutive sites one block: only ids[0] is counted by the rewritten code."""
        for index, site_id in enumerate(ids):
            self._heads[site_id] = ids[0]
            self._tails[site_id] = tuple(ids[index + 1:])

    def left_block(self, site_id: int) -> None:
        """An exception left the block at `site_id`: the statements after it did not run."""
        for later in self._tails[site_id]:
            self._missed[later] += 1

    def module_counters(self, first: int) -> list[int]:
        """The counters of the module whose sites were added last, from id `first` on: shared with
        it as `_healrt_hits`, indexed by a site's place in its module (rewrite.py). Indexing a list is
        the cheapest counter available from generated code (no call per statement); only heads are bumped."""
        counters = [0] * (len(self.sites) - first)
        self._counters.append((first, counters))
        return counters

    def counts(self) -> list[int]:
        """Hit count of every site: how often control reached it."""
        hits = [0] * len(self.sites)
        for first, counters in self._counters:
            hits[first:first + len(counters)] = counters
        missed = self._missed
        return [hits[head] - missed[site_id] for site_id, head in enumerate(self._heads)]

    def is_instrumented(self, file: str) -> bool:
        return file in self._by_line

    def site_at(self, frame: types.FrameType) -> Site | None:
        """The site a suspended instrumented frame is executing, from its current instruction's position."""
        return self.site_at_instruction(frame.f_code, frame.f_lasti)

    def site_at_instruction(self, code: types.CodeType, lasti: int) -> Site | None:
        """The site whose statement holds the instruction at byte offset `lasti` of `code`."""
        lines = self._by_line.get(code.co_filename)
        if not lines or lasti < 0:
            return None
        positions = _positions(code)
        index = lasti // 2
        if index >= len(positions):
            return None
        line, end_line, col, end_col = positions[index]
        if line is None:
            return None
        for site in lines.get(line, ()):
            starts_before = (site.line, site.col) <= (line, col if col is not None else site.col)
            ends_after = (end_line or line, end_col if end_col is not None else site.end_col) <= (
                site.end_line,
                site.end_col,
            )
            if starts_before and ends_after:
                return site
        return None


@per_code
def _positions(code: types.CodeType) -> list[tuple[int | None, int | None, int | None, int | None]]:
    """Per-instruction source positions, cached: a library raising and catching often asks again."""
    return list(code.co_positions())
