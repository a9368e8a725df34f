"""The injected tier's miner: bug-introducing mutations modelled on real crash causes.

Sites are found on the AST; the edit itself is textual and touches only the mutated line(s), so
the bug patch is as small as the bug (difflib, 1 line of context). One `Mutant` is one edit of
one file; `enumerate_mutants` lists every site of every operator in a subject's project code.

Operators (docs/dataset.md §6):
- removed-none-guard: `if x is None: <exit>` deleted, `if x is not None:` unwrapped,
  `a if x is not None else b` -> `a`;
- removed-emptiness-guard: `if not x: <exit>` / `if len(x) == 0: <exit>` deleted;
- get-to-subscript: `m.get(k[, d])` -> `m[k]`;
- off-by-one-index: `s[i]` -> `s[i + 1]` (`s[n - 1]` -> `s[n]`), `s[:n]` -> `s[:n + 1]`,
  `range(len(s))` -> `range(len(s) + 1)`;
- dropped-conversion: `int(x)`, `float(x)`, `str(x)`, `list(x)`, ... -> `x`;
- renamed-attribute: `self.items` -> `self.item` (an attribute name the file never mentions);
- swapped-arguments: `f(a, b, ...)` -> `f(b, a, ...)`;
- wrong-container-type: `{}` -> `[]`, `[]` -> `()`, `set()` -> `[]`, `[e for ...]` -> `(e for ...)`.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import hashlib
import io
import keyword
import re
import tokenize
from pathlib import Path
from typing import Callable, Iterator

from . import healrt_module

OPERATORS = (
    "removed-none-guard", "removed-emptiness-guard", "get-to-subscript", "off-by-one-index",
    "dropped-conversion", "renamed-attribute", "swapped-arguments", "wrong-container-type",
)

# An exit statement: what a guard does when it fires (a `return`, `raise`, loop jump, or a
# default assignment). Guards with bigger bodies are real logic, not a guard.
_GUARD_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break, ast.Assign, ast.AugAssign, ast.Pass)
_CONVERSIONS = {"int", "float", "str", "bytes", "list", "tuple", "set", "dict", "frozenset", "bool",
                "sorted", "Decimal", "Fraction"}
# Calls whose first two arguments commute or that only log: swapping them is not a bug.
_COMMUTATIVE = {"max", "min", "print", "zip", "set", "frozenset", "hash", "id", "sum", "any", "all",
                "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "write",
                "join", "union", "intersection", "update", "extend", "gcd", "lcm", "hypot", "isclose",
                "assertEqual", "assertTrue", "assertIn", "fail", "format", "encode", "decode"}
_EMPTY_COLLECTIONS = (ast.List, ast.Tuple, ast.Dict, ast.Set)


@dataclasses.dataclass(frozen=True)
class Mutant:
    file: str           # relative to the subject root, '/'-separated
    start: int          # first replaced line, 1-based
    end: int            # last replaced line, inclusive
    new: str            # the replacement text of lines start..end ('' deletes them)
    operator: str
    function: str       # qualified name of the enclosing function ('<module>' at top level)
    summary: str        # what changed, for the instance's description

    @property
    def key(self) -> str:
        """Stable across processes (unlike hash()), so a mutant's cached runs can be found again."""
        digest = hashlib.sha256(f"{self.file}\0{self.start}\0{self.end}\0{self.new}".encode()).hexdigest()
        return f"{self.file}:{self.start}:{self.operator}:{digest[:12]}"

    def apply(self, source: str) -> str:
        lines = source.splitlines(keepends=True)
        return "".join(lines[: self.start - 1]) + self.new + "".join(lines[self.end:])

    def describe(self) -> str:
        where = "module level" if self.function == "<module>" else self.function
        return f"In {where} ({self.file}:{self.start}), {self.summary}."


def bug_patch(mutant: Mutant, source: str) -> str:
    """The unified diff (-p1, a/ b/ paths relative to the subject root, 1 line of context)."""
    old = source.splitlines(keepends=True)
    new = mutant.apply(source).splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"a/{mutant.file}", f"b/{mutant.file}", n=1))


# --- which files -------------------------------------------------------------------------------

