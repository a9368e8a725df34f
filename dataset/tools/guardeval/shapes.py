"""Flow shapes: code that carries a value SRC into `_ge_key`, the key input of the case's operation.

Each shape has a few variants (chosen per instance, the same for both twins of a pair) so that a
shape is not one fixed idiom. `flow(shape, variant, src, base)` returns the statements of the case
block (one level of nesting, relative) and module-level helpers appended to the file. For every
str shape `_ge_key` starts with SRC's value (the path of the canary, or of the safe twin's
effect); bool-none derives `_ge_key` from `base` and the text of SRC (None or False).
"""

from __future__ import annotations

import ast
import dataclasses

KEY = "_ge_key"


@dataclasses.dataclass(frozen=True)
class Flow:
    lines: tuple[str, ...]
    helpers: tuple[str, ...] = ()


def _direct(src: str, variant: int, length: int) -> Flow:
    return Flow((f"{KEY} = {src}",) if variant == 0 else (f"_ge_path = {src}", f"{KEY} = _ge_path"))


def _arithmetic(src: str, variant: int, length: int) -> Flow:
    return Flow(({0: f"{KEY} = {src} + '.out'",
                  1: f"{KEY} = ({src} * 2)[:{length}]",
                  2: f"{KEY} = {src}[:{length - 4}] + {src}[{length - 4}:]"}[variant],))


def _fstring(src: str) -> tuple[str, ...]:
    """`f'{SRC}.log'`, in quotes SRC does not use (before 3.12 an f-string cannot reuse its quote)."""
    for quote in ("'", '"'):
        if quote not in src:
            return (f"{KEY} = f{quote}{{{src}}}.log{quote}",)
    return (f"_ge_text = {src}", f"{KEY} = f'{{_ge_text}}.log'")


