"""AST rewrite of formatting in project modules, so heal labels survive it (HealGuard, dynamic).

The interpreter builds f-strings, `%` results, `.format`/`.join` results and `str()` values as
plain strings, dropping the label of a wrapped part. Each such expression becomes

    (<labelled version> if _healrt_taint else <original expression>)

where the labelled version calls taintops (`_healrt_t.fstr/fv/mod/item/call/cond/cond_attr`)
with the same operands, evaluated in the same order. `_healrt_taint` is a module global that is
False until the first heal is applied (guard.py flips it in every instrumented module), so before
any heal the cost is one global load and branch per rewritten expression, and the original code
runs. Only the outermost rewritten node is duplicated: the labelled copy rewrites everything
inside it, the original copy nothing.

Rewritten (Load context only, outside annotations):
- f-strings (JoinedStr), including nested ones and format specs;
- `a % b` (BinOp Mod);
- `x[key]` with a non-slice key (an item chosen by a labelled index is labelled);
- calls of the names in CALL_NAMES and of attributes in CALL_ATTRS;
- declared check conditions: a name, dotted attribute or item with a constant key (`SETTINGS['strict']`)
  declared by the policy, read in a branch test (if/while/assert/conditional expression/comprehension
  filter/match guard).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
from typing import Any, Sequence

FLAG = "_healrt_taint"
OPS = "_healrt_t"
VERSION = 2

CALL_NAMES = frozenset({
    "str", "repr", "ascii", "format", "int", "float", "bytes", "Path", "PurePath", "PosixPath",
    "PurePosixPath", "join", "normpath", "abspath", "realpath", "dumps", "quote", "fspath",
})
CALL_ATTRS = frozenset({
    "format", "format_map", "join", "replace", "dumps", "quote", "quote_plus", "urlencode", "urljoin",
    "normpath", "abspath", "realpath", "relpath", "expanduser", "expandvars", "dirname", "basename",
    "fspath", "fsencode", "fsdecode", "Path", "PurePath", "joinpath", "with_name", "with_suffix",
    "with_stem", "as_posix", "encode", "decode",
})


class Check:
    """A declared check condition: what it reads (canonical_check's text), and optionally the only
    module it is in."""

    def __init__(self, reads: str, module: str | None) -> None:
        self.reads = reads
        self.module = module


# Characters a check's item key may not hold: the canonical text quotes it with `"` and has no escapes,
# so the policy, healrt and the static stage all spell one key one way.
_KEY_UNSAFE = frozenset('\\"\'')


def check_text(node: ast.expr) -> str | None:
    """The canonical text of what a branch test reads: `NAME`, `owner.attr` or `owner["key"]` /
    `owner[3]` (a constant str or int key); None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = check_text(node.value)
        return None if owner is None else f"{owner}.{node.attr}"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        owner, key = check_text(node.value), node.slice.value
        if owner is None:
            return None
        if isinstance(key, str) and not _KEY_UNSAFE.intersection(key):
            return f'{owner}["{key}"]'
        if type(key) is int:
            return f"{owner}[{key}]"
    return None


def canonical_check(text: str) -> str:
    """A policy's check text in canonical form (either quote style, any spacing); ValueError otherwise."""
    try:
        node: ast.expr | None = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        node = None
    canonical = None if node is None else check_text(node)
    if canonical is None:
        raise ValueError(f"check {text!r} must be a name, a dotted attribute or an item with a constant str or int "
                         "key (no quotes or backslashes in the key), such as SETTINGS['strict']")
    return canonical


class FormatRewriter:
    def __init__(self, checks: Sequence[Check] = ()) -> None:
        self.checks = tuple(checks)
        digest = hashlib.sha256(json.dumps([[c.reads, c.module] for c in self.checks]).encode()).hexdigest()
        # Part of the compiled-code cache key: the rewrite's output depends on the declared checks.
        self.key = f"fmt{VERSION}:{digest[:16]}"

    def transform(self, tree: ast.Module, module: str) -> ast.Module:
        checks = {c.reads: index for index, c in enumerate(self.checks) if c.module in (None, module)}
        return _Rewrite(checks, guarded=True).visit(tree)


def _has_slice(node: ast.expr) -> bool:
    return isinstance(node, ast.Slice) or (isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts))


def _ops(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name(OPS, ast.Load()), name, ast.Load())


def _locate(new: ast.AST, like: ast.AST) -> ast.AST:
    """Generated nodes take the original expression's position (tracebacks, crash sites)."""
    for node in ast.walk(new):
        if isinstance(node, (ast.expr, ast.keyword)) and not hasattr(node, "lineno"):
            ast.copy_location(node, like)
    return new