def project_files(root: Path, project_roots: list[str]) -> list[str]:
    """The project's own .py files (relative to root) that healrt instruments: tests, docs,
    examples and vendored code are left out, as healrt leaves them uninstrumented."""
    excluded = healrt_module("intercept").not_instrumented_reason  # it decides what is instrumented
    found = []
    for project_root in project_roots:
        top = root / project_root
        paths = [top] if top.is_file() else sorted(top.rglob("*.py"))
        for path in paths:
            relative = path.relative_to(root).as_posix()
            # The reason is judged relative to the directory the top-level module sits in, as
            # healrt judges it relative to its source_dir.
            inner = relative[len(project_root) - len(Path(project_root).name):]
            if path.suffix == ".py" and excluded(inner) is None:
                found.append(relative)
    return found


def enumerate_mutants(root: Path, project_roots: list[str], operators: tuple[str, ...] = OPERATORS) -> list[Mutant]:
    mutants = []
    for relative in project_files(root, project_roots):
        try:
            source = (root / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        mutants.extend(mutants_in_source(source, relative, operators))
    return mutants


# --- the sites ---------------------------------------------------------------------------------

def mutants_in_source(source: str, file: str, operators: tuple[str, ...] = OPERATORS) -> list[Mutant]:
    """Every mutant of one file whose result still parses (a mutant must be a bug, not a syntax error)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    finder = _Sites(source, file, tree)
    found = []
    for operator in operators:
        for mutant in _FINDERS[operator](finder):
            # A replaced expression is the text of another valid expression, so the file still
            # parses; a deleted or dedented block may not (and parsing per mutant is the slow part).
            if mutant is not None and (mutant.start == mutant.end and mutant.new or _parses(mutant.apply(source))):
                found.append(mutant)
    return list({(m.file, m.start, m.end, m.new): m for m in found}.values())


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
        return True
    except SyntaxError:
        return False


class _Sites:
    """One parsed file: its lines, each node's enclosing function, and text edits by position."""

    def __init__(self, source: str, file: str, tree: ast.Module) -> None:
        self.source = source
        self.file = file
        self.tree = tree
        self.lines = source.splitlines(keepends=True)
        self._encoded: dict[int, bytes] = {}
        self.function_of: dict[int, str] = {}
        self.parent: dict[int, ast.AST] = {}
        self.in_annotation: set[int] = set()
        self._walk(tree, "<module>")
        self.words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
        self.comment_lines = _comment_lines(source)

    def _walk(self, node: ast.AST, function: str, prefix: str = "") -> None:
        for child in ast.iter_child_nodes(node):
            self.parent[id(child)] = node
            self.function_of[id(child)] = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._walk(child, prefix + child.name, prefix + child.name + ".<locals>.")
                for annotation in _annotations(child):
                    for sub in ast.walk(annotation):
                        self.in_annotation.add(id(sub))
            elif isinstance(child, ast.ClassDef):
                self._walk(child, function, prefix + child.name + ".")
            else:
                if isinstance(child, ast.AnnAssign):
                    for sub in ast.walk(child.annotation):
                        self.in_annotation.add(id(sub))
                self._walk(child, function, prefix)

    def nodes(self, kind: type | tuple[type, ...]) -> Iterator:
        for node in ast.walk(self.tree):
            if isinstance(node, kind) and id(node) not in self.in_annotation and id(node) in self.function_of:
                yield node

    def function(self, node: ast.AST) -> str:
        return self.function_of.get(id(node), "<module>")

    def text(self, node: ast.AST) -> str:
        """A node's source text (ast.get_source_segment re-splits the whole file on every call)."""
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if first == last:
            return self.encoded(first)[node.col_offset: node.end_col_offset].decode("utf-8")
        head = self.encoded(first)[node.col_offset:].decode("utf-8")
        tail = self.encoded(last)[: node.end_col_offset].decode("utf-8")
        return head + "".join(self.lines[first + 1: last]) + tail

    def encoded(self, index: int) -> bytes:
        """A line as UTF-8: AST column offsets count bytes."""
        if index not in self._encoded:
            self._encoded[index] = self.lines[index].encode("utf-8")
        return self._encoded[index]

    def replace(self, node: ast.AST, new: str, operator: str, summary: str) -> Mutant | None:
        """Replace one single-line node's text (columns are UTF-8 byte offsets in the AST)."""
        if node.lineno != node.end_lineno or node.lineno in self.comment_lines:
            return None
        line = self.encoded(node.lineno - 1)
        edited = line[: node.col_offset] + new.encode("utf-8") + line[node.end_col_offset:]
        return Mutant(self.file, node.lineno, node.lineno, edited.decode("utf-8"), operator,
                      self.function(node), summary)

    def whole_lines(self, stmt: ast.stmt) -> bool:
        """The statement alone owns its lines (no `a; if ...` or trailing siblings on them)."""
        block = _block_of(self.parent.get(id(stmt)), stmt)
        if block is None or len(block) < 2:
            return False  # deleting the only statement of a block would leave it empty
        index = block.index(stmt)
        before = block[index - 1].end_lineno if index else 0
        after = block[index + 1].lineno if index + 1 < len(block) else None
        return (before or 0) < stmt.lineno and (after is None or after > (stmt.end_lineno or 0))

    def delete(self, stmt: ast.stmt, operator: str, summary: str) -> Mutant | None:
        if not self.whole_lines(stmt):
            return None
        return Mutant(self.file, stmt.lineno, stmt.end_lineno or stmt.lineno, "", operator,
                      self.function(stmt), summary)

    def unwrap(self, stmt: ast.If, operator: str, summary: str) -> Mutant | None:
        """Drop an `if` header and dedent its body by one level."""
        if stmt.orelse or stmt.test.end_lineno != stmt.lineno or stmt.body[0].lineno == stmt.lineno:
            return None
        header = self.lines[stmt.lineno - 1]
        # An `elif`'s body dedented would land after the whole `if` chain: another program, not
        # a missing guard.
        if not header.rstrip().endswith(":") or header.lstrip().startswith("elif"):
            return None
        body_lines = self.lines[stmt.lineno: stmt.end_lineno]
        indent = body_lines[0][: len(body_lines[0]) - len(body_lines[0].lstrip())]
        outer = header[: len(header) - len(header.lstrip())]
        if not indent.startswith(outer) or indent == outer \
                or self.string_lines() & set(range(stmt.lineno + 1, (stmt.end_lineno or 0) + 1)):
            return None
        cut = len(indent) - len(outer)
        dedented = []
        for line in body_lines:
            if line.strip() and not line.startswith(indent):
                return None
            dedented.append(line[cut:] if line.strip() else line)
        return Mutant(self.file, stmt.lineno, stmt.end_lineno or stmt.lineno, "".join(dedented),
                      operator, self.function(stmt), summary)

    def string_lines(self) -> set[int]:
        """Lines inside multi-line string literals: dedenting them would change the string."""
        if not hasattr(self, "_string_lines"):
            spans = set()
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.lineno != node.end_lineno:
                    spans.update(range(node.lineno + 1, (node.end_lineno or node.lineno) + 1))
            self._string_lines = spans
        return self._string_lines


def _annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    found = [arg.annotation for arg in every if arg is not None and arg.annotation is not None]
    return found + ([function.returns] if function.returns is not None else [])


def _block_of(parent: ast.AST | None, stmt: ast.stmt) -> list[ast.stmt] | None:
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and stmt in block:
            return block
    return None


def _comment_lines(source: str) -> set[int]:
    """Lines with a comment: a column edit there is safe, but a stray '#' in an f-string is not;
    simply leave such lines alone."""
    lines = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and token.start[1] > 0:
                lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    return lines


def _is_guard_body(body: list[ast.stmt]) -> bool:
    return len(body) == 1 and isinstance(body[0], _GUARD_EXITS)


def _compare_none(test: ast.expr, op: type) -> ast.expr | None:
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return test.left
    return None


def _emptiness_subject(test: ast.expr) -> ast.expr | None:
    """x for `not x`, `len(x) == 0`, `len(x) < 1`, `x == ''`/`[]`/`()`/`{}`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) \
            and isinstance(test.operand, (ast.Name, ast.Attribute, ast.Subscript)):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" \
                and len(left.args) == 1 and isinstance(right, ast.Constant) \
                and ((isinstance(op, ast.Eq) and right.value == 0) or (isinstance(op, ast.Lt) and right.value == 1)):
            return left.args[0]
        if isinstance(op, ast.Eq) and (isinstance(right, _EMPTY_COLLECTIONS) and not _elements(right)
                                       or isinstance(right, ast.Constant) and right.value in ("", b"")):
            return left
    return None


def _elements(node: ast.expr) -> list:
    return getattr(node, "elts", None) or getattr(node, "keys", None) or []


def _removed_none_guard(sites: _Sites) -> Iterator[Mutant | None]:
    op = "removed-none-guard"
    for node in sites.nodes(ast.If):
        subject = _compare_none(node.test, ast.Is)
        if subject is not None and not node.orelse and _is_guard_body(node.body):
            yield sites.delete(node, op, f"the guard `if {sites.text(subject)} is None:` was removed, "
                                         f"so a None {sites.text(subject)} flows on")
        subject = _compare_none(node.test, ast.IsNot)
        if subject is not None:
            yield sites.unwrap(node, op, f"the check `if {sites.text(subject)} is not None:` was removed "
                                         f"and its body now runs unconditionally")
    for node in sites.nodes(ast.IfExp):
        subject = _compare_none(node.test, ast.IsNot)
        if subject is not None:
            yield sites.replace(node, sites.text(node.body), op,
                                f"`{sites.text(node)}` lost its None check and became `{sites.text(node.body)}`")


def _removed_emptiness_guard(sites: _Sites) -> Iterator[Mutant | None]:
    op = "removed-emptiness-guard"
    for node in sites.nodes(ast.If):
        subject = _emptiness_subject(node.test)
        if subject is not None and not node.orelse and _is_guard_body(node.body):
            yield sites.delete(node, op, f"the emptiness guard `if {sites.text(node.test)}:` was removed, "
                                         f"so an empty {sites.text(subject)} is used as if it had items")


def _get_to_subscript(sites: _Sites) -> Iterator[Mutant | None]:
    for node in sites.nodes(ast.Call):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "get" and 1 <= len(node.args) <= 2
                and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            continue
        receiver = sites.text(func.value)
        # `self.get`/`super().get` are the class's own API; os.environ depends on the machine.
        if receiver in ("self", "cls", "super()") or "environ" in receiver:
            continue
        key = sites.text(node.args[0])
        yield sites.replace(node, f"{receiver}[{key}]", "get-to-subscript",
                            f"`{sites.text(node)}` became `{receiver}[{key}]`, so a missing key "
                            f"raises instead of falling back to a default")


def _off_by_one_index(sites: _Sites) -> Iterator[Mutant | None]:
    op = "off-by-one-index"
    for node in sites.nodes(ast.Subscript):
        index = node.slice
        if not isinstance(node.ctx, ast.Load) or _looks_like_type(sites.text(node.value)):
            continue
        if isinstance(index, ast.Slice):
            # `s[:n]` -> `s[:n + 1]`: one item too many, the classic cause of a failed unpacking.
            if index.upper is None or index.step is not None:
                continue
            upper = _one_more(sites, index.upper)
            if upper is None:
                continue
            lower = sites.text(index.lower) if index.lower is not None else ""
            new_index = f"{lower}:{upper}"
        else:
            new_index = _one_more(sites, index)
            if new_index is None:
                continue
        new = f"{sites.text(node.value)}[{new_index}]"
        yield sites.replace(node, new, op, f"the index in `{sites.text(node)}` is off by one (`{new}`)")
    for node in sites.nodes(ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "range" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Call) and isinstance(node.args[0].func, ast.Name) \
                and node.args[0].func.id == "len":
            new = f"range({sites.text(node.args[0])} + 1)"
            yield sites.replace(node, new, op, f"`{sites.text(node)}` became `{new}`, one index past the end")


def _one_more(sites: _Sites, index: ast.expr) -> str | None:
    """The text of an index one step further: `0` -> `1`, `-1` -> `-2`, `n - 1` -> `n`, `i` -> `i + 1`."""
    if isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0:
        return str(index.value + 1)
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) \
            and isinstance(index.operand, ast.Constant) and type(index.operand.value) is int:
        return f"-{index.operand.value + 1}"
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub) \
            and isinstance(index.right, ast.Constant) and index.right.value == 1:
        return sites.text(index.left)
    if isinstance(index, (ast.Name, ast.Attribute, ast.BinOp)):
        return f"{sites.text(index)} + 1"
    return None


def _looks_like_type(text: str) -> bool:
    """`List[int]`, `typing.Optional[X]`: subscripts that are types, not indexing."""
    last = text.rsplit(".", 1)[-1]
    return text.startswith("typing.") or (last[:1].isupper() and not last.isupper())


def _dropped_conversion(sites: _Sites) -> Iterator[Mutant | None]:
    for node in sites.nodes(ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        limit = 2 if name == "int" else 1
        if name not in _CONVERSIONS or not 1 <= len(node.args) <= limit or node.keywords \
                or isinstance(node.args[0], ast.Starred):
            continue
        arg = node.args[0]
        inner = sites.text(arg)
        if isinstance(arg, (ast.Constant, ast.JoinedStr)) or isinstance(arg, (ast.GeneratorExp,)):
            continue  # int('3') -> '3' is not a plausible slip; list(x for x in y) is not a conversion
        atomic = isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Tuple, ast.Dict))
        new = inner if atomic else f"({inner})"
        yield sites.replace(node, new, "dropped-conversion",
                            f"the conversion `{sites.text(node)}` was dropped, leaving the unconverted `{inner}`")


def _renamed_attribute(sites: _Sites) -> Iterator[Mutant | None]:
    """A read of an attribute the file itself assigns (`self.x = ...` somewhere), renamed as a
    refactoring would leave one stale reference: the common shape of a real AttributeError."""
    assigned = {node.attr for node in ast.walk(sites.tree)
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    for node in sites.nodes(ast.Attribute):
        if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Name) \
                or node.attr not in assigned or node.attr.startswith("__"):
            continue
        text = sites.text(node)
        if not text.endswith(node.attr):
            continue
        for renamed in _renames(node.attr):
            if renamed not in sites.words and not keyword.iskeyword(renamed):
                new = text[: -len(node.attr)] + renamed
                yield sites.replace(node, new, "renamed-attribute",
                                    f"`{text}` was renamed to `{new}`, an attribute that does not exist")
                break


def _renames(attr: str) -> list[str]:
    """Plausible stale names after a rename: plural/singular, a dropped leading underscore."""
    names = [attr[:-1] if attr.endswith("s") and len(attr) > 2 else attr + "s"]
    if attr.startswith("_") and len(attr) > 2:
        names.append(attr[1:])
    return names


def _swapped_arguments(sites: _Sites) -> Iterator[Mutant | None]:
    for node in sites.nodes(ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if len(node.args) < 2 or name in _COMMUTATIVE or any(isinstance(a, ast.Starred) for a in node.args[:2]):
            continue
        first, second = node.args[0], node.args[1]
        if all(isinstance(a, ast.Constant) for a in (first, second)) or sites.text(first) == sites.text(second):
            continue
        if first.lineno != second.lineno or node.lineno != node.end_lineno:
            continue
        line = sites.encoded(node.lineno - 1)
        a, b = sites.text(first).encode(), sites.text(second).encode()
        # Swap the two argument texts in place, keeping the separator between them as written.
        edited = (line[: first.col_offset] + b + line[first.end_col_offset: second.col_offset] + a
                  + line[second.end_col_offset:])
        if node.lineno in sites.comment_lines:
            continue
        yield Mutant(sites.file, node.lineno, node.lineno, edited.decode("utf-8"), "swapped-arguments",
                     sites.function(node), f"the arguments `{a.decode()}` and `{b.decode()}` of "
                                           f"`{name or sites.text(func)}(...)` were swapped")


def _wrong_container_type(sites: _Sites) -> Iterator[Mutant | None]:
    op = "wrong-container-type"
    for node in sites.nodes((ast.Assign, ast.AnnAssign)):
        value = node.value
        if value is None:
            continue
        new = None
        if isinstance(value, ast.Dict) and not value.keys:
            new = "[]"
        elif isinstance(value, ast.List) and not value.elts:
            new = "()"
        elif isinstance(value, ast.ListComp):
            new = "(" + sites.text(value)[1:-1] + ")"
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.keywords \
                and len(value.args) <= 1 and value.func.id in ("dict", "set", "list"):
            replacement = {"dict": "list", "set": "list", "list": "tuple"}[value.func.id]
            new = replacement + sites.text(value)[len(value.func.id):]
        if new is not None:
            yield sites.replace(value, new, op, f"`{sites.text(value)}` became `{new}`, the wrong container type")


_FINDERS: dict[str, Callable[[_Sites], Iterator[Mutant | None]]] = {
    "removed-none-guard": _removed_none_guard,
    "removed-emptiness-guard": _removed_emptiness_guard,
    "get-to-subscript": _get_to_subscript,
    "off-by-one-index": _off_by_one_index,
    "dropped-conversion": _dropped_conversion,
    "renamed-attribute": _renamed_attribute,
    "swapped-arguments": _swapped_arguments,
    "wrong-container-type": _wrong_container_type,
}


def module_name(relative: str, project_root: str) -> str:
    """The dotted module name of a project file (`email/_header_value_parser.py` -> `email._header_value_parser`)."""
    base = relative[len(project_root) - len(Path(project_root).name):]
    parts = base.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def root_of(relative: str, project_roots: list[str]) -> str | None:
    for project_root in project_roots:
        root = project_root.rstrip("/")
        if relative == root or relative.startswith(root + "/"):
            return root
    return None
