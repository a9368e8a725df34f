"""The runtime: decides at each crash whether to pause, and serves the controller while paused."""

from __future__ import annotations

import dataclasses
import functools
import sys
import threading
import types
from typing import Any

from . import astexport, guard
from .catching import VerdictMemo, never_intercepted, same_file, would_be_caught
from .context import build_context
from .heal import STATIC_VERDICTS, HealResult, StaticAnswer, StaticDecision, run_heal, run_probe
from .replay import Decision, Script
from .rewrite import PROPAGATE, RETRY, RETURN, SKIP
from .session import Session
from .sinks import HealGuardViolation
from .sites import Selection, Site, SiteTable
from .spec import Spec

_RESUME_ACTIONS = {"skip": SKIP, "retry": RETRY, "return": RETURN}


@dataclasses.dataclass
class Counters:
    heal_points: int = 0
    heals_applied: int = 0
    heals_rejected: int = 0
    rejections: list[dict[str, Any]] = dataclasses.field(default_factory=list)


class Hooks:
    """The only object an instrumented module sees (as `_healrt_rt`): two callables, no state. Its
    code names a site by its place in the module; `handle` adds the module's first site id. The
    partial is C code, so `handle` runs one frame above the instrumented frame, as when it is called directly."""

    __slots__ = ("handle", "return_value")

    def __init__(self, runtime: Runtime, first_site: int) -> None:
        self.handle = functools.partial(runtime.handle, first_site)
        self.return_value = runtime.return_value


