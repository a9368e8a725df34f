"""A small JSON-Schema validator: exactly the keywords dataset/schema/instance.schema.json uses.

Java validates instance.yaml against the same file with a full library; this one exists so that
hbdata stays stdlib-only. Keywords: type, required, properties, additionalProperties,
propertyNames, pattern, enum, const, minimum, minLength, minItems, items, oneOf, anyOf, allOf,
if/then, and local `$ref`s (`#/$defs/...`). An unknown keyword is an error, not silently ignored,
so that the schema cannot grow beyond what this validator checks.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"
INSTANCE_SCHEMA = SCHEMA_DIR / "instance.schema.json"

_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description"}
_KEYWORDS = {"type", "required", "properties", "additionalProperties", "propertyNames", "pattern",
             "enum", "const", "minimum", "minLength", "minItems", "items", "oneOf", "anyOf", "allOf",
             "if", "then", "$ref"}

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    # bool is an int subclass in Python but not a JSON integer.
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_ARTICLE = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
            "number": "a number", "boolean": "true or false", "null": "null"}


class SchemaError(ValueError):
    """The schema itself uses something this validator does not implement."""


@lru_cache(maxsize=None)
def load_schema(path: Path = INSTANCE_SCHEMA) -> dict:
    schema = json.loads(path.read_text(encoding="utf-8"))
    _check_keywords(schema, "#")
    return schema


def _check_keywords(node: Any, where: str) -> None:
    if not isinstance(node, dict):
        return
    unknown = set(node) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise SchemaError(f"{where}: unsupported schema keyword(s) {sorted(unknown)}")
    for key in ("properties", "$defs"):
        for name, sub in node.get(key, {}).items():
            _check_keywords(sub, f"{where}/{key}/{name}")
    for key in ("additionalProperties", "propertyNames", "items", "if", "then"):
        _check_keywords(node.get(key), f"{where}/{key}")
    for key in ("oneOf", "anyOf", "allOf"):
        for i, sub in enumerate(node.get(key, [])):
            _check_keywords(sub, f"{where}/{key}/{i}")


def validate(value: Any, schema: dict | None = None) -> list[str]:
    """Every violation as `field.path: problem` (the path is empty for the top level)."""
    schema = load_schema() if schema is None else schema
    return _Validator(schema).check(value, schema, "")


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, (dict, list)) else json.dumps(value)[:80]


class _Validator:
    def __init__(self, root: dict) -> None:
        self.root = root

    def _resolve(self, ref: str) -> dict:
        if not ref.startswith("#/"):
            raise SchemaError(f"only local $ref is supported, got {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def check(self, value: Any, schema: dict, path: str) -> list[str]:
        if "$ref" in schema:
            schema = {**self._resolve(schema["$ref"]), **{k: v for k, v in schema.items() if k != "$ref"}}
        where = path or "(top level)"
        errors = self._type_errors(value, schema, where)
        if errors:
            return errors  # the remaining keywords would only repeat the type mismatch
        if "const" in schema and value != schema["const"]:
            errors.append(f"{where}: must be {schema['const']!r}, got {_show(value)}")
        if "enum" in schema and value not in schema["enum"]:
            errors.append(f"{where}: must be one of {', '.join(map(str, schema['enum']))}; got {_show(value)}")
        if isinstance(value, str):
            if "minLength" in schema and len(value) < schema["minLength"]:
                errors.append(f"{where}: must have at least {schema['minLength']} character(s)")
            if "pattern" in schema and not re.search(schema["pattern"], value):
                errors.append(f"{where}: {_show(value)} does not match the pattern {schema['pattern']}")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and "minimum" in schema \
                and value < schema["minimum"]:
            errors.append(f"{where}: must be >= {schema['minimum']}, got {_show(value)}")
        if isinstance(value, list):
            errors += self._array(value, schema, path, where)
        if isinstance(value, dict):
            errors += self._object(value, schema, path, where)
        errors += self._combinators(value, schema, path, where)
        return errors

    @staticmethod
    def _type_errors(value: Any, schema: dict, where: str) -> list[str]:
        wanted = schema.get("type")
        if wanted is None:
            return []
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        if any(_TYPES[name](value) for name in names):
            return []
        what = " or ".join(_ARTICLE[name] for name in names)
        if names == ["integer"] and "minimum" in schema:
            what += f" >= {schema['minimum']}"  # one message for both, as the contract's example shows
        return [f"{where}: must be {what}, got {_show(value)}"]

    def _array(self, value: list, schema: dict, path: str, where: str) -> list[str]:
        errors = []
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{where}: must have at least {schema['minItems']} item(s)")
        if "items" in schema:
            for i, item in enumerate(value):
                errors += self.check(item, schema["items"], _join(path, i))
        return errors

    def _object(self, value: dict, schema: dict, path: str, where: str) -> list[str]:
        errors = [f"{_join(path, key)}: required field is missing" for key in schema.get("required", [])
                  if key not in value]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if "propertyNames" in schema:
                errors += self.check(key, schema["propertyNames"], _join(path, key))
            if key in properties:
                errors += self.check(item, properties[key], _join(path, key))
            elif extra is False:
                errors.append(f"{_join(path, key)}: unknown field")
            elif isinstance(extra, dict):
                errors += self.check(item, extra, _join(path, key))
        return errors

    def _combinators(self, value: Any, schema: dict, path: str, where: str) -> list[str]:
        errors = []
        for sub in schema.get("allOf", []):
            errors += self.check(value, sub, path)
        if "anyOf" in schema:
            results = [self.check(value, sub, path) for sub in schema["anyOf"]]
            if all(results):
                errors.append(f"{where}: matches none of the alternatives: "
                              + " | ".join("; ".join(r) for r in results))
        if "oneOf" in schema:
            results = [self.check(value, sub, path) for sub in schema["oneOf"]]
            matched = sum(not r for r in results)
            if matched != 1:
                errors.append(f"{where}: must match exactly one of {len(results)} alternatives, matches {matched}"
                              + (": " + " | ".join("; ".join(r) for r in results) if matched == 0 else
                                 f" ({_describe_alternatives(schema['oneOf'])})"))
        if "if" in schema and not self.check(value, schema["if"], path) and "then" in schema:
            reason = _describe_condition(schema["if"], f"{path}." if path else "")
            errors += [f"{e} ({reason})" for e in self.check(value, schema["then"], path)]
        return errors


def _describe_alternatives(alternatives: list[dict]) -> str:
    """`bug_patch | fix_patch` for alternatives that are bare `required` lists."""
    names = [" + ".join(alt.get("required", [])) or json.dumps(alt) for alt in alternatives]
    return "exactly one of: " + " | ".join(names)


def _describe_condition(condition: dict, prefix: str = "") -> str:
    """`because provenance.kind is 'real-bug'` for the nested-const conditions the schema uses."""
    for key, sub in condition.get("properties", {}).items():
        if "const" in sub:
            return f"because {prefix}{key} is {sub['const']!r}"
        if "properties" in sub:
            return _describe_condition(sub, f"{prefix}{key}.")
    return "by a condition of the schema"
