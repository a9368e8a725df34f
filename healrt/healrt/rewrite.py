"""AST rewriting of a project module: wrap every executable simple statement in a crash handler.

Each wrapped statement becomes (locations copied from the original, so tracebacks are unchanged):

    _healrt_hits[SITE] += 1                        # only at the head of a block (below)
    while True:
        try:
            STMT
        except BaseException:
            match _healrt_rt.handle(SITE):
                case 0: raise                      # not healed: propagate untouched
                case 1: continue                   # retry
                case 3: return _healrt_rt.return_value()   # only where `return` is legal
        break

SITE is the site's place in its module (its id minus the id of the module's first site): the
loader gives each module its own `_healrt_hits` and a `_healrt_rt` that adds the module's first id
back, so the code does not depend on what was instrumented before it, and a cached rewrite serves
a run that imports other (or changed) modules first (codecache.py).

The handler binds no name (no `as`, literal `case` patterns only), so class bodies and module
namespaces are not polluted. `return EXPR` becomes a wrapped `_return_ = EXPR` followed by
`return _return_`; functions containing one pre-bind `_return_ = None` so that `skip` at a return
site returns whatever the heal left in the slot.

The test of an `if` (or `elif`, an `If` in `orelse`) is a site of its own (kind "if", located at
the test expression): it is evaluated, truth value included, by a wrapped assignment to a hidden
slot, and the `if` branches on the slot:

    while True:                                    # wrapped as above, plus:
        try:
            _healrt_cond = True if TEST else False # TEST's __bool__ runs here, once, as in `if TEST:`
        except BaseException:
            match _healrt_rt.handle(SITE):
                ...
                case 2: _healrt_cond = None        # skip: neither branch runs
        break
    if _healrt_cond:
        BODY
    elif _healrt_cond is not None:                 # only when there is an ORELSE
        ORELSE

so `skip` continues after the whole if/elif/else statement (at an `elif`, after the rest of the
chain), `retry` evaluates the test again and `return` returns. The slot's value is used at once,
before anything else runs, so one name serves every `if`: a fast local in functions, the
module's global at module level and in class bodies (they declare `global _healrt_cond`, so the
class namespace is never written; the loader pre-binds it). `_healrt*` names are hidden from
the controller and never written back by heals. Constant tests (`if 0:`, `if __debug__:`) cannot
fail and are left alone, keeping the compiler's dead-code elimination. `while` tests, `for`
iterables, `with` items and `match` subjects are not sites.

Cost (measured by the overhead benchmark, dataset/tools/overhead): the `while`/`try` wrapper is free on the normal path
(a zero-cost `try`, and the `break` is the jump over the handler that any `try` needs). The counter
is not: it is emitted only at the head of each block (see sites.py), i.e. once per run of
consecutive wrapped statements that only an exception can leave; a block ends at every compound
statement (an `if` test site joins the block before it, as its last site: its branches are new
blocks), at statements that are not wrapped (they can raise without reaching the runtime), and
after `return`, `raise` and statements that suspend (`yield`, `await`), so that a generator left
suspended never has statements counted that did not run.

With a selection (replay mode) only the selected statements are wrapped; the rest of the module
is compiled as written.
"""

from __future__ import annotations

import ast
import dataclasses
import re

from .sites import Guard, SiteTable

RETURN_SLOT = "_return_"
# The value of the `if` test being branched on (True/False; None after a `skip` at the test).
COND_SLOT = "_healrt_cond"
PROPAGATE, RETRY, SKIP, RETURN = 0, 1, 2, 3

# Statements with nothing executable to fail, or that must stay where they are.
_NOT_WRAPPED = (ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)
# Unwrapped statements that can neither raise nor jump, so a block may run across them.
_INERT = (ast.Pass, ast.Global, ast.Nonlocal)
# Wrapped statements after which a block ends: control does not (or may never) fall through.
_BLOCK_ENDERS = (ast.Return, ast.Raise)


@dataclasses.dataclass(frozen=True)
class _Scope:
    qualname: str | None  # None at module level
    function_span: tuple[int, int] | None
    in_function: bool
    can_return: bool  # False at module/class level and in async generators (no `return value`)


