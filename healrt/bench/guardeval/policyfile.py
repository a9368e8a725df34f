"""An instance's protected-operation policy as healrt's spec takes it: dataset/policies/<name>.yaml
merged onto default.yaml (default first), as JSON.

The policy files use a YAML subset: top-level `key: scalar`, `operations: {}` or `operations:`
followed by `  category: [` ... `  ]` with one flow mapping `{key: value, ...},` a line, and `#`
comments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .runner import REPO

POLICIES = REPO / "dataset" / "policies"
_PAIR = re.compile(r'\s*([\w.]+)\s*:\s*("(?:[^"\\]|\\.)*"|[^,]*?)\s*(?:,|$)')


class PolicyError(ValueError):
    pass


def _scalar(text: str) -> Any:
    text = text.strip()
    if text.startswith('"'):
        return json.loads(text)
    if text in ("null", "~", ""):
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _strip_comment(line: str) -> str:
    """The line without its comment (a `#` outside double quotes)."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            quoted = not quoted
        elif char == "#" and not quoted:
            return line[:index].rstrip()
    return line.rstrip()


def read_policy(path: Path) -> dict[str, Any]:
    policy: dict[str, Any] = {"operations": {}}
    category: str | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = _strip_comment(raw)
        if not line.strip():
            continue
        stripped = line.strip()
        if category is not None:
            if stripped == "]":
                category = None
            elif stripped.startswith("{") and stripped.rstrip(",").endswith("}"):
                body = stripped.rstrip(",")[1:-1]
                policy["operations"][category].append({k: _scalar(v) for k, v in _PAIR.findall(body)})
            else:
                raise PolicyError(f"{path}:{number}: expected a `{{...}},` entry or `]`, got {stripped!r}")
        elif not line.startswith(" "):
            key, _, value = line.partition(":")
            if key != "operations":
                policy[key.strip()] = _scalar(value)
            elif value.strip() not in ("", "{}"):
                raise PolicyError(f"{path}:{number}: operations must be a block or {{}}")
        elif stripped.endswith("["):
            category = stripped.partition(":")[0].strip()
            policy["operations"].setdefault(category, [])
        else:
            raise PolicyError(f"{path}:{number}: unexpected line {stripped!r}")
    if category is not None:
        raise PolicyError(f"{path}: category {category!r} is not closed with `]`")
    return policy


def merged_policy(name: str, directory: Path = POLICIES) -> dict[str, Any]:
    """default.yaml, then the named policy's operations appended category by category."""
    merged = read_policy(directory / "default.yaml")
    if name != "default":
        subject = read_policy(directory / f"{name}.yaml")
        for category, entries in subject["operations"].items():
            merged["operations"].setdefault(category, []).extend(entries)
        merged["id"] = f"default+{subject.get('id', name)}"
    return merged
