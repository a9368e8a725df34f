"""The run specification (`healrt-spec.json`, see docs/control-protocol.md)."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from typing import Any

from .guard import MODES as GUARD_MODES
from .policy import parse_policy

MODES = ("full", "replay")

@dataclasses.dataclass(frozen=True)
class Spec:
    source_dir: str
    project_modules: tuple[str, ...]
    pytest_args: tuple[str, ...]
    target_test: str
    intercept: bool = True
    max_heal_points: int = 10
    outcome_file: str | None = None
    probe_timeout_s: float = 20.0
    heal_timeout_s: float = 30.0
    # Directory of the compiled-rewrite cache; None: $HEALRT_CACHE or the default; "": disabled.
    code_cache: str | None = None
    # A cache directory read before code_cache and never written (codecache.py); None: none.
    shared_code_cache: str | None = None
    # "full": every statement wrapped; "replay": record, then wrap only the crash sites (replay.py).
    mode: str = "full"
    # Replay mode's record, restart state and basetemp; None: `.healrt-replay` next to the spec.
    replay_dir: str | None = None
    # HealGuard's dynamic stage (guard.py): "enforce", "observe" or "off", and the protected-operation
    # policy as JSON (default + subject, merged by the caller); None: healrt's default_policy.yaml.
    guard_mode: str = "enforce"
    guard_policy: dict[str, Any] | None = dataclasses.field(default=None, compare=False)

    @functools.cached_property
    def target_file(self) -> str:
        # Cached: the runtime asks for it at every exception in project code, and realpath stats.
        return os.path.realpath(self.target_test.partition("::")[0])

    @property
    def target_name(self) -> str:
        return self.target_test.partition("::")[2]


def load_spec(path: str) -> Spec:
    with open(path, encoding="utf-8") as handle:
        raw = json.load(handle)
    return Spec(
        source_dir=os.path.realpath(raw["source_dir"]),
        project_modules=tuple(raw["project_modules"]),
        pytest_args=tuple(raw["pytest_args"]),
        target_test=raw.get("target_test") or raw["pytest_args"][0],
        intercept=bool(raw.get("intercept", True)),
        max_heal_points=int(raw.get("max_heal_points", 10)),
        outcome_file=raw.get("outcome_file"),
        probe_timeout_s=float(raw.get("probe_timeout_s", 20.0)),
        heal_timeout_s=float(raw.get("heal_timeout_s", 30.0)),
        code_cache=raw.get("code_cache"),
        shared_code_cache=raw.get("shared_code_cache") or None,
        mode=_mode(raw.get("mode", "full")),
        replay_dir=raw.get("replay_dir"),
        **_guard(raw.get("guard", {})),
    )


def _guard(raw: Any) -> dict[str, Any]:
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        raise ValueError("spec: guard must be an object {mode, policy}")
    mode = raw.get("mode", "enforce")
    if mode not in GUARD_MODES:
        raise ValueError(f"spec: guard.mode must be one of {', '.join(GUARD_MODES)}, not {mode!r}")
    policy = raw.get("policy")
    if policy is not None:
        if not isinstance(policy, dict):
            raise ValueError("spec: guard.policy must be a policy object (dataset/policies/*.yaml as JSON)")
        parse_policy(policy)  # a malformed policy fails here, naming the entry
    return {"guard_mode": mode, "guard_policy": policy}


def _mode(value: object) -> str:
    if value not in MODES:
        raise ValueError(f"spec: mode must be one of {', '.join(MODES)}, not {value!r}")
    return str(value)
