"""gh-130285: random.sample() with *counts* whose total is zero must still allow
drawing zero items (k=0), just as sampling k=0 from an empty population does."""
import random


def test_sample_zero_items_when_all_counts_are_zero():
    rng = random.Random(12345)
    stock = ["red", "green", "blue"]

    assert rng.sample(stock, k=0) == []
    assert rng.sample(stock, k=2, counts=[0, 2, 0]) == ["green", "green"]
    # Every item used up: asking for nothing is still a valid request.
    assert rng.sample(stock, k=0, counts=[0, 0, 0]) == []
