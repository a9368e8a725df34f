"""The attempt loop both clients run: claim, heal every crash with the strategy, next attempt.

It stops when a claim answers NOTHING_TO_CLAIM for longer than `wait_seconds` (polling every
`poll_seconds`), after `max_attempts` claimed attempts, after a claim error other than
NOTHING_TO_CLAIM (the run or attempt named cannot be claimed, asking again will not change that),
on a fatal error that ends the run (the token), or after `MAX_FAILED_CLAIMS` fatal claims in a row.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from healbench_client import reasons
from healbench_client.gateway import Gateway
from healbench_client.model import AttemptReport, Claimed, Crash, Failure, FatalError, Finished, RunSummary, Step, Usage
from healbench_client.status import ErrorReason, ends_the_run
from healbench_client.strategy import Heal, Strategy

# A claim that keeps failing fatally (the platform is down) would otherwise loop for ever when
# max_attempts is unlimited: a few in a row are a platform failure worth stopping for.
MAX_FAILED_CLAIMS = 3


@dataclass(frozen=True)
class RunOptions:
    run: str | None
    attempt: str | None = None
    agent: str | None = None        # the agent name claims carry (runs made for external:NAME)
    max_attempts: int = 0           # 0: no limit
    wait_seconds: float = 0.0
    poll_seconds: float = 1.0
    usage: Usage = Usage(model="simple-strategy")


class Runner:
    def __init__(self, gateway: Gateway, strategy: Strategy, options: RunOptions,
                 on_attempt: Callable[[AttemptReport], None] = lambda report: None,
                 on_error: Callable[[str], None] = lambda message: None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if not options.run and not options.attempt:
            raise ValueError("a run or an attempt to claim is required")
        self.gateway = gateway
        self.strategy = strategy
        self.options = options
        self.on_attempt = on_attempt
        self.on_error = on_error
        self.clock = clock
        self.sleep = sleep
        self.summary = RunSummary()

    def _error(self, error: ErrorReason, where: str, *, fatal: bool) -> None:
        self.summary.errors += 1
        if fatal:
            self.summary.fatal.append(error.reason)
        self.on_error(f"{where}: {error}")

    async def run(self) -> RunSummary:
        failed_claims = 0
        while not self.options.max_attempts or self.summary.attempts < self.options.max_attempts:
            # The named attempt is claimed first (e.g. to take back a lapsed claim); later claims
            # take the run's queue, and without a run there is nothing after it.
            first = self.summary.attempts == 0 and failed_claims == 0
            attempt_name = self.options.attempt if first else None
            if attempt_name is None and not self.options.run:
                break
            await self.gateway.begin_attempt()
            try:
                try:
                    claimed = await self._claim(attempt_name)
                except FatalError as fatal:
                    self._error(fatal.error, "claim", fatal=True)
                    failed_claims += 1
                    if ends_the_run(fatal.error) or failed_claims >= MAX_FAILED_CLAIMS:
                        break
                    continue
                if claimed is None:
                    break                                    # the expected end: nothing left to claim
                if isinstance(claimed, Failure):
                    self._error(claimed.error, "claim", fatal=True)
                    break
                failed_claims = 0
                self.summary.attempts += 1
                report = AttemptReport(attempt=claimed.attempt, instance_id=claimed.instance_id)
                stop = await self._heal_attempt(claimed, report)
                if report.finished and report.proceeded:
                    self.summary.proceeded += 1
                self.summary.heals_applied += report.heals_applied
                self.on_attempt(report)
                if stop:
                    break
            finally:
                await self.gateway.end_attempt()
        return self.summary

    async def _claim(self, attempt: str | None) -> Claimed | Failure | None:
        """Claims, polling while the run has nothing queued; None once `wait_seconds` are over."""
        deadline: float | None = None
        while True:
            result = await self.gateway.claim(None if attempt else self.options.run, attempt, self.options.agent)
            if not (isinstance(result, Failure) and result.reason == reasons.NOTHING_TO_CLAIM):
                return result
            now = self.clock()
            deadline = now + self.options.wait_seconds if deadline is None else deadline
            if now >= deadline:
                return None
            await self.sleep(min(self.options.poll_seconds, deadline - now))

    async def _heal_attempt(self, claimed: Claimed, report: AttemptReport) -> bool:
        """Heals until the program ends; True when the whole run must stop (the token failed)."""
        try:
            step: Step | None = claimed.step
            if isinstance(step, Crash):
                # Once per attempt, while it is live (after a `finished` claim the stream closes).
                failed = await self.gateway.report_usage(claimed.attempt, self.options.usage)
                if failed is not None:
                    report.errors.append(failed.reason)
                    self._error(failed.error, f"{claimed.attempt}: report_usage", fatal=False)
            seen: set[int] = set()
            while isinstance(step, Crash):
                seen.add(step.heal_point)
                report.heal_points = len(seen)
                step = await self._heal_point(claimed.attempt, step, report)
            if isinstance(step, Finished):
                report.finished = True
                report.proceeded = step.proceeded
            return False
        except FatalError as fatal:
            report.errors.append(fatal.error.reason)
            self._error(fatal.error, claimed.attempt, fatal=True)
            return ends_the_run(fatal.error)

    async def _heal_point(self, attempt: str, crash: Crash, report: AttemptReport) -> Step | None:
        """Where the program stands after this heal point, or None when the attempt is given up
        (a reraise failed too: nothing else the client may do at this crash)."""
        plan = self.strategy.plan(crash)
        while True:
            action = plan.next_action()
            if isinstance(action, Heal):
                healed = await self.gateway.heal(attempt, action)
                if not isinstance(healed, Failure):
                    report.heals_applied += 1
                    return healed.step
                if healed.reason == reasons.HEAL_REJECTED:
                    plan.rejected(healed.error.message or healed.reason)
                    continue
                # Not a verdict on the heal: the request itself failed. Reraising moves the
                # program on without guessing at another heal.
                report.errors.append(healed.reason)
                self._error(healed.error, f"{attempt}: heal point {crash.heal_point}: heal", fatal=False)
                reason = f"simple strategy: the heal failed with {healed.reason}"
            else:
                reason = action.reason
            reraised = await self.gateway.reraise(attempt, reason)
            if isinstance(reraised, Failure):
                report.errors.append(reraised.reason)
                self._error(reraised.error, f"{attempt}: heal point {crash.heal_point}: reraise", fatal=False)
                return None
            report.reraises += 1
            return reraised
