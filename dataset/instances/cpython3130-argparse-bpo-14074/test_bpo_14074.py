"""A positional argument with nargs=2 and a tuple metavar must render in help as both names,
both in the usage line and in the argument list."""
import argparse


def test_help_for_positional_with_tuple_metavar():
    parser = argparse.ArgumentParser(prog="plot")
    parser.add_argument("point", nargs=2, metavar=("X", "Y"), help="coordinates")

    text = parser.format_help()

    assert text.startswith("usage: plot [-h] X Y\n")
    assert any(line.split() == ["X", "Y", "coordinates"] for line in text.splitlines())
    assert parser.parse_args(["1", "2"]).point == ["1", "2"]
