"""Transport-neutral views of what the server answers, so the strategy and the loop are written
once for gRPC and MCP. Each gateway adapter converts its wire form into these."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from healbench_client.status import ErrorReason


class Resume(enum.Enum):
    """How the healed program goes on; the value is the MCP spelling, `grpc_name` the proto's."""

    SKIP = "skip"
    RETRY = "retry"
    RETURN = "return"

    @property
    def grpc_name(self) -> str:
        return f"RESUME_{self.name}"


@dataclass(frozen=True)
class Crash:
    """The program is paused at a crash (a heal point). MCP answers carry only the first two
    fields; the gRPC `Crash` fills the rest."""

    heal_point: int
    exception_type: str
    exception_message: str = ""
    file: str = ""
    line: int = 0
    statement: str = ""


@dataclass(frozen=True)
class Finished:
    """The program ended; the attempt is over."""

    proceeded: bool
    exit_cause: str = ""


Step = Crash | Finished


@dataclass(frozen=True)
class Claimed:
    """A successful claim: the attempt's name (what every later action names) and where it stands."""

    attempt: str
    instance_id: str
    step: Step
    repeat: int = 0
    lease_seconds: int = 0


@dataclass(frozen=True)
class Failure:
    """A per-message error: the request failed, the stream (or MCP session) goes on."""

    error: ErrorReason

    @property
    def reason(self) -> str:
        return self.error.reason


class FatalError(Exception):
    """The server ended the stream (or answered `fatal: true`), or the transport failed: the attempt
    cannot go on. `error.reason` says whether any later attempt can (reasons.ENDS_THE_RUN)."""

    def __init__(self, error: ErrorReason) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class Healed:
    """An applied heal (HealResponse / the heal tool's result)."""

    step: Step
    changed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Usage:
    """Self-reported model usage (report_usage)."""

    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""


@dataclass
class AttemptReport:
    """What the client did with one claimed attempt: one output line."""

    attempt: str
    instance_id: str
    heal_points: int = 0
    heals_applied: int = 0
    reraises: int = 0
    proceeded: bool = False
    finished: bool = False
    errors: list[str] = field(default_factory=list)


@dataclass
class RunSummary:
    """The totals of one client run; `fatal` decides the exit status."""

    attempts: int = 0
    heals_applied: int = 0
    proceeded: int = 0
    errors: int = 0
    fatal: list[str] = field(default_factory=list)

    def as_json_dict(self) -> dict[str, int]:
        # Exactly the documented keys: callers parse this line.
        return {"attempts": self.attempts, "heals_applied": self.heals_applied,
                "proceeded": self.proceeded, "errors": self.errors}
