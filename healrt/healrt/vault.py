"""Where the guard keeps its state: out of reach of heal code, even of its introspection.

Heal code (HealCore) can only follow non-dunder attribute names, but `str.format` can still walk
dunder chains as *text* (`"{0.__init__.__globals__}".format(x)` renders any module's globals, a
closure's cells, any object's attributes). So the state must not hang off anything: no module
global, no closure cell, no attribute. The one object holding it is the default of a context
variable. A ContextVar exposes only its `name` as an attribute; its default is reachable by calling
`get()` (which formatting cannot do, and which heal code cannot reach without a dunder step) and
is shown in its repr only as `<healrt>`. It is never `set()`, so it appears in no Context mapping.

Rule for the rest of healrt: call `state()` where the state is needed; never keep the result in a
global, a closure or an attribute.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any


class State:
    """All mutable guard state. Opaque to formatting (repr/format/str give nothing away)."""

    __slots__ = (
        "mode", "policy", "armed", "any_label", "objects", "owners", "scopes", "conservative",
        "records", "violations", "events_sent", "emit", "is_project", "heal_running", "patches",
        "modules", "hook_installed", "local", "object_cap_hit", "events", "pending", "heal_points",
        "control_fd",
    )

    def __init__(self) -> None:
        self.mode = "off"
        self.policy: Any = None
        # Set by the first applied heal: audit hook installed, wrappers patched, rewrites switched on.
        self.armed = False
        # Whether any label was ever created: lets every lookup bail out at once before that.
        self.any_label = False
        # id(obj) -> (obj, label): labels of whole objects that cannot carry a wrapper (paths, lists).
        self.objects: dict[int, tuple[Any, Any]] = {}
        # id(owner) -> (owner, {("attr", name) | ("item", key): label}): location labels.
        self.owners: dict[int, tuple[Any, dict[tuple[str, Any], Any]]] = {}
        # (id(scope), name) -> (scope, label): names a heal bound; scope = globals dict or code object.
        self.scopes: dict[tuple[int, str], tuple[Any, Any]] = {}
        # Locations a heal set to bool/None (see guard.py, the conservative rule).
        self.conservative: list[Any] = []
        self.records: list[dict[str, Any]] = []
        self.violations = 0
        self.events_sent: dict[str, int] = {}
        self.emit: Any = None
        self.is_project: Any = None
        # While heal code executes: its source ({"heal_point", "location", "file", "line"}).
        self.heal_running: dict[str, Any] | None = None
        self.patches: list[Any] = []
        self.modules: list[dict[str, Any]] = []  # globals of instrumented modules (rewrite switch)
        self.hook_installed = False
        self.local = threading.local()  # per thread: `internal` depth, `busy` (in a guard check)
        self.object_cap_hit = False
        # Audit event -> [(operation, {parameter: position})], from the policy (sinks/wrappers.py, install).
        self.events: dict[str, list[Any]] = {}
        # Operations to wrap whose module was not imported yet when the guard was armed.
        self.pending: list[Any] = []
        self.heal_points: list[dict[str, Any]] = []  # the applied heals, as flow sources
        self.control_fd: int | None = None  # the control socket: heal code may not write or close it

    def __repr__(self) -> str:
        return "<healrt>"

    def __format__(self, spec: str) -> str:
        return "<healrt>"

    __str__ = __repr__


_VAULT: contextvars.ContextVar[State] = contextvars.ContextVar("healrt", default=State())
state = _VAULT.get