def rewrite_module(tree: ast.Module, file: str, source: str, table: SiteTable) -> ast.Module:
    """Rewrites `tree` in place, adding its sites to `table` (one after the other: the caller keeps
    other modules from adding theirs meanwhile)."""
    table.add_file(file, source)
    rewriter = _Rewriter(file, source, table)
    tree.body = rewriter.body(tree.body, _Scope(None, None, False, False), (), qual_prefix="")
    return ast.fix_missing_locations(tree)


def _split_lines(source: str) -> list[str]:
    """Lines as the parser splits them (only \\r\\n, \\r and \\n end a line), line ends kept."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _constant_test(test: ast.expr) -> bool:
    """A test that cannot fail, and that the compiler folds (its dead branch is not compiled)."""
    return isinstance(test, ast.Constant) or (isinstance(test, ast.Name) and test.id == "__debug__")


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _targets(stmt: ast.stmt) -> tuple[str, ...]:
    if isinstance(stmt, ast.Assign):
        return tuple(name for target in stmt.targets for name in _bound_names(target))
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        return tuple(_bound_names(stmt.target))
    return ()


class _DirectNodes(ast.NodeVisitor):
    """Collects Return/Yield nodes of one function body, not descending into nested scopes."""

    def __init__(self) -> None:
        self.returns_value = False
        self.yields = False

    def visit_FunctionDef(self, node: ast.AST) -> None:
        return

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Return(self, node: ast.Return) -> None:
        self.returns_value = self.returns_value or node.value is not None

    def visit_Yield(self, node: ast.AST) -> None:
        self.yields = True

    visit_YieldFrom = visit_Yield


def _suspends(stmt: ast.stmt) -> bool:
    """Whether the statement itself (not a nested scope) can suspend its frame: yield or await."""
    pending: list[ast.AST] = [stmt]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        pending.extend(ast.iter_child_nodes(node))
    return False


class _Rewriter:
    def __init__(self, file: str, source: str, table: SiteTable) -> None:
        self._file = file
        self._table = table
        self._first = len(table.sites)  # the module's first site id: the generated code counts from it
        self._lines = _split_lines(source)
        # Site ids of the block being built (see sites.py), and whether a return site was wrapped
        # in the function being rewritten (it needs the `_return_` pre-bind).
        self._block: list[int] = []
        # Set by _simple for a wrapped statement that control leaves only by falling through (or an
        # exception), so the block may go on after it.
        self._falls_through = False
        self._wrapped_return = False
        # Whether the class body being rewritten got an `if` test site (it then declares the slot global).
        self._uses_cond = False

    def body(
        self, stmts: list[ast.stmt], scope: _Scope, guards: tuple[Guard, ...], qual_prefix: str
    ) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        self._end_block()
        for index, stmt in enumerate(stmts):
            if index == 0 and _is_docstring(stmt):
                out.append(stmt)
                continue
            out.extend(self.statement(stmt, scope, guards, qual_prefix))
            if not (self._falls_through or isinstance(stmt, _INERT) or _is_docstring(stmt)):
                self._end_block()
            self._falls_through = False
        self._end_block()
        return out

    def _end_block(self) -> None:
        if self._block:
            self._table.set_block(self._block)
            self._block = []

    def statement(
        self, stmt: ast.stmt, scope: _Scope, guards: tuple[Guard, ...], qual_prefix: str
    ) -> list[ast.stmt]:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(stmt, qual_prefix)
            return [stmt]
        if isinstance(stmt, ast.ClassDef):
            qualname = qual_prefix + stmt.name
            class_scope = _Scope(qualname, scope.function_span, False, False)
            outer_uses_cond, self._uses_cond = self._uses_cond, False
            body = self.body(stmt.body, class_scope, (), qualname + ".")
            if self._uses_cond:
                # The slot is the module's global: a class namespace (e.g. an Enum's) is not written.
                docstring = body[:1] if _is_docstring(stmt.body[0]) else []
                declare = ast.copy_location(ast.Global(names=[COND_SLOT]), stmt.body[0])
                body = [*docstring, declare, *body[len(docstring):]]
            self._uses_cond = outer_uses_cond
            stmt.body = body
            return [stmt]
        if isinstance(stmt, (ast.Try, ast.TryStar)):
            handler_types = tuple(
                ast.unparse(handler.type) if handler.type is not None else None
                for handler in stmt.handlers
            )
            inner = (Guard("try", handler_types), *guards) if stmt.handlers else guards
            stmt.body = self.body(stmt.body, scope, inner, qual_prefix)
            for handler in stmt.handlers:
                handler.body = self.body(handler.body, scope, guards, qual_prefix)
            stmt.orelse = self.body(stmt.orelse, scope, guards, qual_prefix)
            stmt.finalbody = self.body(stmt.finalbody, scope, guards, qual_prefix)
            return [stmt]
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            managers = tuple(ast.unparse(item.context_expr) for item in stmt.items)
            stmt.body = self.body(stmt.body, scope, (Guard("with", managers), *guards), qual_prefix)
            return [stmt]
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                case.body = self.body(case.body, scope, guards, qual_prefix)
            return [stmt]
        if isinstance(stmt, ast.If):
            return self._if(stmt, scope, guards, qual_prefix)
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            stmt.body = self.body(stmt.body, scope, guards, qual_prefix)
            stmt.orelse = self.body(stmt.orelse, scope, guards, qual_prefix)
            return [stmt]
        return self._simple(stmt, scope, guards)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, qual_prefix: str) -> None:
        qualname = qual_prefix + node.name
        direct = _DirectNodes()
        for stmt in node.body:
            direct.visit(stmt)
        first_line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        is_async_generator = isinstance(node, ast.AsyncFunctionDef) and direct.yields
        scope = _Scope(qualname, (first_line, node.end_lineno or node.lineno), True, not is_async_generator)
        outer_wrapped_return, self._wrapped_return = self._wrapped_return, False
        outer_uses_cond = self._uses_cond
        body = self.body(node.body, scope, (), qualname + ".<locals>.")
        wrapped_return, self._wrapped_return = self._wrapped_return, outer_wrapped_return
        self._uses_cond = outer_uses_cond  # a function's slot is its own local
        if direct.returns_value and wrapped_return:
            docstring = body[:1] if _is_docstring(node.body[0]) else []
            prebind = ast.copy_location(
                ast.Assign(targets=[ast.Name(RETURN_SLOT, ast.Store())], value=ast.Constant(None)),
                node.body[0],
            )
            body = [*docstring, prebind, *body[len(docstring):]]
        node.body = body

    def _if(self, stmt: ast.If, scope: _Scope, guards: tuple[Guard, ...], qual_prefix: str) -> list[ast.stmt]:
        test = stmt.test
        site_id = None
        if not _constant_test(test) and self._table.wants(self._file, test.lineno, test.col_offset):
            # Registered before the branches are rewritten: the test runs right after the block
            # before it (whose last site it becomes); each branch starts a block of its own.
            site_id = self._add_site(test, "if", (), scope, guards)
            counted = not self._block
            self._block.append(site_id)
        stmt.body = self.body(stmt.body, scope, guards, qual_prefix)
        stmt.orelse = self.body(stmt.orelse, scope, guards, qual_prefix)
        self._falls_through = False
        if site_id is None:
            return [stmt]
        self._uses_cond = True
        truth = ast.IfExp(test=test, body=ast.Constant(True), orelse=ast.Constant(False))
        evaluate = ast.Assign(targets=[ast.Name(COND_SLOT, ast.Store())], value=truth)
        for node in (evaluate, truth, truth.body, truth.orelse, evaluate.targets[0]):
            ast.copy_location(node, test)
        skipped = ast.Assign(targets=[ast.Name(COND_SLOT, ast.Store())], value=ast.Constant(None))
        wrapped = self._wrap(evaluate, site_id, scope.can_return, counted, on_skip=skipped)
        stmt.test = ast.copy_location(ast.Name(COND_SLOT, ast.Load()), test)
        if stmt.orelse:
            not_skipped = ast.Compare(left=ast.Name(COND_SLOT, ast.Load()), ops=[ast.IsNot()],
                                      comparators=[ast.Constant(None)])
            for node in ast.walk(not_skipped):
                ast.copy_location(node, test)
            stmt.orelse = [ast.copy_location(ast.If(test=not_skipped, body=stmt.orelse, orelse=[]), test)]
        return [*wrapped, stmt]

    def _add_site(self, node: ast.stmt | ast.expr, kind: str, targets: tuple[str, ...], scope: _Scope,
                  guards: tuple[Guard, ...]) -> int:
        return self._table.add(
            file=self._file,
            line=node.lineno,
            end_line=node.end_lineno or node.lineno,
            col=node.col_offset,
            end_col=node.end_col_offset or 0,
            kind=kind,
            targets=targets,
            source=self._segment(node),
            function=scope.qualname if scope.in_function else None,
            function_span=scope.function_span if scope.in_function else None,
            can_return=scope.can_return,
            guards=guards,
        ).id

    def _simple(self, stmt: ast.stmt, scope: _Scope, guards: tuple[Guard, ...]) -> list[ast.stmt]:
        if isinstance(stmt, _NOT_WRAPPED) or _is_docstring(stmt):
            return [stmt]
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            return [stmt]
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            return [stmt]
        if isinstance(stmt, ast.Return) and stmt.value is None:
            return [stmt]
        if not self._table.wants(self._file, stmt.lineno, stmt.col_offset):
            return [stmt]
        site_id = self._add_site(stmt, type(stmt).__name__.lower(), _targets(stmt), scope, guards)
        counted = not self._block
        self._block.append(site_id)
        self._falls_through = not (isinstance(stmt, _BLOCK_ENDERS) or _suspends(stmt))
        if isinstance(stmt, ast.Return):
            assert stmt.value is not None
            self._wrapped_return = True
            into_slot = ast.Assign(targets=[ast.Name(RETURN_SLOT, ast.Store())], value=stmt.value)
            return_slot = ast.Return(value=ast.Name(RETURN_SLOT, ast.Load()))
            wrapped = self._wrap(ast.copy_location(into_slot, stmt), site_id, scope.can_return, counted)
            return [*wrapped, ast.copy_location(return_slot, stmt)]
        return self._wrap(stmt, site_id, scope.can_return, counted)

    def _segment(self, node: ast.stmt | ast.expr) -> str:
        """ast.get_source_segment without re-splitting the whole source for every statement."""
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        col, end_col = node.col_offset, node.end_col_offset or 0
        if first == last:
            return self._lines[first].encode()[col:end_col].decode()
        return "".join([self._lines[first].encode()[col:].decode(), *self._lines[first + 1:last],
                        self._lines[last].encode()[:end_col].decode()])

    def _wrap(self, stmt: ast.stmt, site_id: int, can_return: bool, counted: bool,
              on_skip: ast.stmt | None = None) -> list[ast.stmt]:
        place = site_id - self._first
        def case(value: int, action: ast.stmt) -> ast.match_case:
            return ast.match_case(pattern=ast.MatchValue(ast.Constant(value)), body=[action])

        def runtime_call(method: str, *args: ast.expr) -> ast.Call:
            func = ast.Attribute(ast.Name("_healrt_rt", ast.Load()), method, ast.Load())
            return ast.Call(func=func, args=list(args), keywords=[])

        cases = [case(PROPAGATE, ast.Raise()), case(RETRY, ast.Continue())]
        if on_skip is not None:
            cases.append(case(SKIP, on_skip))
        if can_return:
            cases.append(case(RETURN, ast.Return(runtime_call("return_value"))))
        handler = ast.ExceptHandler(
            type=ast.Name("BaseException", ast.Load()),
            name=None,
            body=[ast.Match(subject=runtime_call("handle", ast.Constant(place)), cases=cases)],
        )
        guarded = ast.Try(body=[], handlers=[handler], orelse=[], finalbody=[])
        loop = ast.While(test=ast.Constant(True), body=[guarded, ast.Break()], orelse=[])
        counter = ast.AugAssign(
            target=ast.Subscript(ast.Name("_healrt_hits", ast.Load()), ast.Constant(place), ast.Store()),
            op=ast.Add(),
            value=ast.Constant(1),
        )
        new_nodes: list[ast.stmt] = [counter, loop] if counted else [loop]
        # Generated nodes take the statement's location; the statement is inserted only afterwards
        # so that its own (precise) locations are kept.
        for node in new_nodes:
            for child in ast.walk(node):
                if isinstance(child, (ast.stmt, ast.expr, ast.excepthandler, ast.pattern)):
                    ast.copy_location(child, stmt)
        guarded.body = [stmt]
        return new_nodes