class Runtime:
    def __init__(self, spec: Spec, session: Session | None, selection: Selection | None = None,
                 script: Script | None = None) -> None:
        self.spec = spec
        self.session = session
        self.table = SiteTable(selection)
        # Replay mode: decisions of the runs before a restart, replayed without asking (replay.py);
        # `decisions` logs this run's, for the next restart.
        self._script = script
        self.decisions: list[Decision] = []
        self.counters = Counters()
        self._intercepting = spec.intercept and session is not None
        # Held while paused: a crash in code run by a probe/heal (or in another thread) propagates.
        self._pause_lock = threading.Lock()
        # Exceptions already let through after a pause (reraise, cap); they must not pause again in
        # outer frames. Strong references keep their ids unique; there are at most a few.
        self._released: dict[int, BaseException] = {}
        self._return_values = threading.local()
        self._verdicts = VerdictMemo()
        # catch_undecided events already sent -> times seen since (see report_repeats).
        self._undecided_repeats: dict[tuple[str, str, int, str], int] = {}
        guard.configure(spec.guard_mode, spec.guard_policy, self.event, self.table.is_instrumented,
                        session.fileno() if session is not None else None)

    # ------------------------------------------------------------ called from instrumented code

    def module_hooks(self, first_site: int) -> Hooks:
        return Hooks(self, first_site)

    def handle(self, first_site: int, place: int) -> int:
        site_id = first_site + place
        action = self._decide(site_id)
        if action == PROPAGATE or action == RETURN:
            self.table.left_block(site_id)  # the rest of the site's block does not run (trace counts)
        return action

    def _decide(self, site_id: int) -> int:
        exc = sys.exc_info()[1]
        if exc is None or not self._intercepting or never_intercepted(exc) or id(exc) in self._released:
            return PROPAGATE
        if isinstance(exc, HealGuardViolation):
            return PROPAGATE  # the guard's own decision, reported already: not a crash to heal
        if not self._pause_lock.acquire(blocking=False):
            return PROPAGATE
        try:
            return self._crash(exc, site_id, sys._getframe(2))
        finally:
            self._pause_lock.release()

    def return_value(self) -> Any:
        value = self._return_values.value
        del self._return_values.value
        return value

    # ------------------------------------------------------------ pausing

    def _crash(self, exc: BaseException, site_id: int, frame: types.FrameType) -> int:
        site = self.table.sites[site_id]
        verdict = would_be_caught(exc, frame, site, self.table, self.spec.target_file, self._verdicts)
        for reason, file, line in verdict.undecided:
            self._catch_undecided(reason, file, line, verdict.decision)
        if verdict.caught:
            return PROPAGATE
        if self.counters.heal_points >= self.spec.max_heal_points:
            self.event("heal_point_cap", file=site.file, line=site.line, cap=self.spec.max_heal_points)
            return self._release(exc)
        self.counters.heal_points += 1
        replayed = self._replay(exc, frame, site)
        if replayed is not None:
            return replayed
        context = build_context(self.counters.heal_points, exc, frame, site, self.table, self._test_frame(frame))
        self._send({"type": "crash", "context": context})
        return self._serve(exc, frame, site_id)

    def _serve(self, exc: BaseException, frame: types.FrameType, site_id: int) -> int:
        assert self.session is not None
        site = self.table.sites[site_id]
        while True:
            message = self.session.receive()
            if message is None:
                # The controller is gone: behave as if healrt were absent from now on.
                self._intercepting = False
                return self._release(exc)
            command = message.get("cmd")
            if command == "probe":
                with guard.internal():  # probes are not policy-checked (the fork isolates them)
                    result = run_probe(str(message.get("code", "")), frame, bool(message.get("inplace", False)),
                                       _probe_limit(message.get("timeout_s"), self.spec.probe_timeout_s))
                self._send({"type": "probe_result", "id": message.get("id"), **result})
            elif command == "heal":
                resume = str(message.get("resume") or "skip")
                decide = self._static_stage(message.get("id"), frame, site, resume) if message.get("analyze") else None
                healed = self._heal(str(message.get("code", "")), resume, frame, site, decide)
                self._send({
                    "type": "heal_result", "id": message.get("id"), "ok": healed.ok,
                    "error": None if healed.ok else {"reason": healed.reason, "message": healed.message},
                    "traceback": healed.traceback, "changed": healed.changed, "resume": resume,
                    "delta": healed.delta, "delta_truncated": healed.delta_truncated,
                })
                if healed.ok:
                    return _RESUME_ACTIONS[resume]
            elif command == "reraise":
                self.decisions.append(Decision(self.counters.heal_points, (site.file, site.line, site.col), "reraise"))
                return self._release(exc)
            else:
                self.event("bad_command", message=f"unknown or unexpected command {command!r}")

    def _heal(self, code: str, resume: str, frame: types.FrameType, site: Site,
              decide: StaticDecision | None = None) -> HealResult:
        healed = run_heal(code, frame, site, resume, self.spec.heal_timeout_s, self.counters.heal_points, decide)
        if healed.reason in ("forbidden", "aborted"):
            self.counters.heals_rejected += 1
            self.counters.rejections.append({"heal_point": self.counters.heal_points, "reason": healed.message})
        if healed.dropped:
            self.event("heal_dropped_names", names=healed.dropped,
                       message="a heal cannot create a new local name of a function")
        if healed.ok:
            self.counters.heals_applied += 1
            if resume == "return":
                self._return_values.value = healed.return_value
            self.decisions.append(Decision(self.counters.heal_points, (site.file, site.line, site.col),
                                           "heal", code, resume))
        return healed

    def _static_stage(self, heal_id: Any, frame: types.FrameType, site: Site, resume: str) -> StaticDecision:
        """The controller's static stage (docs/healguard.md §1): after the dry run, send the heal's Δk
        and the code that runs next (heal_analysis), then wait for heal_commit or heal_abort."""
        def decide(delta: list[dict[str, Any]], delta_truncated: bool) -> StaticAnswer:
            assert self.session is not None
            with guard.internal():  # healrt's own work: it reads the site table's sources, runs no program code
                exported = astexport.analysis(frame, site, self.table, self.spec.source_dir, resume)
            self._send({"type": "heal_analysis", "id": heal_id, "heal_point": self.counters.heal_points,
                        "delta": delta, "delta_truncated": delta_truncated, **exported})
            while True:
                message = self.session.receive()
                if message is None:
                    return StaticAnswer(abort="the controller went away before deciding")  # _serve then releases the crash
                command = message.get("cmd")
                if command == "heal_abort" and message.get("id") == heal_id:
                    return StaticAnswer(abort=str(message.get("reason") or "aborted by the controller"))
                if command == "heal_commit" and message.get("id") == heal_id:
                    return StaticAnswer(verdict=self._static_verdict(message.get("static_verdict")),
                                        covered=astexport.analysed_frames(frame, self.table)[-1])
                self.event("bad_command", message=f"expected heal_commit or heal_abort for heal {heal_id!r}, got {command!r}")
        return decide

    def _static_verdict(self, verdict: Any) -> str | None:
        """heal_commit's static_verdict; anything else is no verdict (the bool/None rule stays)."""
        if verdict is None or verdict in STATIC_VERDICTS:
            return verdict  # type: ignore[no-any-return]
        self.event("bad_command", message=f"heal_commit: unknown static_verdict {verdict!r} "
                                          f"(one of {', '.join(STATIC_VERDICTS)}); read as none")
        return None

    def _replay(self, exc: BaseException, frame: types.FrameType, site: Site) -> int | None:
        """The action of a replayed decision (replay mode, after a restart); None to ask the controller."""
        if self._script is None:
            return None
        heal_point = self.counters.heal_points
        decision = self._script.decision(heal_point, site)
        if decision is not None and decision.action == "reraise":
            self.decisions.append(decision)
            self.event("replayed", heal_point=heal_point, action="reraise", file=site.file, line=site.line)
            return self._release(exc)
        if decision is not None:
            healed = self._heal(decision.code, decision.resume, frame, site)
            if healed.ok:
                self.event("replayed", heal_point=heal_point, action="heal", file=site.file, line=site.line)
                return _RESUME_ACTIONS[decision.resume]
            self._script.diverged = True
        if self._script.diverged:
            self.event("replay_diverged", heal_point=heal_point, file=site.file, line=site.line)
            self._script = None
        return None

    def _release(self, exc: BaseException) -> int:
        self._released[id(exc)] = exc
        return PROPAGATE

    def _test_frame(self, frame: types.FrameType) -> types.FrameType | None:
        from_frame: types.FrameType | None = frame
        while from_frame is not None:
            if same_file(from_frame.f_code.co_filename, self.spec.target_file):
                return from_frame
            from_frame = from_frame.f_back
        return None

    # ------------------------------------------------------------ events

    def _catch_undecided(self, reason: str, file: str, line: int, decision: str) -> None:
        """Sent once per (reason, file, line, decision); repeats are only counted. A test suite can
        meet the same undecided construct thousands of times, and each event is a socket write."""
        key = (reason, file, line, decision)
        if key in self._undecided_repeats:
            self._undecided_repeats[key] += 1
            return
        self._undecided_repeats[key] = 0
        self.event("catch_undecided", reason=reason, file=file, line=line, decision=decision)

    def report_repeats(self) -> None:
        """Called when the run ends (or restarts): how often each catch_undecided event recurred."""
        repeats = [{"reason": reason, "file": file, "line": line, "decision": decision, "repeats": count}
                   for (reason, file, line, decision), count in self._undecided_repeats.items() if count]
        self._undecided_repeats = {key: 0 for key in self._undecided_repeats}
        if repeats:
            self.event("catch_undecided_repeats", constructs=repeats)

    def event(self, kind: str, **fields: Any) -> None:
        if self.session is not None:
            self._send({"type": "event", "kind": kind, **fields})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.session is not None
        with guard.internal():  # healrt's own socket writes are not the program's network sends
            self.session.send(message)


def _probe_limit(asked: Any, cap: float) -> float:
    """A probe's own time limit: what the controller asked for, never more than the spec's cap (nor less than 0.1 s)."""
    if isinstance(asked, bool) or not isinstance(asked, (int, float)) or asked <= 0:
        return cap
    return max(0.1, min(float(asked), cap))
