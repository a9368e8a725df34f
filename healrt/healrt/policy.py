"""The protected-operation policy: its files, and what healrt makes of one.

Files: default_policy.yaml next to this module (healrt's default, the base of every subject
policy; dataset/policies/default.yaml links to it) and dataset/policies/<name>.yaml, in the YAML
subset yamlsubset.py reads. A run's spec gives healrt its policy as JSON (`read_policy_file` or
`merged_policy` produce that object); without one healrt uses the default.

`operations` maps a category to entries. An operation entry names `op` (a dotted name), its key
input (`arg` name and/or `index`: a position not counting self, `receiver`, `last`, or null for
"no key input: every call counts"), optional `also_check` (more parameter names) and `when` (only
some calls). A check entry names `check` (a name or dotted attribute as written in branch tests)
and optionally `module` (the only module where it is read); see fmtrewrite.py.

`when` forms understood: `<param> contains any of <tokens...>` (a mode string holds any token) and
`<param> & (<NAME> | <NAME> ...)` (an integer flag argument has any of these `os` flags). Any other
form makes the entry apply to every call (conservative) and is reported as a policy note.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from .fmtrewrite import Check, canonical_check
from .yamlsubset import YamlError, load_yaml

DEFAULT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "default_policy.yaml")
DEFAULT_NAME = "default"
_CONTAINS = re.compile(r"\s*(\w+)\s+contains\s+any\s+of\s+(.+?)\s*")
_FLAGS = re.compile(r"\s*(\w+)\s*&\s*\(\s*([\w\s|]+?)\s*\)\s*")


@dataclasses.dataclass(frozen=True)
class When:
    param: str
    tokens: tuple[str, ...] = ()  # "contains any of"
    mask: int | None = None  # "& (FLAGS)"

    def holds(self, value: Any) -> bool:
        if self.mask is not None:
            return isinstance(value, int) and bool(value & self.mask)
        return isinstance(value, (str, bytes)) and any(
            (token.encode() if isinstance(value, bytes) else token) in value for token in self.tokens)


@dataclasses.dataclass(frozen=True)
class Operation:
    op: str
    category: str
    arg: str | None
    index: int | str | None  # position (not counting self), "receiver", "last", or None
    also_check: tuple[str, ...]
    when: When | None

    @property
    def has_key_input(self) -> bool:
        return self.arg is not None or self.index is not None


@dataclasses.dataclass(frozen=True)
class Policy:
    id: str
    operations: tuple[Operation, ...]
    checks: tuple[Check, ...]
    notes: tuple[str, ...]  # entries healrt reads conservatively (unknown `when` forms)


class PolicyError(ValueError):
    """A policy file that cannot be read; the message names the file and the line."""


def read_policy_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A policy file as the object a spec's `guard.policy` takes (`operations` always a mapping)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = load_yaml(handle.read())
    except YamlError as error:
        raise PolicyError(f"{path}:{error.line}: {error.reason}") from None
    operations = data.get("operations")
    if operations is None:
        data["operations"] = {}
    elif not isinstance(operations, dict):
        raise PolicyError(f"{path}: operations must be a mapping of category -> list of entries")
    return data


def default_policy_data() -> dict[str, Any]:
    return read_policy_file(DEFAULT_FILE)


def merged_policy(name: str, directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The policy a run of a subject gets: `directory`/default.yaml, then the named policy's
    operations appended category by category (its id becomes `default+<id>`)."""
    merged = read_policy_file(os.path.join(directory, f"{DEFAULT_NAME}.yaml"))
    if name != DEFAULT_NAME:
        subject = read_policy_file(os.path.join(directory, f"{name}.yaml"))
        for category, entries in subject["operations"].items():
            if not isinstance(entries, list):
                raise PolicyError(f"{os.path.join(directory, name + '.yaml')}: operations.{category} must be a list")
            merged["operations"].setdefault(category, []).extend(entries)
        merged["id"] = f"default+{subject.get('id', name)}"
    return merged


def parse_policy(data: dict[str, Any]) -> Policy:
    """Raises ValueError naming the entry when the policy is malformed."""
    operations: list[Operation] = []
    checks: list[Check] = []
    notes: list[str] = []
    categories = data.get("operations")
    if not isinstance(categories, dict):
        raise ValueError("policy: 'operations' must be a mapping of category -> list of entries")
    for category, entries in categories.items():
        if not isinstance(entries, list):
            raise ValueError(f"policy: operations.{category} must be a list")
        for number, entry in enumerate(entries):
            where = f"policy: operations.{category}[{number}]"
            if not isinstance(entry, dict):
                raise ValueError(f"{where}: must be a mapping")
            if "check" in entry:
                try:
                    reads = canonical_check(_text(entry, "check", where))
                except ValueError as error:
                    raise ValueError(f"{where}: {error}") from None
                checks.append(Check(reads, entry.get("module")))
                continue
            when, note = _when(entry.get("when"), where)
            if note:
                notes.append(note)
            also = entry.get("also_check") or ()
            operations.append(Operation(
                op=_text(entry, "op", where), category=category, arg=entry.get("arg"),
                index=_index(entry.get("index"), where),
                also_check=(also,) if isinstance(also, str) else tuple(also), when=when))
    return Policy(str(data.get("id", "")), tuple(operations), tuple(checks), tuple(notes))


def _text(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: {key!r} must be a non-empty string")
    return value


def _index(value: Any, where: str) -> int | str | None:
    if value is None or value in ("receiver", "last") or (isinstance(value, int) and value >= 0):
        return value  # type: ignore[no-any-return]
    raise ValueError(f"{where}: index must be a position, 'receiver', 'last' or null, not {value!r}")


def _when(text: Any, where: str) -> tuple[When | None, str | None]:
    if text is None:
        return None, None
    contains = _CONTAINS.fullmatch(str(text))
    if contains:
        return When(contains.group(1), tokens=tuple(contains.group(2).split())), None
    flags = _FLAGS.fullmatch(str(text))
    if flags:
        names = [name.strip() for name in flags.group(2).split("|")]
        if all(hasattr(os, name) for name in names):
            mask = 0
            for name in names:
                mask |= getattr(os, name)
            return When(flags.group(1), mask=mask), None
    return None, f"{where}: when {text!r} not understood; the entry applies to every call"
