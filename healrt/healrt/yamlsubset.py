"""A reader for the YAML subset of the repository's data files (stdlib only: no PyYAML).

Read by healrt (its default protected-operation policy) and by the dataset tooling (instance.yaml,
the subject catalog, the policies). What it understands:
- nested block mappings (2-space indent) of `key: value`, and `#` comments;
- scalars: plain, "double" (JSON escapes) or 'single' quoted; null/~, true/false, integers;
- flow lists on one line (`[a, b]`) and `{}` (an empty mapping);
- a flow list spread over lines, one element a line, as the policies write their operations:
  `key: [`, then `{k: v, ...},` or `scalar,` lines, then `]`.
Anything else is a YamlError naming the line.
"""
from __future__ import annotations

import json
from typing import Any


class YamlError(ValueError):
    """`line N: reason`; `line` and `reason` also as attributes."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def _unquoted(text: str) -> tuple[list[int], bool]:
    """The positions of the characters outside quoted strings (quotes included), and whether a
    string is left open at the end."""
    outside, quote = [], None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and not (quote == '"' and _escaped(text, i)):
                quote = None
        else:
            if ch in "\"'":
                quote = ch
            outside.append(i)
    return outside, quote is not None


def _escaped(text: str, index: int) -> bool:
    """Whether the character at `index` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _strip_comment(line: str) -> str:
    for i in _unquoted(line)[0]:
        if line[i] == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _split(text: str, lineno: int) -> list[str]:
    """The comma-separated parts of a flow collection's inside (commas in quotes do not split)."""
    outside, open_string = _unquoted(text)
    if open_string:
        raise YamlError(lineno, "unterminated string")
    parts, start = [], 0
    for i in outside:
        if text[i] in "[{":
            raise YamlError(lineno, "nested flow collections are not supported")
        if text[i] == ",":
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    if parts and not parts[-1].strip():
        parts.pop()  # a trailing comma
    return parts


def _scalar(text: str, lineno: int) -> Any:
    text = text.strip()
    if text == "":
        return None
    if text[0] == '"':
        if len(text) < 2 or text[-1] != '"':
            raise YamlError(lineno, "unterminated string")
        return json.loads(text)
    if text[0] == "'":
        if len(text) < 2 or text[-1] != "'":
            raise YamlError(lineno, "unterminated string")
        return text[1:-1].replace("''", "'")
    if text[0] == "[":
        if text[-1] != "]":
            raise YamlError(lineno, "unterminated flow list")
        return [_scalar(part, lineno) for part in _split(text[1:-1], lineno)]
    if text[0] == "{":
        if text[-1] != "}":
            raise YamlError(lineno, "unterminated flow mapping")
        return _flow_mapping(text[1:-1], lineno)
    if text[0] in "&*!|>":
        raise YamlError(lineno, f"unsupported YAML construct {text[0]!r}")
    if text in ("null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _flow_mapping(inside: str, lineno: int) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for part in _split(inside, lineno):
        key, colon, value = part.partition(":")
        key = key.strip()
        if not colon or not key:
            raise YamlError(lineno, f"expected 'key: value' in a flow mapping, got {part.strip()!r}")
        if key in mapping:
            raise YamlError(lineno, f"duplicate key {key!r}")
        mapping[key] = _scalar(value, lineno)
    return mapping


def load_yaml(text: str) -> dict[str, Any]:
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, root)]  # (indent, mapping)
    pending = None                  # (indent, parent, key) awaiting a nested block
    open_list: tuple[list[Any], int] | None = None  # a multi-line flow list being read, and where it opened
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError(lineno, "tab indentation")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        body = line.strip()
        if open_list is not None:
            if body == "]":
                open_list = None
            elif body.endswith(","):
                open_list[0].append(_scalar(body[:-1], lineno))
            else:
                raise YamlError(lineno, f"unterminated flow list (opened on line {open_list[1]}): expected an "
                                        f"element ending with ',' or ']', got {body!r}")
            continue
        indent = len(line) - len(line.lstrip(" "))
        if body.startswith("- "):
            raise YamlError(lineno, "block lists are not supported; use [a, b]")
        if pending is not None:
            p_indent, parent, key = pending
            pending = None
            if indent > p_indent:
                parent[key] = {}
                stack.append((indent, parent[key]))
            else:
                parent[key] = None
        while stack and indent < stack[-1][0]:
            stack.pop()
        if not stack or indent != stack[-1][0]:
            if stack[-1][0] == -1 and indent == 0:
                stack[-1] = (0, root)
            else:
                raise YamlError(lineno, "bad indentation")
        mapping = stack[-1][1]
        if ":" not in body:
            raise YamlError(lineno, "expected 'key: value'")
        key, _, rest = body.partition(":")
        if rest and not rest.startswith(" "):
            raise YamlError(lineno, "expected a space after ':'")
        key = key.strip()
        if key in mapping:
            raise YamlError(lineno, f"duplicate key {key!r}")
        if rest.strip() == "[":
            mapping[key] = []
            open_list = (mapping[key], lineno)
        elif rest.strip():
            mapping[key] = _scalar(rest, lineno)
        else:
            pending = (indent, mapping, key)
    if open_list is not None:
        raise YamlError(open_list[1], "flow list not closed with ']'")
    if pending is not None:
        pending[1][pending[2]] = None
    return root