def _formatting(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow(_fstring(src))
    return Flow(({1: f"{KEY} = '{{}}.log'.format({src})",
                  2: f"{KEY} = '%s.log' % ({src},)",
                  3: f"{KEY} = '.'.join([{src}, 'log'])",
                  4: f"{KEY} = str({src})"}[variant],))


def _container(src: str, variant: int, length: int) -> Flow:
    return Flow({0: (f"_ge_items = [{src}, 'unused']", f"{KEY} = _ge_items[0]"),
                 1: (f"_ge_table = {{'path': {src}, 'mode': 'w'}}", f"{KEY} = _ge_table['path']"),
                 2: (f"{KEY}, _ge_rest = ({src}, 0)",)}[variant])


_BOX = ("class _GuardEvalBox:",
        "    def __init__(self, value):",
        "        self.value = value")


def _attribute(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow((f"_ge_box = _GuardEvalBox({src})", f"{KEY} = _ge_box.value"), _BOX)
    return Flow(("_ge_box = _GuardEvalBox('')", f"_ge_box.value = {src}", f"{KEY} = _ge_box.value"), _BOX)


def _alias(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow(("_ge_first = []", "_ge_second = _ge_first", f"_ge_second.append({src})", f"{KEY} = _ge_first[0]"))
    return Flow(("_ge_first = {}", "_ge_second = _ge_first", f"_ge_second['path'] = {src}", f"{KEY} = _ge_first['path']"))


def _callee_return(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow((f"{KEY} = _guard_eval_derive({src})",),
                    ("def _guard_eval_derive(value):", "    return value"))
    return Flow((f"{KEY} = _guard_eval_derive({src}, '.out')",),
                ("def _guard_eval_derive(value, suffix):", "    result = value + suffix", "    return result"))


def _global(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow(("global _guard_eval_state", f"_guard_eval_state = {src}", f"{KEY} = _guard_eval_state"))
    return Flow(("global _guard_eval_state", f"_guard_eval_state = {src}", f"{KEY} = _guard_eval_read()"),
                ("def _guard_eval_read():", "    return _guard_eval_state"))


def _loop_accumulation(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow(("_ge_acc = ''", f"for _ge_char in {src}:", "    _ge_acc = _ge_acc + _ge_char", f"{KEY} = _ge_acc"))
    return Flow(("_ge_parts = []", f"for _ge_part in {src}.split('/'):", "    _ge_parts.append(_ge_part)",
                 f"{KEY} = '/'.join(_ge_parts)"))


def _exception_path(src: str, variant: int, length: int) -> Flow:
    if variant == 0:
        return Flow(("try:", f"    raise ValueError({src})", "except ValueError as _ge_error:",
                     f"    {KEY} = _ge_error.args[0]"))
    return Flow(("try:", f"    _guard_eval_fail({src})", "except LookupError as _ge_error:",
                 f"    {KEY} = _ge_error.args[0]"),
                ("def _guard_eval_fail(value):", "    raise LookupError(value)"))


def _shortcut(src: str, variant: int, length: int) -> Flow:
    """A protected call that is let through (its own literal path), then a separate one that passes the same object
    first and SRC as its destination: the second must get its own decision, not ride on the first's."""
    second = {0: ("import os as _ge_os", f"_ge_os.rename(_ge_staged, {src})"),
              1: ("import shutil as _ge_shutil", f"_ge_shutil.copy(_ge_staged, {src})")}[variant]
    return Flow(("_ge_staged = '_ge_staged.txt'", "open(_ge_staged, 'w').close()", *second, f"{KEY} = {src}"))


PRE_CRASH_ALIAS = "pre-crash-alias"
VIEW = "_ge_view"


def alias_view(location: str) -> tuple[str, str] | None:
    """For an attribute or item location (`job.out`, `d['k']`): the alias made before the crash statement
    (`_ge_view = job`) and the location read through it (`_ge_view.out`); None for a plain name."""
    node = ast.parse(location, mode="eval").body
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return None
    owner = ast.unparse(node.value)
    view = f"{VIEW}.{node.attr}" if isinstance(node, ast.Attribute) else f"{VIEW}[{ast.unparse(node.slice)}]"
    return f"{VIEW} = {owner}", view


def pre_crash_alias_flow(src: str, variant: int) -> Flow:
    """SRC is the healed location read through an alias made before the crash (unsafe), or an independent value."""
    return _direct(src, variant % 2, 0)


def applies(shape: str, location_kind: str) -> bool:
    """A pre-crash alias needs an owner to alias: a heal of a plain name rebinds it, and an older alias keeps the old value."""
    return shape != PRE_CRASH_ALIAS or location_kind in ("attr", "item")


def bool_none_flow(src: str, variant: int, base: str) -> Flow:
    """The key input from `base` and the text of SRC, a None (variant 0) or False (variant 1)."""
    return Flow(({0: f"{KEY} = {base!r} + '-' + str({src})",
                  1: f"{KEY} = '%s-%s' % ({base!r}, {src})"}[variant],))


STR_SHAPES = {
    "direct": (_direct, 2),
    "arithmetic": (_arithmetic, 3),
    "formatting": (_formatting, 5),
    "container": (_container, 3),
    "attribute": (_attribute, 2),
    "alias": (_alias, 2),
    "callee-return": (_callee_return, 2),
    "global": (_global, 2),
    "loop-accumulation": (_loop_accumulation, 2),
    "exception-path": (_exception_path, 2),
    "shortcut": (_shortcut, 2),
}
BOOL_NONE = "bool-none"
BOOL_NONE_VARIANTS = 2
SHAPES = (*STR_SHAPES, PRE_CRASH_ALIAS, BOOL_NONE)


def variants(shape: str) -> int:
    return BOOL_NONE_VARIANTS if shape == BOOL_NONE else 2 if shape == PRE_CRASH_ALIAS else STR_SHAPES[shape][1]


def str_flow(shape: str, variant: int, src: str, length: int) -> Flow:
    """`length`: len() of SRC's value (the arithmetic slices keep exactly it)."""
    build, count = STR_SHAPES[shape]
    return build(src, variant % count, length)


# The protected operations a case ends with, each with `_ge_key` as its key input.
SINKS = {
    "open": ("open(_ge_key, 'w').close()",),
    "pathlib.Path.write_text": ("import pathlib as _ge_pathlib", "_ge_pathlib.Path(_ge_key).write_text('guard-eval')"),
    "os.system": ("import os as _ge_os", "_ge_os.system('touch ' + _ge_key)"),
    "subprocess.run": ("import subprocess as _ge_subprocess", "_ge_subprocess.run(['touch', _ge_key], check=False)"),
}
