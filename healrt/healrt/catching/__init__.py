"""Would the program itself catch this exception? If so, healrt must leave it alone.

The stack is walked from the crashing frame outward, up to and including the outermost frame of
the target test file (the test itself; helpers it calls may be defined in the same file;
pytest/unittest machinery further out catches everything and is ignored). Each frame is asked
what its enclosing constructs do with the exception:
- an instrumented project frame executing a wrapped statement: the site's static guards
  (enclosing `try` bodies with except clauses, innermost first, and `with` blocks);
- any other frame (tests, libraries, and project frames suspended outside a wrapped statement,
  e.g. in a `for` header driving a generator): the code object's exception table at `f_lasti`,
  following re-raising handlers (`finally`, cleanups, non-matching except clauses) outward.
A `finally` without except clauses never catches: the exception continues after it.

A `with` block catches if its context manager suppresses. `contextlib.suppress(...)` is decided
from its exception types; unittest's `subTest` never catches (it records the exception as the
test's failure); test frameworks' managers that expect an exception (assertRaises,
assertRaisesRegex, pytest.raises, in either form) from their expected types and message pattern
(expecting.py); a manager whose `__exit__` only returns None/False constants, or is implemented
in C, does not suppress; a `@contextmanager` generator without except clauses (or nested `with`)
does not; anything else (an `__exit__` that may return true, a factory function, an expression
we do not evaluate) is *undecided*, as is an except clause whose type cannot be evaluated
without running code.

Policy for the undecided (recorded as `catch_undecided` events with the decision taken):
- `deferred`: some instrumented frame further out is executing a wrapped statement. Leave the
  exception alone; if the construct does not catch it after all, the exception reaches that
  frame's handler and is decided again there, the construct's answer now being known. The
  program's semantics are never changed and the crash is not lost.
- `assumed_caught`: the undecided construct is in the target test file (a test's own
  managers and helpers that expect an exception, like assertRaises, are meant to catch it).
- `intercepted`: otherwise nothing outward could intercept it later, so healrt pauses; the
  controller sees the events, and `reraise` restores the program's own behaviour exactly.

Expressions are resolved without running program code: names, attributes looked up statically
(no properties or `__getattr__`), tuples, constants, and calls only to identify the manager's
type (and the arguments of suppress, assertRaises and pytest.raises).

Everything derived from a code object alone (exception table, handler structure, with-block
positions in the source) is computed once per code object (percode.py): libraries raise and
catch thousands of exceptions per run, each walking the same few frames. Whole verdicts are
remembered per stack signature (VerdictMemo) when they depend only on the frames' code and
positions and on global or module-attribute lookups, which are checked again on every reuse.

One job a module: walk.py (the walk and the policy for the undecided), guards.py (what an except
clause or a with block does), tables.py (exception tables), expressions.py (resolving names and
attributes in a frame), memo.py (remembering verdicts), source.py (definitions in source files).
"""

from __future__ import annotations

from .guards import CAUGHT, NOT_CAUGHT, UNDECIDED
from .memo import VerdictMemo
from .walk import Verdict, never_intercepted, same_file, would_be_caught

__all__ = ["CAUGHT", "NOT_CAUGHT", "UNDECIDED", "Verdict", "VerdictMemo", "never_intercepted", "same_file",
           "would_be_caught"]