class _Rewrite(ast.NodeTransformer):
    def __init__(self, checks: dict[str, int], guarded: bool) -> None:
        self._checks = checks
        self._guarded = guarded
        self._in_test = False

    # ------------------------------------------------------------ what is rewritten

    def _kind(self, node: ast.AST) -> str | None:
        # First: a declared item read (`SETTINGS['strict']`) is a check condition, not only an item.
        if self._in_test and self._checks and isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) \
                and isinstance(node.ctx, ast.Load) and check_text(node) in self._checks:
            last = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
            if not (last.startswith("__") and not last.endswith("__")):  # private names are mangled
                return "cond"
        if isinstance(node, ast.JoinedStr):
            return "fstr"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return "mod"
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and not _has_slice(node.slice):
            return "item"
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id in CALL_NAMES) or (
                    isinstance(func, ast.Attribute) and func.attr in CALL_ATTRS):
                return "call"
        return None

    def visit(self, node: ast.AST) -> Any:
        kind = self._kind(node)
        if kind is None:
            return super().visit(node)
        if self._guarded:
            labelled = _Rewrite(self._checks, guarded=False)
            labelled._in_test = self._in_test
            test = ast.Name(FLAG, ast.Load())
            return _locate(ast.IfExp(test=test, body=labelled.visit(copy.deepcopy(node)), orelse=node), node)
        if kind != "cond":
            self.generic_visit(node)
        return _locate(self._labelled(kind, node), node)

    def _labelled(self, kind: str, node: Any) -> ast.expr:
        if kind == "fstr":
            parts: list[ast.expr] = []
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    spec = value.format_spec if value.format_spec is not None else ast.Constant("")
                    parts.append(_locate(ast.Call(_ops("fv"), [value.value, ast.Constant(value.conversion), spec], []), value))
                else:
                    parts.append(value)
            return ast.Call(_ops("fstr"), parts, [])
        if kind == "mod":
            return ast.Call(_ops("mod"), [node.left, node.right], [])
        if kind == "item":
            return ast.Call(_ops("item"), [node.value, node.slice], [])
        if kind == "call":
            return ast.Call(_ops("call"), [node.func, *node.args], node.keywords)
        index = ast.Constant(self._checks[check_text(node)])
        if isinstance(node, ast.Name):
            return ast.Call(_ops("cond"), [index, node, ast.Constant(node.id)], [])
        if isinstance(node, ast.Subscript):
            return ast.Call(_ops("cond_item"), [index, node.value, node.slice], [])
        return ast.Call(_ops("cond_attr"), [index, node.value, ast.Constant(node.attr)], [])

    # ------------------------------------------------------------ branch tests and annotations

    def _test(self, node: ast.expr) -> Any:
        outer, self._in_test = self._in_test, True
        try:
            return self.visit(node)
        finally:
            self._in_test = outer

    def _plain(self, node: ast.expr) -> Any:
        outer, self._in_test = self._in_test, False
        try:
            return self.visit(node)
        finally:
            self._in_test = outer

    def _body(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        return [self.visit(stmt) for stmt in stmts]

    def visit_If(self, node: ast.If) -> ast.If:
        node.test = self._test(node.test)
        node.body, node.orelse = self._body(node.body), self._body(node.orelse)
        return node

    visit_While = visit_If  # type: ignore[assignment]

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        node.test = self._test(node.test)
        if node.msg is not None:
            node.msg = self._plain(node.msg)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.IfExp:
        node.test = self._test(node.test)
        node.body, node.orelse = self._plain(node.body), self._plain(node.orelse)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.comprehension:
        node.iter = self._plain(node.iter)
        node.ifs = [self._test(test) for test in node.ifs]
        return node

    def visit_match_case(self, node: ast.match_case) -> ast.match_case:
        if node.guard is not None:
            node.guard = self._test(node.guard)
        node.body = self._body(node.body)
        return node

    def _function(self, node: Any) -> Any:
        node.decorator_list = [self._plain(d) for d in node.decorator_list]
        node.args = self._arguments(node.args)
        node.body = self._body(node.body)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        node.args = self._arguments(node.args)
        node.body = self._plain(node.body)
        return node

    def _arguments(self, args: ast.arguments) -> ast.arguments:
        # Defaults are evaluated; annotations are left exactly as written.
        args.defaults = [self._plain(d) for d in args.defaults]
        args.kw_defaults = [None if d is None else self._plain(d) for d in args.kw_defaults]
        return args

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        node.target = self._plain(node.target)
        if node.value is not None:
            node.value = self._plain(node.value)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        node.decorator_list = [self._plain(d) for d in node.decorator_list]
        node.bases = [self._plain(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        node.body = self._body(node.body)
        return node
