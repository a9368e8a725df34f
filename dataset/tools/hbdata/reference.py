"""The reference benchmark's composition, as its paper reports it: the yardstick `stats` measures
HealBench's dataset against (docs/dataset.md §7)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

# Instances per repository, for its 18 repositories. None: the paper names the repository among its
# "few more" without a count (the named counts add up to 261 of its 265 instances).
REPOSITORIES: dict[str, int | None] = {
    "pandas": 84, "numpy": 80, "pillow": 31, "matplotlib": 14, "scikit-learn": 12, "scrapy": 10,
    "ansible": 5, "requests": 5, "tornado": 4, "orange3": 4, "openlibrary": 3, "astropy": 3,
    "aiohttp": 2, "seaborn": 2, "pytest": 1, "sphinx": 1, "qutebrowser": None, "datalad": None,
}

# Its five most frequent error types, most frequent first (TypeError 90, AttributeError 65,
# ValueError 60, IndexError 24, KeyError 9, then a long tail).
ERROR_ORDER: tuple[str, ...] = ("TypeError", "AttributeError", "ValueError", "IndexError", "KeyError")


def codebases_covered(codebases: Iterable[str]) -> list[str]:
    """The reference's repositories among `codebases`, in the reference's order."""
    present = set(codebases)
    return [name for name in REPOSITORIES if name in present]


def error_order_holds(error_types: Counter[str]) -> bool:
    """True when the reference's five leading error types lead here too, in the same order: each is
    strictly more frequent than the next, and the fifth than every other type."""
    leading = [error_types[name] for name in ERROR_ORDER]
    others = [count for name, count in error_types.items() if name not in ERROR_ORDER]
    return all(a > b for a, b in zip(leading, leading[1:])) and all(leading[-1] > count for count in others)
