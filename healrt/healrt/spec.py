"""The run specification (`healrt-spec.json`, see docs/control-protocol.md)."""

from __future__ import annotations

import dataclasses
import json
import os


@dataclasses.dataclass(frozen=True)
class Spec:
    source_dir: str
    project_modules: tuple[str, ...]
    pytest_args: tuple[str, ...]
    target_test: str
    intercept: bool = True
    max_heal_points: int = 10
    outcome_file: str | None = None

    @property
    def target_file(self) -> str:
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
    )
