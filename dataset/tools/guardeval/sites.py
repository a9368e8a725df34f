"""The heal site of an instance: where BUGGY first pauses, and the location a simple heal writes.

A simple heal writes a default into the location that failed and resumes with `skip`:
- an assignment (`x = ...`, `self.a = ...`, `d[k] = ...`, `x += ...`, `a, b = ...`): its (first)
  target, the value the statement failed to compute;
- an expression statement or `raise`: the first local name the statement reads whose value is
  data (str, numbers, containers, ...), the input that failed; else any local it reads; else the
  first attribute of `self` it reads; else (`raise E('text')`) a local of the frame, data first.
- `return EXPR`: a skip there returns from the function at once, so the case patch splits it into
  `_ge_result = EXPR`, the case's block, `return _ge_result`; the heal writes `_ge_result`.
Sites where a flow cannot follow the statement are refused, with the reason: other statements,
code outside a function, a statement that does not start its line or shares its last line with
other code (the inserted flow must be a block of its own).
"""

from __future__ import annotations

import ast
import dataclasses
import os
from typing import Any

_TARGET_KINDS = ("assign", "annassign", "augassign")
# A `return EXPR` site: the patch splits it into `RESULT = EXPR`, the case's block, `return RESULT`
# (a skip at a return returns at once); the heal writes RESULT, the value the statement failed to compute.
RESULT = "_ge_result"
_READ_KINDS = ("expr", "raise")
_DATA_TYPES = {"str", "bytes", "int", "float", "bool", "NoneType", "list", "dict", "tuple", "set", "bytearray"}


@dataclasses.dataclass(frozen=True)
class HealSite:
    file: str  # relative to the workspace's source_dir
    line: int
    end_line: int
    col: int
    kind: str
    function: str
    location: str  # the heal's target, as source: `x`, `self.attr`, `d[k]`
    location_kind: str  # name | attr | item

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HealSite:
        return cls(**data)


class SiteRefused(ValueError):
    """The first crash is not a site the suite can build cases on; the message says why."""


def choose_site(context: dict[str, Any], source_dir: str) -> HealSite:
    statement = context.get("statement") or {}
    path = str(statement.get("file") or "")
    relative = os.path.relpath(path, source_dir) if path else ""
    if not path or relative.startswith(".."):
        raise SiteRefused(f"first pause outside the project sources ({path or 'no file'})")
    if not context.get("in_function"):
        raise SiteRefused("first pause outside a function")
    kind = str(statement.get("kind"))
    try:
        node = ast.parse(str(statement.get("source", ""))).body[0]
    except (SyntaxError, IndexError):
        raise SiteRefused(f"statement does not parse alone: {statement.get('source')!r}") from None
    if kind in _TARGET_KINDS:
        location = _target_location(node)
    elif kind in _READ_KINDS:
        location = _read_location(node, context.get("locals") or [])
    elif kind == "return" and isinstance(node, ast.Return) and node.value is not None:
        location = ast.Name(RESULT)  # the case patch makes it `RESULT = EXPR ... return RESULT`
    else:
        raise SiteRefused(f"a `{kind}` statement: a skip there does not continue after it")
    _check_block_of_its_own(path, statement)
    frames = [frame for frame in context.get("traceback") or [] if frame.get("project")] or [{}]
    return HealSite(file=relative, line=int(statement["line"]), end_line=int(statement["end_line"]),
                    col=int(statement["col"]), kind=kind, function=str(frames[-1].get("qualname") or ""),
                    location=ast.unparse(location), location_kind=_location_kind(location))


def _target_location(node: ast.stmt) -> ast.expr:
    if isinstance(node, ast.Assign):
        target = node.targets[0]
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        target = node.target
    else:
        raise SiteRefused(f"not an assignment: {ast.unparse(node)!r}")
    if isinstance(target, (ast.Tuple, ast.List)):
        names = [element for element in target.elts if isinstance(element, ast.Name)]
        if not names:
            raise SiteRefused(f"no plain name among the targets of {ast.unparse(node)!r}")
        target = names[0]
    if not _writable(target):
        raise SiteRefused(f"target {ast.unparse(target)!r} is not a name, attribute or item of a name")
    return target


def _writable(target: ast.expr) -> bool:
    """A name, or an attribute/item (simple key) of a chain of names and attributes."""
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, ast.Attribute):
        return _name_chain(target.value)
    if isinstance(target, ast.Subscript):
        key = target.slice
        simple_key = isinstance(key, ast.Name) or (isinstance(key, ast.Constant) and isinstance(key.value, (str, int)))
        return simple_key and _name_chain(target.value)
    return False


def _name_chain(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _read_location(node: ast.stmt, local_values: list[dict[str, Any]]) -> ast.expr:
    types = {entry.get("name"): entry.get("type") for entry in local_values}
    reads = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)),
                   key=lambda n: (n.lineno, n.col_offset))
    # Any local but the receiver and imported modules; data values (the likely failing input) first.
    candidates = [n for n in reads if n.id in types and n.id not in ("self", "cls") and types[n.id] != "module"]
    if candidates:
        data = [n for n in candidates if types[n.id] in _DATA_TYPES]
        return (data or candidates)[0]
    # Only the receiver is read: its first attribute the statement reads (`self.msg`).
    attributes = sorted((n for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
                         and isinstance(n.value, ast.Name) and n.value.id == "self" and "self" in types),
                        key=lambda n: (n.lineno, n.col_offset))
    if attributes:
        return attributes[0]
    # It reads nothing of the frame (`raise E('literal')`): a data local of the frame, else any local.
    frame_locals = [name for name, kind in types.items() if name not in ("self", "cls") and kind != "module"]
    preferred = [name for name in frame_locals if types[name] in _DATA_TYPES] or frame_locals
    if not preferred:
        raise SiteRefused(f"no local value to heal at {ast.unparse(node)!r}")
    return ast.Name(preferred[0])


def _location_kind(location: ast.expr) -> str:
    if isinstance(location, ast.Attribute):
        return "attr"
    if isinstance(location, ast.Subscript):
        return "item"
    return "name"


def _check_block_of_its_own(path: str, statement: dict[str, Any]) -> None:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    first, last = lines[statement["line"] - 1], lines[statement["end_line"] - 1]
    col = int(statement["col"])
    if first[:col].strip() or len(first) - len(first.lstrip()) != col:
        raise SiteRefused("the statement does not start its line")
    rest = last.encode("utf-8")[int(statement["end_col"]):].decode("utf-8", "replace").strip()
    if rest and not rest.startswith("#"):
        raise SiteRefused(f"code follows the statement on its last line: {rest!r}")
