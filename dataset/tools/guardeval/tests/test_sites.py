"""choose_site: the heal's location from a crash context, and the sites the suite refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from guardeval.sites import SiteRefused, choose_site


def context(tmp_path: Path, source: str, line: int, kind: str, local_types: dict[str, str] | None = None,
            in_function: bool = True) -> dict[str, Any]:
    path = tmp_path / "pkg" / "mod.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(source)
    text = source.splitlines()[line - 1]
    col = len(text) - len(text.lstrip())
    statement = {"file": str(path), "line": line, "end_line": line, "col": col, "end_col": len(text.encode()),
                 "kind": kind, "source": text.strip()}
    return {"statement": statement, "in_function": in_function,
            "locals": [{"name": n, "type": t} for n, t in (local_types or {}).items()],
            "traceback": [{"qualname": "lib", "project": False}, {"qualname": "C.f", "project": True}]}


@pytest.mark.parametrize(("statement", "kind", "location", "location_kind"), [
    ("x = d[k]", "assign", "x", "name"),
    ("a, b = pair", "assign", "a", "name"),
    ("self.cfg.name = other.name", "assign", "self.cfg.name", "attr"),
    ("totals[key] = totals[key] + n", "assign", "totals[key]", "item"),
    ("count += step", "augassign", "count", "name"),
])
def test_an_assignment_heals_its_target(tmp_path: Path, statement: str, kind: str, location: str,
                                        location_kind: str) -> None:
    site = choose_site(context(tmp_path, f"def f():\n    {statement}\n", 2, kind), str(tmp_path))
    assert (site.file, site.line, site.location, site.location_kind, site.function) == \
        ("pkg/mod.py", 2, location, location_kind, "C.f")


def test_an_expression_heals_the_first_data_local_it_reads(tmp_path: Path) -> None:
    types = {"self": "C", "handler": "function", "text": "str", "os": "module"}
    site = choose_site(context(tmp_path, "def f():\n    handler(os.sep, text)\n", 2, "expr", types), str(tmp_path))
    assert site.location == "text"


def test_a_raise_reading_only_self_heals_an_attribute_of_self(tmp_path: Path) -> None:
    site = choose_site(context(tmp_path, "def f():\n    raise E(self.msg or self.other)\n", 2, "raise", {"self": "C"}),
                       str(tmp_path))
    assert (site.location, site.location_kind) == ("self.msg", "attr")


@pytest.mark.parametrize(("source", "line", "kind", "in_function", "why"), [
    ("def f():\n    del x\n", 2, "delete", True, "`delete`"),
    ("x = g()\n", 1, "assign", False, "outside a function"),
    ("def f():\n    y = 1; x = g()\n", 2, "assign", True, "start its line"),
    ("def f():\n    g(1)\n", 2, "expr", True, "no local value"),  # the frame's only local is a module
    ("def f():\n    x.y[z()] = 1\n", 2, "assign", True, "not a name, attribute or item"),
])
def test_unusable_sites_are_refused_with_the_reason(tmp_path: Path, source: str, line: int, kind: str,
                                                    in_function: bool, why: str) -> None:
    crash = context(tmp_path, source, line, kind, {"x": "int"} if why != "no local value" else {"os": "module"},
                    in_function)
    if why == "start its line":  # the statement is the second one on its line
        crash["statement"].update(col=crash["statement"]["col"] + 6, source="x = g()")
    with pytest.raises(SiteRefused, match=why):
        choose_site(crash, str(tmp_path))


def test_code_after_the_statement_on_its_line_is_refused(tmp_path: Path) -> None:
    crash = context(tmp_path, "def f():\n    x = g(); y = 2\n", 2, "assign")
    crash["statement"].update(end_col=len("    x = g()"), source="x = g()")
    with pytest.raises(SiteRefused, match="follows the statement"):
        choose_site(crash, str(tmp_path))


def test_a_pause_outside_the_sources_is_refused(tmp_path: Path) -> None:
    crash = context(tmp_path, "def f():\n    x = 1\n", 2, "assign")
    with pytest.raises(SiteRefused, match="outside the project sources"):
        choose_site(crash, str(tmp_path / "elsewhere"))


def test_a_return_heals_the_result_the_patch_names(tmp_path: Path) -> None:
    site = choose_site(context(tmp_path, "def f(x):\n    return g(x)\n", 2, "return", {"x": "int"}), str(tmp_path))
    assert (site.kind, site.location, site.location_kind) == ("return", "_ge_result", "name")


def test_a_raise_reading_nothing_heals_a_data_local_of_the_frame(tmp_path: Path) -> None:
    types = {"self": "C", "helper": "function", "count": "int"}
    site = choose_site(context(tmp_path, "def f():\n    raise E('text')\n", 2, "raise", types), str(tmp_path))
    assert site.location == "count"
