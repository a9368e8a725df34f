"""Per-code-object caches: keyed by identity, dropped with the code object."""

from __future__ import annotations

import gc

from healrt.percode import per_code


def test_identity_not_equality() -> None:
    calls: list[str] = []

    @per_code
    def filename(code):  # type: ignore[no-untyped-def]
        calls.append(code.co_filename)
        return code.co_filename

    first = compile("x = 1", "a.py", "exec")
    second = first.replace(co_filename="b.py")
    assert first == second  # code equality ignores the file: why lru_cache is wrong here
    assert (filename(first), filename(second), filename(first)) == ("a.py", "b.py", "a.py")
    assert calls == ["a.py", "b.py"]


def test_entry_dropped_with_the_code() -> None:
    cache = per_code(lambda code: code.co_name)
    code = compile("y = 2", "c.py", "exec")
    cache(code)
    assert len(cache._entries) == 1
    del code
    gc.collect()
    assert not cache._entries
