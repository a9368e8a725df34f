"""A reader for the YAML subset the dataset files use (stdlib only, so hbdata needs no PyYAML).

Nested block mappings (2-space indent), scalars (plain, "double" or 'single' quoted), flow lists
of scalars ([a, b]) and comments. Anything else is an error naming the line.
"""
from __future__ import annotations

import json


class YamlError(ValueError):
    pass


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text: str, lineno: int):
    text = text.strip()
    if text == "":
        return None
    if text[0] == '"':
        if len(text) < 2 or text[-1] != '"':
            raise YamlError(f"line {lineno}: unterminated string")
        return json.loads(text)
    if text[0] == "'":
        if len(text) < 2 or text[-1] != "'":
            raise YamlError(f"line {lineno}: unterminated string")
        return text[1:-1].replace("''", "'")
    if text[0] == "[":
        if text[-1] != "]":
            raise YamlError(f"line {lineno}: unterminated flow list")
        inner = text[1:-1].strip()
        return [] if not inner else [_scalar(p, lineno) for p in inner.split(",")]
    if text[0] in "{&*!|>":
        raise YamlError(f"line {lineno}: unsupported YAML construct {text[0]!r}")
    if text in ("null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def load_yaml(text: str) -> dict:
    root: dict = {}
    stack = [(-1, root)]            # (indent, mapping)
    pending = None                  # (indent, parent, key) awaiting a nested block
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError(f"line {lineno}: tab indentation")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- "):
            raise YamlError(f"line {lineno}: block lists are not supported; use [a, b]")
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
                raise YamlError(f"line {lineno}: bad indentation")
        mapping = stack[-1][1]
        if ":" not in body:
            raise YamlError(f"line {lineno}: expected 'key: value'")
        key, _, rest = body.partition(":")
        if rest and not rest.startswith(" "):
            raise YamlError(f"line {lineno}: expected a space after ':'")
        key = key.strip()
        if key in mapping:
            raise YamlError(f"line {lineno}: duplicate key {key!r}")
        if rest.strip():
            mapping[key] = _scalar(rest, lineno)
        else:
            pending = (indent, mapping, key)
    if pending is not None:
        pending[1][pending[2]] = None
    return root
