"""The simple strategy, shared by the gRPC and MCP clients: the cheapest heals that can be valid.

At each crash it tries, in order:
  1. `pass` with resume=skip: go on after the failing statement as if it had not run;
  2. `_return_ = None` with resume=return: leave the crashing function, returning None;
  3. reraise: let the original exception propagate.
It moves to the next choice only when the server rejects a heal (HEAL_REJECTED: HealGuard's gate or
guard refused it, e.g. resume=return at module level). Both heals are HealCore: `pass` is a
statement of HealCore.g4, and `_return_` is the return slot healrt reads for resume=return
(docs/control-protocol.md: "`return`: the heal assigns the name `_return_`"); it is not a dunder.

The strategy is a pure plan with no I/O, so the choice sequence is testable without a server and
works the same for the synchronous gRPC session and the asynchronous MCP client.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from healbench_client.model import Crash, Resume


@dataclass(frozen=True)
class Heal:
    code: str
    resume: Resume


@dataclass(frozen=True)
class Reraise:
    reason: str


Action = Heal | Reraise


class HealPointPlan(Protocol):
    """The decisions at one heal point: `next_action()`, then `rejected(message)` each time the
    server refuses the heal it returned, until an action is accepted."""

    def next_action(self) -> Action: ...

    def rejected(self, message: str) -> None: ...


class Strategy(Protocol):
    name: str

    def plan(self, crash: Crash) -> HealPointPlan: ...


# Longer reasons are cut: a reraise reason is for humans reading the trajectory, and the server's
# limits on it are not part of the contract.
_MAX_REASON = 500


@dataclass
class SimpleHealPointPlan:
    crash: Crash
    heals: tuple[Heal, ...]
    rejections: list[str] = field(default_factory=list)

    def next_action(self) -> Action:
        tried = len(self.rejections)
        if tried < len(self.heals):
            return self.heals[tried]
        last = self.rejections[-1] if self.rejections else "no heal to try"
        reason = (f"simple strategy: all {len(self.heals)} heals rejected at heal point "
                  f"{self.crash.heal_point} ({self.crash.exception_type}); last: {last}")
        return Reraise(reason[:_MAX_REASON])

    def rejected(self, message: str) -> None:
        if len(self.rejections) >= len(self.heals):
            raise RuntimeError("a reraise was rejected as a heal; the caller must not report that")
        self.rejections.append(message)


class SimpleStrategy:
    name = "simple"
    heals: tuple[Heal, ...] = (Heal("pass", Resume.SKIP), Heal("_return_ = None", Resume.RETURN))

    def plan(self, crash: Crash) -> SimpleHealPointPlan:
        return SimpleHealPointPlan(crash, self.heals)


STRATEGIES: dict[str, type[SimpleStrategy]] = {SimpleStrategy.name: SimpleStrategy}
