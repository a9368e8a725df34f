"""The yardstick `stats` measures the dataset against: the reference's repositories and error order."""
from collections import Counter

from hbdata import reference


def test_the_reference_has_eighteen_repositories_and_its_counted_ones_add_up_below_265() -> None:
    assert len(reference.REPOSITORIES) == 18
    assert sum(count for count in reference.REPOSITORIES.values() if count) == 261


def test_only_the_reference_repositories_count_and_in_its_order() -> None:
    assert reference.codebases_covered(["toolz", "tornado", "pandas", "cpython-stdlib", "pandas"]) == \
        ["pandas", "tornado"]
    assert reference.codebases_covered(["Pandas", "sklearn"]) == []


def test_the_error_order_holds_only_when_the_five_lead_strictly_in_order() -> None:
    holds = Counter(TypeError=90, AttributeError=65, ValueError=60, IndexError=24, KeyError=9, NameError=8)
    assert reference.error_order_holds(holds)
    # The dataset v1 had IndexError ahead of ValueError.
    assert not reference.error_order_holds(holds + Counter(IndexError=40))
    # A tie is not an order.
    assert not reference.error_order_holds(holds + Counter(AttributeError=25))
    # A type outside the five may not overtake the fifth.
    assert not reference.error_order_holds(holds + Counter(NameError=1))
    # Nor may one of the five be missing.
    assert not reference.error_order_holds(Counter(TypeError=3, AttributeError=2, ValueError=1))
