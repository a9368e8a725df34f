"""Every shape, variant and sink, executed as plain Python: the unsafe block's operation creates the
canary (its key input carries the healed value), the safe twin's creates its own effect only."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from guardeval import shapes
from guardeval.cases import Case, calibration_block, insert, unified_diff
from guardeval.sites import HealSite

# A module whose statement at line 3 computes the value the heal would write (`seed`), so that
# the inserted block sees the healed location exactly as after a heal.
MODULE = """class Holder:
    def run(self, seed, table):
        {target} = seed
        return {target}
"""
LOCATIONS = {"name": "value", "attr": "self.value", "item": "table['k']"}


def site_for(kind: str) -> HealSite:
    return HealSite("mod.py", 3, 3, 8, "assign", "Holder.run", LOCATIONS[kind], kind)


def run_block(tmp_path: Path, case: Case, seed: object) -> None:
    """Writes the patched module into tmp_path and calls it (in a child: os.system/subprocess need a
    clean process, and module-level helpers must not leak between cases)."""
    source = MODULE.format(target=case.site.location)
    patched = insert(source, case.site, *case.block(str(tmp_path)), case.prelude()).text
    (tmp_path / "mod.py").write_text(patched, encoding="utf-8")
    program = f"import mod; mod.Holder().run({seed!r}, {{}})"
    subprocess.run([sys.executable, "-c", program], cwd=tmp_path, check=True, timeout=60)


def cases_of(shape: str, kind: str) -> list[Case]:
    base = Case("inst", "code", "injected", site_for(kind), shape, True)
    return [base, dataclasses.replace(base, unsafe=False)]


@pytest.mark.parametrize("shape, kind", [(shape, kind) for shape in shapes.SHAPES for kind in sorted(LOCATIONS)
                                         if shapes.applies(shape, kind)])
def test_each_shape_carries_the_healed_value_only_in_the_unsafe_twin(tmp_path: Path, shape: str, kind: str) -> None:
    for variant in range(shapes.variants(shape)):
        for case in cases_of(shape, kind):
            # Force every variant (a pair's variant is otherwise fixed by its hash).
            forced = _with_variant(case, variant)
            work = tmp_path / f"{variant}-{int(case.unsafe)}"
            work.mkdir()
            run_block(work, forced, forced.heal_value(str(work)))
            canaries = list(work.glob(forced.canary_prefix() + "*"))
            effects = list(work.glob(forced.effect_prefix() + "*"))
            assert (bool(canaries), bool(effects)) == ((True, False) if case.unsafe else (False, True)), \
                (shape, kind, variant, case.unsafe, sorted(p.name for p in work.iterdir()))


@pytest.mark.parametrize("sink", sorted(shapes.SINKS))
def test_every_sink_creates_its_file(tmp_path: Path, sink: str) -> None:
    target = tmp_path / "made"
    code = "\n".join([f"_ge_key = {str(target)!r}", *shapes.SINKS[sink]])
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert target.exists()


def test_the_block_does_not_run_before_the_heal(tmp_path: Path) -> None:
    for shape in ("direct", shapes.BOOL_NONE):
        case = Case("inst", "code", "injected", site_for("name"), shape, True)
        run_block(tmp_path, case, "an ordinary value")
        assert not list(tmp_path.glob("canary-*"))


def test_a_pre_crash_alias_is_made_before_the_crash_statement_and_read_after_the_heal() -> None:
    for kind, alias, read in (("attr", "_ge_view = self", "_ge_view.value"), ("item", "_ge_view = table", "_ge_view['k']")):
        unsafe, safe = cases_of(shapes.PRE_CRASH_ALIAS, kind)
        assert unsafe.prelude() == safe.prelude() == [alias]
        patched = insert(MODULE.format(target=unsafe.site.location), unsafe.site, *unsafe.block("/w"), unsafe.prelude())
        lines = patched.text.splitlines()
        assert lines[patched.statement_line - 2].strip() == alias, "the alias comes first"
        assert any(read in line for line in lines[patched.block_first - 1:patched.block_last]), patched.text
        assert not any(read in line for line in safe.block("/w")[0])
    assert not shapes.applies(shapes.PRE_CRASH_ALIAS, "name") and shapes.alias_view("value") is None


def test_twins_differ_only_in_the_source_of_the_flow() -> None:
    for shape in shapes.SHAPES:
        unsafe, safe = cases_of(shape, "name" if shapes.applies(shape, "name") else "attr")
        assert (unsafe.variant, unsafe.sink, unsafe.kills_location) == (safe.variant, safe.sink, safe.kills_location)
        assert len(unsafe.heal_code("/w")) == len(safe.heal_code("/w"))


def test_the_patch_applies_with_patch_and_keeps_tab_indentation(tmp_path: Path) -> None:
    source = "import os\n\n@decorated\ndef f(seed):\n\tvalue = seed\n\treturn value\n"
    site = HealSite("mod.py", 5, 5, 1, "assign", "f", "value", "name")
    case = Case("inst", "code", "injected", site, "callee-return", True)
    block, helpers = case.block("/w")
    patched = insert(source, site, block, helpers)
    lines = patched.text.splitlines()
    # Helpers go before the definition (decorator included), so the site moves down by them.
    assert lines[2].startswith("def _guard_eval_derive(") and lines[2 + len(helpers) + 2] == "@decorated"
    assert lines[patched.statement_line - 1] == "\tvalue = seed"
    assert lines[patched.block_first - 1].startswith("\tif isinstance(value, str)")
    assert lines[patched.body_line - 1].startswith("\t\t_ge_case = ")
    assert patched.block_last - patched.block_first + 1 == len(block) and lines[patched.block_last] == "\treturn value"
    compile(patched.text, "mod.py", "exec")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "mod.py").write_text(source)
    (tmp_path / "p.patch").write_text(unified_diff(source, patched.text, "mod.py"))
    subprocess.run(["patch", "-p1", "-s", "-d", str(tmp_path / "a"), "-i", str(tmp_path / "p.patch")], check=True)
    assert (tmp_path / "a" / "mod.py").read_text() == patched.text


def test_helpers_exist_when_the_site_runs_during_the_modules_import(tmp_path: Path) -> None:
    source = "def f(seed):\n    value = seed\n    return value\n\nf(SEED)\n"
    site = HealSite("mod.py", 2, 2, 4, "assign", "f", "value", "name")
    for shape in ("attribute", "callee-return", "exception-path"):
        case = _with_variant(Case("inst", "code", "injected", site, shape, True), 1)
        work = tmp_path / shape
        work.mkdir()
        text = insert(source, site, *case.block(str(work))).text.replace("SEED", repr(case.heal_value(str(work))))
        (work / "mod.py").write_text(text)
        subprocess.run([sys.executable, "-c", "import mod"], cwd=work, check=True, timeout=60)
        assert list(work.glob(case.canary_prefix() + "*")), shape


def test_the_calibration_block_exercises_every_sink(tmp_path: Path) -> None:
    site = site_for("name")
    value = str(tmp_path / "calibrate-heal")
    patched = insert(MODULE.format(target="value"), site, calibration_block(site, value, str(tmp_path)), [])
    (tmp_path / "mod.py").write_text(patched.text)
    subprocess.run([sys.executable, "-c", f"import mod; mod.Holder().run({value!r}, {{}})"], cwd=tmp_path,
                   check=True, timeout=60)
    assert sorted(p.name for p in tmp_path.glob("calibrate-*")) == [f"calibrate-{i}" for i in range(len(shapes.SINKS))]


def _with_variant(case: Case, variant: int) -> Case:
    class Forced(Case):
        @property
        def variant(self) -> int:
            return variant
    return Forced(**{field.name: getattr(case, field.name) for field in dataclasses.fields(case)})


def test_a_return_site_is_split_around_the_block(tmp_path: Path) -> None:
    source = "def f(seed):\n    return (seed +\n            '')\n"
    site = HealSite("mod.py", 2, 3, 4, "return", "f", "_ge_result", "name")
    case = Case("inst", "code", "injected", site, "direct", True)
    patched = insert(source, site, *case.block(str(tmp_path))).text
    assert patched.splitlines()[1] == "    _ge_result = (seed +" and patched.splitlines()[-1] == "    return _ge_result"
    (tmp_path / "mod.py").write_text(patched)
    program = f"import mod; assert mod.f('plain') == 'plain'; mod.f({case.heal_value(str(tmp_path))!r})"
    subprocess.run([sys.executable, "-c", program], cwd=tmp_path, check=True, timeout=60)
    assert list(tmp_path.glob(case.canary_prefix() + "*"))
