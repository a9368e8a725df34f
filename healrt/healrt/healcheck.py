"""Local HealCore re-check of heal code: an AST walk against the policy in healcore_policy.json.

healcore_policy.json is the one HealCore policy: guard-service's gate (authoritative) reads this
same file from its classpath (healcore/healcore_policy.json). This module maps the file's data onto
Python's AST:

- ``excluded_keywords``: the AST nodes those keywords build (``_KEYWORD_NODES`` below);
- ``reasons.generator_expression``: generator expressions (``ast.GeneratorExp``);
- ``forbidden_names``: names read or bound (``ast.Name``, ``import ... as``, ``except ... as``);
- ``forbidden_attributes``: attribute access and names taken with ``from ... import``;
- ``reflective_calls``: getattr and friends only called directly, with literal attribute names
  that are neither dunders nor forbidden;
- ``allowed_modules``: the import allowlist (a module or any submodule of one);
- ``single_argument_calls``: ``type`` only as ``type(x)``, never called in turn;
- ``format_calls``: the attribute paths in a literal format string's replacement fields;

plus the grammar's shape (``_GRAMMAR_NODES``: statements and expressions HealCore.g4 has a rule
for; any other, such as ``except*`` or a 3.12 ``type`` alias, is not HealCore on any interpreter),
and healrt's own rule (``healrt.hidden_prefix``): no name, attribute or imported name starting
with ``__`` or with the runtime's hidden prefix (``_healrt``), and no relative or star imports.
"""

from __future__ import annotations

import ast
import json
import os
import re
import string
from typing import Iterator

_POLICY_FILE = os.path.join(os.path.dirname(__file__), "healcore_policy.json")

with open(_POLICY_FILE, encoding="utf-8") as _handle:
    _POLICY = json.load(_handle)

#: The AST nodes each excluded keyword of the policy builds. Every keyword in the policy's
#: excluded_keywords must be listed here (checked when this module loads).
_KEYWORD_NODES: dict[str, tuple[str, ...]] = {
    "def": ("FunctionDef", "AsyncFunctionDef"),
    "class": ("ClassDef",),
    "lambda": ("Lambda",),
    "yield": ("Yield", "YieldFrom"),
    "async": ("AsyncFunctionDef", "AsyncFor", "AsyncWith"),
    "await": ("Await",),
    "global": ("Global",),
    "nonlocal": ("Nonlocal",),
    "return": ("Return",),
    "with": ("With", "AsyncWith"),
    "match": ("Match",),
}

#: The statement and expression nodes HealCore's grammar (HealCore.g4) produces. The excluded
#: keywords above are checked first, for their precise reasons.
_GRAMMAR_NODES: frozenset[str] = frozenset({
    "Expr", "Assign", "AugAssign", "AnnAssign", "Delete", "Pass", "Break", "Continue", "Raise", "Assert",
    "Import", "ImportFrom", "If", "While", "For", "Try",
    "BoolOp", "NamedExpr", "BinOp", "UnaryOp", "IfExp", "Dict", "Set", "ListComp", "SetComp", "DictComp",
    "Compare", "Call", "FormattedValue", "JoinedStr", "Constant", "Attribute", "Subscript", "Starred", "Name",
    "List", "Tuple", "Slice",
})

_unmapped = sorted(set(_POLICY["excluded_keywords"]) - set(_KEYWORD_NODES))
if _unmapped:
    raise ValueError(f"{_POLICY_FILE}: excluded keywords without an AST mapping in healcheck.py: {_unmapped}")


def _excluded_nodes() -> dict[type, tuple[str, str]]:
    """AST node type -> (construct, reason), from excluded_keywords and the generator-expression rule."""
    nodes: dict[type, tuple[str, str]] = {ast.GeneratorExp: ("generator expression", _POLICY["reasons"]["generator_expression"])}
    for keyword, reason in _POLICY["excluded_keywords"].items():
        for node_name in _KEYWORD_NODES[keyword]:
            node_type = getattr(ast, node_name, None)
            if node_type is not None:
                nodes.setdefault(node_type, (keyword, reason))
    return nodes


