"""parse_known_args may be given a class as the namespace; a subcommand that leaves some
arguments unrecognized must hand them back instead of writing through the class's read-only vars()."""
import argparse


def test_subparser_extras_with_class_namespace():
    class Settings:
        pass

    parser = argparse.ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command")
    run = commands.add_parser("run")
    run.add_argument("--level", type=int, default=0)

    ns, extras = parser.parse_known_args(["run", "--level", "3", "--unknown", "x"], namespace=Settings)

    assert ns is Settings
    assert (Settings.command, Settings.level) == ("run", 3)
    assert extras == ["--unknown", "x"]
