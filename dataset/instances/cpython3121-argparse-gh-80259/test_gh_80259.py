"""gh-80259: optional positional (nargs='?') with type=int and default=SUPPRESS, not given."""
import argparse


def _parser():
    parser = argparse.ArgumentParser(prog="tool", exit_on_error=False)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("count", nargs="?", type=int, default=argparse.SUPPRESS)
    return parser


def test_suppressed_default_of_missing_positional_is_not_converted():
    ns = _parser().parse_args(["--verbose"])

    assert ns.verbose is True
    assert not hasattr(ns, "count")


def test_given_positional_is_still_converted():
    ns = _parser().parse_args(["7"])

    assert ns.count == 7
    assert ns.verbose is False
