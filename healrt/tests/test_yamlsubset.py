"""The YAML subset the repository's data files use (yamlsubset.py): what it reads, and errors that name the line."""

from __future__ import annotations

import re

import pytest

from healrt.yamlsubset import YamlError, load_yaml


def test_block_mappings_scalars_and_one_line_flow_collections() -> None:
    text = ('id: x  # a comment\nnested:\n  n: 3\n  flag: true\n  none: ~\n'
            'quoted: "a # b" # c\nsingle: \'it\'\'s\'\nlist: [1, "a, b", plain]\nempty: {}\n')
    assert load_yaml(text) == {"id": "x", "nested": {"n": 3, "flag": True, "none": None}, "quoted": "a # b",
                               "single": "it's", "list": [1, "a, b", "plain"], "empty": {}}


def test_a_flow_list_over_lines_of_flow_mappings() -> None:
    text = 'operations:\n  write: [\n    {op: open, index: 0, when: "mode, w"},  # a comment\n    {op: os.fork, arg: null},\n  ]\n'
    assert load_yaml(text) == {"operations": {"write": [{"op": "open", "index": 0, "when": "mode, w"},
                                                        {"op": "os.fork", "arg": None}]}}


@pytest.mark.parametrize("text, message", [
    ('a: "open', "line 1: unterminated string"),
    ("a:\n  - b", "line 2: block lists are not supported"),
    ("a: [b, [c]]", "line 1: nested flow collections are not supported"),
    ("a: [\n  {k: v},\n  k: v\n]", "line 3: unterminated flow list (opened on line 1)"),
    ("a: [\n  {k: v},\n", "line 1: flow list not closed"),
    ("a: {k: 1, k: 2}", "line 1: duplicate key 'k'"),
    ("a: 1\na: 2", "line 2: duplicate key 'a'"),
])
def test_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(YamlError, match="^" + re.escape(message)):
        load_yaml(text)