VERSION: str = _POLICY["version"]
EXCLUDED_NODES: dict[type, tuple[str, str]] = _excluded_nodes()
FORBIDDEN_NODES: tuple[type, ...] = tuple(EXCLUDED_NODES)
FORBIDDEN_NAMES: dict[str, str] = dict(_POLICY["forbidden_names"])
FORBIDDEN_ATTRIBUTES: dict[str, str] = dict(_POLICY["forbidden_attributes"])
IMPORT_ALLOWLIST: frozenset[str] = frozenset(_POLICY["allowed_modules"])
REFLECTIVE_CALLABLES: dict[str, str] = dict(_POLICY["reflective_calls"]["callables"])
REFLECTIVE_REASON: str = _POLICY["reflective_calls"]["reason"]
DUNDER_REASON: str = _POLICY["reasons"]["dunder"]
SYNTAX_REASON: str = _POLICY["reasons"]["syntax"]
IMPORT_REASON: str = _POLICY["reasons"]["import_not_allowed"]
SINGLE_ARGUMENT_CALLABLES: frozenset[str] = frozenset(_POLICY["single_argument_calls"]["callables"])
SINGLE_ARGUMENT_REASON: str = _POLICY["single_argument_calls"]["reason"]
FORMAT_METHODS: frozenset[str] = frozenset(_POLICY["format_calls"]["methods"])
HIDDEN_PREFIX: str = _POLICY["healrt"]["hidden_prefix"]
HIDDEN_REASON: str = _POLICY["healrt"]["hidden_prefix_reason"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class HealRejected(Exception):
    """The heal code breaks the HealCore policy; the message says where and why."""


def _where(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _reject(what: str, node: ast.AST, reason: str) -> HealRejected:
    return HealRejected(f"{what} is not allowed ({_where(node)}): {reason}")


def _hidden_reason(identifier: str) -> str | None:
    """Why an identifier is hidden from heals (dunder or runtime prefix), or None."""
    if identifier.startswith("__"):
        return DUNDER_REASON
    if identifier.startswith(HIDDEN_PREFIX):
        return HIDDEN_REASON
    return None


def _name_reason(name: str) -> str | None:
    return FORBIDDEN_NAMES.get(name) or _hidden_reason(name)


def attribute_reason(attribute: str) -> str | None:
    return FORBIDDEN_ATTRIBUTES.get(attribute) or _hidden_reason(attribute)


def _binding_reason(name: str) -> str | None:
    """Why a name bound by ``import ... as`` or ``except ... as`` is refused: as a name, and no
    reflective or single-argument callable's name either (calls of it could not be checked, as the gate)."""
    if name in SINGLE_ARGUMENT_CALLABLES:
        return SINGLE_ARGUMENT_REASON
    return _name_reason(name) or (REFLECTIVE_REASON if name in REFLECTIVE_CALLABLES else None)


def format_field_attributes(template: str) -> Iterator[str]:
    """The attribute names a format string resolves (``{0.a.b}`` gives a, b), nested fields of a
    format spec included; ``str.format`` walks exactly these. Raises ValueError when malformed."""
    for _text, field, spec, _conversion in string.Formatter().parse(template):
        if field:
            # field_name = arg_name ("." attribute | "[" index "]")*: indexes are keys, not attributes
            for part in re.sub(r"\[[^\]]*\]", "", field).split(".")[1:]:
                yield part
        if spec:
            yield from format_field_attributes(spec)


def format_refusal(template: str) -> str | None:
    """Why a format string may not be used (an attribute it walks is a dunder, hidden or forbidden), or None."""
    try:
        for attribute in format_field_attributes(template):
            reason = attribute_reason(attribute)
            if reason is not None:
                return f"its replacement field reads attribute {attribute!r}: {reason}"
    except ValueError:
        return None  # str.format raises on it too: nothing is walked
    return None


def check_heal(tree: ast.Module) -> None:
    """Raise HealRejected on the first violation."""
    called = {id(node.func): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        excluded = EXCLUDED_NODES.get(type(node))
        if excluded is not None:
            raise _reject(excluded[0], node, excluded[1])
        if isinstance(node, (ast.stmt, ast.expr)) and type(node).__name__ not in _GRAMMAR_NODES:
            raise _reject(type(node).__name__, node, SYNTAX_REASON + "no HealCore rule builds it")
        if isinstance(node, ast.comprehension) and node.is_async:
            raise _reject("async", node.iter, _POLICY["excluded_keywords"].get("async", "async code is not HealCore"))
        if isinstance(node, ast.Name):
            _check_word("name", node.id, _name_reason(node.id), node, called)
            if node.id in SINGLE_ARGUMENT_CALLABLES:
                _check_single_argument(node, called)
        elif isinstance(node, ast.Attribute):
            _check_word("attribute", node.attr, attribute_reason(node.attr), node, called)
            if node.attr in FORMAT_METHODS and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                reason = format_refusal(node.value.value)
                if reason is not None:
                    raise _reject(f"format string {node.value.value!r}", node, reason)
        elif isinstance(node, ast.ExceptHandler) and node.name is not None:
            reason = _binding_reason(node.name)
            if reason is not None:
                raise _reject(f"name {node.name!r}", node, reason)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                _check_module(alias.name, node)
                _check_binding(alias, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                raise HealRejected(f"relative import is not allowed ({_where(node)})")
            _check_module(node.module, node)
            for alias in node.names:
                if alias.name == "*":
                    raise HealRejected(f"import of '*' is not allowed ({_where(node)})")
                reason = FORBIDDEN_ATTRIBUTES.get(alias.name) or _name_reason(alias.name)
                if reason is None and alias.name in REFLECTIVE_CALLABLES and alias.asname not in (None, alias.name):
                    reason = REFLECTIVE_REASON  # under another name its calls would escape the check
                if reason is not None:
                    raise _reject(f"import of {alias.name!r}", node, reason)
                _check_binding(alias, node)


def _check_binding(alias: ast.alias, node: ast.AST) -> None:
    """The name an ``as`` clause binds obeys the binding rules."""
    if alias.asname is not None:
        reason = _binding_reason(alias.asname)
        if reason is not None:
            raise _reject(f"name {alias.asname!r}", node, reason)


def _check_module(name: str, node: ast.AST) -> None:
    root = name.partition(".")[0]
    if root not in IMPORT_ALLOWLIST:
        raise _reject(f"import of {name!r}", node, IMPORT_REASON.replace("{module}", root))
    for part in name.split("."):
        reason = _hidden_reason(part)
        if reason is not None:
            raise _reject(f"import of {name!r}", node, reason)


def _check_word(kind: str, word: str, reason: str | None, node: ast.AST, called: dict[int, ast.Call]) -> None:
    """A name or attribute: refused with the policy's reason, if any; a reflective one is checked at its call."""
    if reason is not None:
        raise _reject(f"{kind} {word!r}", node, reason)
    if word in REFLECTIVE_CALLABLES:
        _check_reflective(word, node, called.get(id(node)))


def _check_single_argument(node: ast.Name, called: dict[int, ast.Call]) -> None:
    """``type(x)`` only: one positional argument, no keywords or unpacking, result not called."""
    call = called.get(id(node))
    ok = (call is not None and len(call.args) == 1 and not isinstance(call.args[0], ast.Starred)
          and not call.keywords and id(call) not in called)
    if not ok:
        raise _reject(f"call of {node.id!r}", node, SINGLE_ARGUMENT_REASON)


def _check_reflective(callable_name: str, node: ast.AST, call: ast.Call | None) -> None:
    """A reflective callable is allowed only when called directly with literal attribute names
    that are neither dunders, hidden, nor forbidden, and without * or ** arguments (as the gate)."""
    reason = REFLECTIVE_REASON if call is None else _reflective_refusal(callable_name, call)
    if reason is not None:
        raise _reject(f"reflective access {callable_name!r}", node, reason)


def _reflective_refusal(callable_name: str, call: ast.Call) -> str | None:
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return REFLECTIVE_REASON
    which = REFLECTIVE_CALLABLES[callable_name].lower()
    if which == "first":
        names = call.args[:1]
    elif which == "second":
        names = call.args[1:2]
    else:  # every (attrgetter takes dotted paths)
        names = call.args
    if not names:
        return REFLECTIVE_REASON
    for argument in names:
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            return REFLECTIVE_REASON
        parts = argument.value.split(".") if which == "every" else [argument.value]
        for part in parts:
            if not _IDENTIFIER.fullmatch(part):
                return REFLECTIVE_REASON
            reason = reflective_name_reason(part)
            if reason is not None:
                return reason
    return None


def reflective_name_reason(part: str) -> str | None:
    """Why an attribute name given to a reflective callable is refused, whether the gate reads it
    as a literal or healvalues.py sees it at run time; None if allowed."""
    reason = _hidden_reason(part) or FORBIDDEN_ATTRIBUTES.get(part) or FORBIDDEN_NAMES.get(part)
    if reason is None and part in REFLECTIVE_CALLABLES:
        return REFLECTIVE_REASON  # getattr(operator, "attrgetter") is attrgetter, uncalled
    return reason
