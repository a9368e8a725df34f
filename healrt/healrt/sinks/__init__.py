"""Sinks of the dynamic guard: where protected operations are stopped before their effect.

- Audit hooks (`sys.addaudithook`) for the operations whose audit event carries the original key
  input (AUDITED: open, os.remove, os.rename, shutil.rmtree, subprocess.Popen, socket.connect, ...).
  An audit hook cannot be removed, so it is installed only when the guard is armed (first heal).
- Wrappers for every other operation of the policy: those without an audit event (socket send,
  os.umask, HTTPConnection.request, os.environ assignment), those whose event sees converted
  arguments (os.system and os.putenv get bytes), pathlib methods whose key input is the receiver,
  and the project's own operations named by a subject policy. A wrapper replaces the attribute on
  its module or class and every binding of the original in instrumented modules (`from os import
  system`). sqlite3's C classes cannot be patched: `sqlite3.connect` passes a factory subclass
  whose execute methods are guarded (connections opened before the first heal are not).
- `@healrt.protected` for functions of the project (every argument is a key input unless `arg`
  or `index` narrows it).
- Declared check conditions (fmtrewrite.py rewrites their reads in branch tests).

A decision (`decide`) is a violation when:
1. heal code is running (every value the heal computes carries its label), or
2. a key input carries a label (taint.find_label: the value, its items, attributes and object and
   location labels), or
3. the operation has no key input (`arg: null`) and a heal has been applied, or
4. the conservative rule for bool/None holds (guard.py).
enforce raises HealGuardViolation before the operation runs; observe records it and lets it run.
A call that only a waived bool/None location would flag (a heal the static stage found CLEAN,
inside the frames its analysis covered) is not a violation: it runs, recorded once as
`guard_conservative_waived`.

Decisions made while healrt itself works (`internal`) are skipped, as are nested ones while a
violation of the enclosing operation is being let through in observe mode (one record per call).

One job a module: decisions.py (the rules, per call), records.py (violations and the guard's
records), audit.py (the audit hook), wrappers.py (wrapped operations, pathlib, sqlite3,
`@protected`, and arming them all).
"""

from __future__ import annotations

from .audit import AUDITED
from .decisions import check_condition, conservative_hit, decide
from .records import EVENT_CAP, HealGuardViolation, report, sink_location, violation, waived
from .wrappers import guarded, install, key_inputs, protected, rebind, verify, wrap_pending

__all__ = ["AUDITED", "EVENT_CAP", "HealGuardViolation", "check_condition", "conservative_hit", "decide", "guarded",
           "install", "key_inputs", "protected", "rebind", "report", "sink_location", "verify", "violation", "waived",
           "wrap_pending"]
