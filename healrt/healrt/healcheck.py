"""Local HealCore re-check of heal code: an AST walk against the policy in healcore_policy.json."""

from __future__ import annotations

import ast
import json
import os

_POLICY_FILE = os.path.join(os.path.dirname(__file__), "healcore_policy.json")

with open(_POLICY_FILE, encoding="utf-8") as _handle:
    _POLICY = json.load(_handle)

FORBIDDEN_NAMES: frozenset[str] = frozenset(_POLICY["forbidden_names"])
FORBIDDEN_NODES: tuple[type, ...] = tuple(getattr(ast, name) for name in _POLICY["forbidden_nodes"] if hasattr(ast, name))
IMPORT_ALLOWLIST: frozenset[str] = frozenset(_POLICY["import_allowlist"])
HIDDEN_PREFIX: str = _POLICY["hidden_prefix"]


class HealRejected(Exception):
    """The heal code breaks the HealCore policy; the message says where and why."""


def _where(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def check_heal(tree: ast.Module) -> None:
    """Raise HealRejected on the first violation."""
    for node in ast.walk(tree):
        if isinstance(node, FORBIDDEN_NODES):
            raise HealRejected(f"{type(node).__name__} is not allowed ({_where(node)})")
        if isinstance(node, ast.Name):
            if node.id in FORBIDDEN_NAMES:
                raise HealRejected(f"name {node.id!r} is not allowed ({_where(node)})")
            if node.id.startswith(("__", HIDDEN_PREFIX)):
                raise HealRejected(f"name {node.id!r} is not allowed ({_where(node)})")
        elif isinstance(node, ast.Attribute) and node.attr.startswith(("__", HIDDEN_PREFIX)):
            raise HealRejected(f"attribute {node.attr!r} is not allowed ({_where(node)})")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                _check_module(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                raise HealRejected(f"relative import is not allowed ({_where(node)})")
            _check_module(node.module, node)
            for alias in node.names:
                if alias.name == "*" or alias.name.startswith(("__", HIDDEN_PREFIX)):
                    raise HealRejected(f"import of {alias.name!r} is not allowed ({_where(node)})")


def _check_module(name: str, node: ast.AST) -> None:
    if name.partition(".")[0] not in IMPORT_ALLOWLIST:
        raise HealRejected(f"import of {name!r} is not allowed ({_where(node)})")
