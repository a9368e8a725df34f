"""The policies the suite gives healrt: the dataset's YAML read as healrt's JSON, merged onto default."""

from __future__ import annotations

import json

import pytest

from bench.guardeval.policyfile import POLICIES, PolicyError, merged_policy, read_policy
from healrt.policy import DEFAULT_FILE, parse_policy


def test_default_yaml_reads_as_healrts_embedded_copy() -> None:
    embedded = json.loads(open(DEFAULT_FILE, encoding="utf-8").read())
    embedded.pop("about", None)
    assert read_policy(POLICIES / "default.yaml") == embedded


@pytest.mark.parametrize("name", sorted(p.stem for p in POLICIES.glob("*.yaml")))
def test_every_merged_policy_is_accepted_by_healrt(name: str) -> None:
    merged = merged_policy(name)
    # No entry is read conservatively: every `when` form is one healrt understands.
    assert parse_policy(merged).notes == ()
    default_ops = {e["op"] for entries in read_policy(POLICIES / "default.yaml")["operations"].values() for e in entries}
    subject_ops = {e["op"] for entries in read_policy(POLICIES / f"{name}.yaml")["operations"].values() for e in entries}
    merged_ops = {e["op"] for entries in merged["operations"].values() for e in entries}
    assert merged_ops == default_ops | subject_ops


def test_a_broken_entry_is_an_error_naming_the_line(tmp_path) -> None:
    (tmp_path / "bad.yaml").write_text("id: bad\noperations:\n  file_write: [\n    op: open\n  ]\n")
    with pytest.raises(PolicyError, match="bad.yaml:4"):
        read_policy(tmp_path / "bad.yaml")
