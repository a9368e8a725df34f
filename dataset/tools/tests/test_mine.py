"""The miner: each operator makes its intended edit, and the bug patch applies with `patch -p1`."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hbdata import mine

# One small module per operator; `before` is a line it holds, `after` what the mutant makes of it
# ('' for a deleted guard, several lines for an unwrapped one).
CASES = {
    "removed-none-guard": (
        "def first(items):\n"
        "    if items is None:\n"
        "        return None\n"
        "    return items[0]\n",
        "    if items is None:\n        return None\n",
        "",
    ),
    "removed-emptiness-guard": (
        "def first(items):\n"
        "    if not items:\n"
        "        raise LookupError('empty')\n"
        "    return items[0]\n",
        "    if not items:\n        raise LookupError('empty')\n",
        "",
    ),
    "get-to-subscript": (
        "def port(config):\n"
        "    return config.get('port', 80)\n",
        "    return config.get('port', 80)\n",
        "    return config['port']\n",
    ),
    "off-by-one-index": (
        "def last(items):\n"
        "    return items[len(items) - 1]\n",
        "    return items[len(items) - 1]\n",
        "    return items[len(items)]\n",
    ),
    "dropped-conversion": (
        "def parse(text):\n"
        "    return int(text) * 2\n",
        "    return int(text) * 2\n",
        "    return text * 2\n",
    ),
    "renamed-attribute": (
        "class Box:\n"
        "    def __init__(self):\n"
        "        self.items = []\n"
        "\n"
        "    def size(self):\n"
        "        return len(self.items)\n",
        "        return len(self.items)\n",
        "        return len(self.item)\n",
    ),
    "swapped-arguments": (
        "def scaled(value, factor):\n"
        "    return pow(value, factor)\n",
        "    return pow(value, factor)\n",
        "    return pow(factor, value)\n",
    ),
    "wrong-container-type": (
        "def counts(words):\n"
        "    seen = {}\n"
        "    for word in words:\n"
        "        seen[word] = seen.get(word, 0) + 1\n"
        "    return seen\n",
        "    seen = {}\n",
        "    seen = []\n",
    ),
}


@pytest.mark.parametrize("operator", mine.OPERATORS)
def test_operator_makes_its_edit_and_the_patch_applies(operator: str, tmp_path: Path) -> None:
    source, before, after = CASES[operator]
    mutants = mine.mutants_in_source(source, "pkg/mod.py", (operator,))
    expected = source.replace(before, after, 1)
    assert expected != source
    matching = [m for m in mutants if m.apply(source) == expected]
    assert len(matching) == 1, [m.apply(source) for m in mutants]
    mutant = matching[0]
    assert mutant.operator == operator
    assert mutant.function in mutant.describe()

    patch = mine.bug_patch(mutant, source)
    assert patch.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")
    # At most one line of context around the change.
    context = [line for line in patch.splitlines()[2:] if line.startswith(" ")]
    assert len(context) <= 2
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(source)
    done = subprocess.run(["patch", "-p1", "--batch"], input=patch, text=True, cwd=tmp_path,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "pkg" / "mod.py").read_text() == expected


def test_off_by_one_in_a_slice_moves_its_end() -> None:
    source = "def pair(text):\n    key, value = text.split('=')[:2]\n    return key, value\n"
    mutants = mine.mutants_in_source(source, "m.py", ("off-by-one-index",))
    assert [m.new for m in mutants] == ["    key, value = text.split('=')[:3]\n"]


def test_unwrapping_a_not_none_check_dedents_its_body() -> None:
    source = ("def close(handle):\n"
              "    if handle is not None:\n"
              "        handle.flush()\n"
              "        handle.close()\n"
              "    return True\n")
    mutants = mine.mutants_in_source(source, "m.py", ("removed-none-guard",))
    assert [m.apply(source) for m in mutants] == [
        "def close(handle):\n    handle.flush()\n    handle.close()\n    return True\n"]


def test_no_mutant_breaks_the_syntax_or_empties_a_block() -> None:
    # The guard is the only statement of its function: deleting it would leave an empty body.
    source = ("def f(x):\n"
              "    if x is None:\n"
              "        return 0\n"
              "\n"
              "def g(x):\n"
              "    if x is not None:\n"
              "        return x\n"
              "    elif x == 0:\n"
              "        return 1\n")
    assert mine.mutants_in_source(source, "m.py", ("removed-none-guard",)) == []


def test_renamed_attribute_never_picks_a_name_the_file_uses() -> None:
    source = ("class A:\n"
              "    def __init__(self):\n"
              "        self.item = 1\n"
              "        self.items = [1]\n"
              "    def get(self):\n"
              "        return self.items\n")
    for mutant in mine.mutants_in_source(source, "m.py", ("renamed-attribute",)):
        assert "self.item\n" not in mutant.new and "self.items\n" not in mutant.new


def test_enumerate_skips_test_code(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "tests").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(CASES["get-to-subscript"][0])
    (package / "tests" / "test_core.py").write_text(CASES["get-to-subscript"][0])
    files = {m.file for m in mine.enumerate_mutants(tmp_path, ["pkg"])}
    assert files == {"pkg/core.py"}
