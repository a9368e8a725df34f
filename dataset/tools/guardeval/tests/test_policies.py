"""The policies the suite gives healrt: dataset/policies/<name>.yaml merged onto the default."""

from __future__ import annotations

import pytest

from guardeval.suite import merged_policy
from hbdata import healrt_module
from hbdata.instances import POLICIES_DIR

policy = healrt_module("policy")


@pytest.mark.parametrize("name", sorted(p.stem for p in POLICIES_DIR.glob("*.yaml")))
def test_every_merged_policy_is_accepted_by_healrt(name: str) -> None:
    merged = merged_policy(name)
    # No entry is read conservatively: every `when` form is one healrt understands.
    assert policy.parse_policy(merged).notes == ()
    default_ops = {e["op"] for entries in policy.default_policy_data()["operations"].values() for e in entries}
    subject_ops = {e["op"] for entries in policy.read_policy_file(POLICIES_DIR / f"{name}.yaml")["operations"].values()
                   for e in entries}
    merged_ops = {e["op"] for entries in merged["operations"].values() for e in entries}
    assert merged_ops == default_ops | subject_ops
