"""The site table: one entry per instrumented statement, shared by all runtime parts."""

from __future__ import annotations

import dataclasses
import types


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


class SiteTable:
    """Registry of sites of every instrumented file, plus the hit counters the rewritten code bumps."""

    def __init__(self) -> None:
        self.sites: list[Site] = []
        # Shared with instrumented modules as `_healrt_hits`; indexing a list is the cheapest
        # counter available from generated code (no call per statement).
        self.hits: list[int] = []
        self._by_line: dict[str, dict[int, list[Site]]] = {}
        self.sources: dict[str, str] = {}

    def add_file(self, file: str, source: str) -> None:
        self.sources[file] = source
        self._by_line.setdefault(file, {})

    def add(self, **fields: object) -> Site:
        site = Site(id=len(self.sites), **fields)  # type: ignore[arg-type]
        self.sites.append(site)
        self.hits.append(0)
        lines = self._by_line.setdefault(site.file, {})
        for line in range(site.line, site.end_line + 1):
            lines.setdefault(line, []).append(site)
        return site

    def is_instrumented(self, file: str) -> bool:
        return file in self._by_line

    def site_at(self, frame: types.FrameType) -> Site | None:
        """The site a suspended instrumented frame is executing, from its current instruction's position."""
        code = frame.f_code
        lines = self._by_line.get(code.co_filename)
        if not lines or frame.f_lasti < 0:
            return None
        positions = list(code.co_positions())
        index = frame.f_lasti // 2
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
