"""A scripted stand-in for HealBench's agent endpoints, for the client tests.

`FakeHealBench` holds the contract's state (a queue of attempts, each a list of heal points and
which resumes each accepts) and logs what the clients did; `FakeGateway` drives a Runner directly,
`GrpcFake` and `McpFake` (in the test modules) put it behind real gRPC and MCP servers. It follows
agent.proto's contract as written, which is what the clients are tested against; it is not the
server and says nothing about whether the server follows it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from healbench_client import reasons
from healbench_client.model import Claimed, Crash, Failure, FatalError, Finished, Healed, Step, Usage
from healbench_client.status import ErrorReason
from healbench_client.strategy import Heal


@dataclass
class FakeAttempt:
    name: str
    instance_id: str
    # One entry per heal point: the resumes ("skip", "retry", "return") whose heal is applied;
    # any other is answered HEAL_REJECTED.
    heal_points: list[set[str]]
    # After this many actions (heal, reraise or report_usage) the attempt ends fatally with this
    # reason, as a lapsed claim or a spent budget would.
    fatal_after: tuple[int, str] | None = None


@dataclass
class AttemptState:
    spec: FakeAttempt
    index: int = 0
    reraised: bool = False
    actions: int = 0

    def step(self) -> dict[str, Any]:
        if self.index < len(self.spec.heal_points):
            return {"state": "crashed", "heal_point": self.index + 1, "exception_type": "KeyError",
                    "proceeded": False}
        return {"state": "finished", "heal_point": self.index, "exception_type": "",
                "proceeded": not self.reraised}


@dataclass
class FakeHealBench:
    attempts: list[FakeAttempt]
    token: str = "secret"
    log: list[tuple[str, ...]] = field(default_factory=list)
    usage: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    nothing_until: int = 0        # answer NOTHING_TO_CLAIM to the first N claims
    claims_seen: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    live: dict[str, AttemptState] = field(default_factory=dict)
    runs: set[str] = field(default_factory=set)
    agents: list[str] = field(default_factory=list)     # the agent name of each claim ("" when none)

    def __post_init__(self) -> None:
        self.runs = {attempt.name.rsplit("/attempts/", 1)[0] for attempt in self.attempts}

    def error(self, reason: str, message: str = "", fatal: bool = False) -> ErrorReason:
        return ErrorReason(reason, message or reason.lower(), fatal=fatal)

    def claim(self, run: str | None, attempt: str | None, agent: str = "") -> AttemptState | ErrorReason:
        with self.lock:
            self.claims_seen += 1
            self.log.append(("claim", attempt or run or ""))
            self.agents.append(agent)
            if self.claims_seen <= self.nothing_until:
                return self.error(reasons.NOTHING_TO_CLAIM)
            if attempt is not None:
                found = [a for a in self.attempts if a.name == attempt]
                if not found:
                    return self.error(reasons.ATTEMPT_NOT_FOUND)
                self.attempts.remove(found[0])
                spec = found[0]
            elif run not in self.runs:
                return self.error(reasons.ATTEMPT_NOT_FOUND, f"no run {run}")
            else:
                queued = [a for a in self.attempts if a.name.startswith(run + "/attempts/")]
                if not queued:
                    return self.error(reasons.NOTHING_TO_CLAIM)
                spec = queued[0]
                self.attempts.remove(spec)
            state = AttemptState(spec)
            self.live[spec.name] = state
            return state

    def _count(self, state: AttemptState) -> ErrorReason | None:
        state.actions += 1
        if state.spec.fatal_after and state.actions > state.spec.fatal_after[0]:
            return self.error(state.spec.fatal_after[1], fatal=True)
        return None

    def heal(self, state: AttemptState, code: str, resume: str) -> dict[str, Any] | ErrorReason:
        with self.lock:
            self.log.append(("heal", state.spec.name, code, resume))
            if (fatal := self._count(state)) is not None:
                return fatal
            if state.index >= len(state.spec.heal_points):
                return self.error(reasons.ATTEMPT_FINISHED, fatal=True)
            if resume not in state.spec.heal_points[state.index]:
                return self.error(reasons.HEAL_REJECTED, f"resume={resume} refused at heal point {state.index + 1}")
            state.index += 1
            return {**state.step(), "changed": ["x"]}

    def reraise(self, state: AttemptState, reason: str) -> dict[str, Any] | ErrorReason:
        with self.lock:
            self.log.append(("reraise", state.spec.name, reason))
            if (fatal := self._count(state)) is not None:
                return fatal
            state.index += 1
            state.reraised = True
            return state.step()

    def report_usage(self, state: AttemptState, usage: dict[str, Any]) -> ErrorReason | None:
        with self.lock:
            self.usage.append((state.spec.name, usage))
            return self._count(state)

    def heals(self) -> list[tuple[str, ...]]:
        return [entry for entry in self.log if entry[0] in ("heal", "reraise")]


def to_step(data: dict[str, Any]) -> Step:
    if data["state"] == "crashed":
        return Crash(heal_point=data["heal_point"], exception_type=data["exception_type"])
    return Finished(proceeded=data["proceeded"])


class FakeGateway:
    """The runner's Gateway straight onto FakeHealBench, no transport: tests the loop alone."""

    def __init__(self, fake: FakeHealBench) -> None:
        self.fake = fake
        self.begun = 0
        self.ended = 0

    async def begin_attempt(self) -> None:
        self.begun += 1

    async def end_attempt(self) -> None:
        self.ended += 1

    def _state(self, attempt: str) -> AttemptState:
        return self.fake.live[attempt]

    @staticmethod
    def _failure(error: ErrorReason) -> Failure:
        if error.fatal:
            raise FatalError(error)
        return Failure(error)

    async def claim(self, run: str | None, attempt: str | None, agent: str | None = None) -> Claimed | Failure:
        state = self.fake.claim(run, attempt, agent or "")
        if isinstance(state, ErrorReason):
            return self._failure(state)
        return Claimed(attempt=state.spec.name, instance_id=state.spec.instance_id, step=to_step(state.step()))

    async def heal(self, attempt: str, heal: Heal) -> Healed | Failure:
        result = self.fake.heal(self._state(attempt), heal.code, heal.resume.value)
        if isinstance(result, ErrorReason):
            return self._failure(result)
        return Healed(step=to_step(result), changed=tuple(result["changed"]))

    async def reraise(self, attempt: str, reason: str) -> Step | Failure:
        result = self.fake.reraise(self._state(attempt), reason)
        return self._failure(result) if isinstance(result, ErrorReason) else to_step(result)

    async def report_usage(self, attempt: str, usage: Usage) -> Failure | None:
        error = self.fake.report_usage(self._state(attempt), usage.__dict__)
        return self._failure(error) if error is not None else None


def three_attempts() -> list[FakeAttempt]:
    """Healed by skip; skip rejected then healed by return; both rejected so reraised (2 points)."""
    return [
        FakeAttempt("runs/r1/attempts/a1", "inst-1", [{"skip"}]),
        FakeAttempt("runs/r1/attempts/a2", "inst-2", [{"return"}]),
        FakeAttempt("runs/r1/attempts/a3", "inst-3", [set(), {"skip"}]),
    ]
