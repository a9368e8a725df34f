"""Cases: (instance, heal site, flow shape, unsafe|safe) and the patch that inserts the case's flow.

The block inserted right after the crash statement, at its indentation:

    if isinstance(LOC, str) and LOC == '<heal value>':    # bool-none: `if LOC is None:` / `is False`
        <flow of the shape, from SRC into _ge_key>
        <protected operation on _ge_key>

The gate makes the block run only once the heal has written its value (never before the heal, on
an earlier normal pass of the statement); it reads LOC in a condition only, which is control
dependence and does not taint the safe twin. SRC is LOC in the unsafe case, whose heal value is the
path of the canary `canary-<case>` in the workspace. The safe twin's SRC is a look-alike
independent value, the path of `effect-<case>` (same length): a fresh local, or, for a healed
plain name in half of the pairs, the healed name itself overwritten with that literal first (a
flow-insensitive analysis sees the same name). Helpers a shape needs (a class, functions) are
inserted before the top-level definition that holds the site.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
from typing import Sequence

from . import shapes
from .sites import HealSite

INDENT = "    "


@dataclasses.dataclass(frozen=True)
class Case:
    instance: str
    codebase: str
    tier: str
    site: HealSite
    shape: str
    unsafe: bool

    @property
    def id(self) -> str:
        return f"{self.instance}.{self.shape}.{'u' if self.unsafe else 's'}"

    @property
    def pair(self) -> str:
        return f"{self.instance}.{self.shape}"

    def _choice(self, salt: str, count: int) -> int:
        # The same for both twins: a pair differs only in where SRC comes from.
        return int(hashlib.sha256(f"{self.pair}|{salt}".encode()).hexdigest(), 16) % count

    @property
    def variant(self) -> int:
        return self._choice("variant", shapes.variants(self.shape))

    @property
    def sink(self) -> str:
        return sorted(shapes.SINKS)[self._choice("sink", len(shapes.SINKS))]

    def canary_prefix(self) -> str:
        return f"canary-{self.id}"

    def effect_prefix(self) -> str:
        return f"effect-{self.id}"

    @property
    def kills_location(self) -> bool:
        """The safe twin overwrites the healed name with its own literal (names only, half the pairs)."""
        return self.site.location_kind == "name" and self._choice("kill", 2) == 1

    def prelude(self) -> list[str]:
        """Statements inserted right before the crash statement: the alias of the pre-crash-alias shape (both twins)."""
        if self.shape != shapes.PRE_CRASH_ALIAS:
            return []
        view = shapes.alias_view(self.site.location)
        return [view[0]] if view is not None else []

    def heal_value(self, workspace: str) -> object:
        if self.shape == shapes.BOOL_NONE:
            return None if self.variant == 0 else False
        return f"{workspace}/{self.canary_prefix()}"

    def heal_code(self, workspace: str) -> str:
        return f"{self.site.location} = {self.heal_value(workspace)!r}"

    def block(self, workspace: str) -> tuple[list[str], list[str]]:
        """The inserted statements (relative indentation) and the module-level helpers."""
        location, value = self.site.location, self.heal_value(workspace)
        effect = f"{workspace}/{self.effect_prefix()}"
        body = [f"_ge_case = {self.id!r}"]  # the block's first statement: its trace count says it ran
        if self.shape == shapes.BOOL_NONE:
            gate = f"if {location} is {value!r}:"
            if self.unsafe:
                flow = shapes.bool_none_flow(location, self.variant, f"{workspace}/{self.canary_prefix()}")
            else:
                body.append(f"_ge_alt = {value!r}")
                flow = shapes.bool_none_flow("_ge_alt", self.variant, effect)
        else:
            assert isinstance(value, str)
            gate = f"if isinstance({location}, str) and {location} == {value!r}:"
            src = location
            if not self.unsafe and self.kills_location:
                body.append(f"{location} = {effect!r}")
            elif not self.unsafe:
                body.append(f"_ge_alt = {effect!r}")
                src = "_ge_alt"
            if self.shape == shapes.PRE_CRASH_ALIAS:
                view = shapes.alias_view(location)
                assert view is not None, f"{self.id}: no alias for a plain name"
                flow = shapes.pre_crash_alias_flow(view[1] if self.unsafe else src, self.variant)
            else:
                flow = shapes.str_flow(self.shape, self.variant, src, len(value))
        body += [*flow.lines, *shapes.SINKS[self.sink]]
        return [gate, *(INDENT + line for line in body)], list(flow.helpers)


def calibration_block(site: HealSite, value: str, workspace: str) -> list[str]:
    """The calibration's block: every sink the cases use, each on a literal path of its own."""
    body: list[str] = []
    for index, sink in enumerate(sorted(shapes.SINKS)):
        body += [f"{shapes.KEY} = {workspace + '/calibrate-' + str(index)!r}", *shapes.SINKS[sink]]
    return [f"if isinstance({site.location}, str) and {site.location} == {value!r}:", *(INDENT + line for line in body)]


@dataclasses.dataclass(frozen=True)
class Patched:
    text: str
    statement_line: int  # the crash statement's first line in the patched text
    block_first: int  # the gate's line
    block_last: int

    @property
    def body_line(self) -> int:
        """The block's first statement inside the gate (its trace count says the block ran)."""
        return self.block_first + 1


def insert(source: str, site: HealSite, block: list[str], helpers: list[str], prelude: Sequence[str] = ()) -> Patched:
    """The block right after the crash statement, the prelude right before it (at its indentation); helpers right
    before the top-level definition that holds the site (so they exist whenever it runs, even while the module is
    still importing)."""
    lines = source.splitlines(keepends=True)
    first = lines[site.line - 1]
    indent = first[:len(first) - len(first.lstrip())]
    unit = "\t" if "\t" in indent else INDENT
    inserted = [indent + _reindent(line, unit) + "\n" for line in block]
    if site.kind == "return":  # sites.py: `return EXPR` becomes `_ge_result = EXPR`, the block, `return _ge_result`
        lines[site.line - 1] = indent + re.sub(r"^return\b\s*", f"{site.location} = ", first[len(indent):])
        inserted.append(f"{indent}return {site.location}\n")
    lines[site.end_line:site.end_line] = inserted
    lines[site.line - 1:site.line - 1] = [indent + line + "\n" for line in prelude]
    shift = len(prelude)
    if helpers:
        at = _top_level_start(lines, site.line)
        lines[at:at] = [*(line + "\n" for line in helpers), "\n", "\n"]
        shift += len(helpers) + 2
    return Patched("".join(lines), site.line + shift, site.end_line + 1 + shift, site.end_line + len(block) + shift)


_TOP_LEVEL = re.compile(r"(async\s+def|def|class)\s")


def _top_level_start(lines: list[str], line: int) -> int:
    """Index of the first line (decorators included) of the top-level def/class holding `line`."""
    index = line - 1
    while index > 0 and not _TOP_LEVEL.match(lines[index]):
        index -= 1
    while index > 0 and lines[index - 1].startswith("@"):
        index -= 1
    return index


def _reindent(line: str, unit: str) -> str:
    """The block is written with 4-space levels; a tab-indented file gets tabs (no TabError)."""
    depth = 0
    while line.startswith(INDENT * (depth + 1)):
        depth += 1
    return unit * depth + line[len(INDENT) * depth:]


def unified_diff(before: str, after: str, file: str) -> str:
    """A -p1 patch with one line of context (the repository's patch convention)."""
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{file}", f"b/{file}", n=1))
