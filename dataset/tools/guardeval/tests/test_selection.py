"""Which heal sites a run uses: code bases in turn, bugs before their other versions, calibrated lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from guardeval.sites import HealSite
from guardeval.suite import Instance, first_sites, sampled_pairs, spread
from guardeval import shapes


def instance(name: str, codebase: str, python: str = "3.11.7") -> Instance:
    return Instance(name, Path(name), "d", codebase, "real-bug", "default", python)


def site(line: int) -> HealSite:
    # Names and attributes in turn: a pre-crash alias needs an attribute (or item) to alias the owner of.
    return HealSite("m.py", line, line, 4, "assign", "f", "x", "name") if line % 2 else \
        HealSite("m.py", line, line, 4, "assign", "f", "self.x", "attr")


class FakeSuite:
    """Suite.sites without runs: every instance but those named `bad*` has a site (its line given)."""

    jobs = 2

    def __init__(self, lines: dict[str, int]) -> None:
        self.lines = lines
        self.calibrated: list[str] = []

    def sites(self, instances: list[Instance]) -> dict[str, Any]:
        self.calibrated += [i.id for i in instances]
        return {i.id: (i, site(self.lines.get(i.id, 1))) for i in instances if not i.id.startswith("bad")}


def test_spread_alternates_code_bases_and_takes_other_versions_last() -> None:
    pool = [instance("cpython3117-a", "cpython-stdlib"), instance("cpython3121-a", "cpython-stdlib", "3.12.1"),
            instance("cpython3117-b", "cpython-stdlib"), instance("toolz-x", "toolz"), instance("toolz-y", "toolz"),
            instance("tornado-z", "tornado")]
    assert [i.id for i in spread(pool)] == ["cpython3117-a", "toolz-x", "tornado-z", "cpython3117-b", "toolz-y",
                                           "cpython3121-a"]


def test_first_sites_calibrates_only_as_far_as_needed_and_skips_duplicates() -> None:
    ordered = [instance(n, "c") for n in ("a1", "bad", "a2", "dup", "a3", "a4", "a5")]
    suite = FakeSuite({"a1": 1, "a2": 2, "dup": 2, "a3": 3, "a4": 4, "a5": 5})
    chosen = first_sites(suite, ordered, 3)  # type: ignore[arg-type]
    assert [i.id for i, _ in chosen] == ["a1", "a2", "a3"]
    assert suite.calibrated == ["a1", "bad", "a2", "dup", "a3", "a4"]  # jobs (2) at a time, then stop
    assert [i.id for i, _ in first_sites(FakeSuite({}), ordered[:3], 0)] == ["a1", "a2"]  # type: ignore[arg-type]


def test_a_sample_is_balanced_pairs_with_every_shape() -> None:
    ordered = [instance(f"i{n}", "c") for n in range(30)]
    suite = FakeSuite({f"i{n}": n + 1 for n in range(30)})
    pairs = sampled_pairs(suite, ordered, 40, 7, shapes.SHAPES)  # type: ignore[arg-type]
    assert len(pairs) == 20 and all(u.unsafe and not s.unsafe and u.pair == s.pair for u, s in pairs)
    assert len({u.instance for u, _ in pairs}) == 20 and {u.shape for u, _ in pairs} == set(shapes.SHAPES)
    assert [u.id for u, _ in pairs] == [u.id for u, _ in sampled_pairs(FakeSuite(suite.lines), ordered, 40, 7, shapes.SHAPES)]  # type: ignore[arg-type]
    assert all(shapes.applies(u.shape, u.site.location_kind) for u, _ in pairs)
