"""`python3 -m hbdata {validate,stats,materialize,fetch,build,preflight}` (docs/dataset.md §7)."""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from .instances import InstanceError, load_instance
from .materialize import VARIANTS, MaterializeError, materialize
from .stats import stats_command
from .validate import add_arguments, add_run_arguments, validate_command


def _materialize_command(args: argparse.Namespace) -> int:
    try:
        plan = materialize(load_instance(Path(args.instance)), args.variant, Path(args.workspace))
    except (InstanceError, MaterializeError) as error:
        print(f"hbdata materialize: {error}", file=sys.stderr)
        return 1
    print(plan.to_json())
    return 0


def _load(module: str) -> tuple[ModuleType | None, str]:
    """Another helper's module, or the reason it cannot be used: a missing or broken module then
    fails its own command alone, with a clear message, not the whole CLI."""
    try:
        return importlib.import_module(f"hbdata.{module}"), ""
    except Exception as error:  # any import-time failure disables that command only
        return None, f"{type(error).__name__}: {error}"


def _delegated(commands: Any, name: str, module: str, function: str, summary: str,
               fallback_arguments: Callable[[argparse.ArgumentParser], None]) -> None:
    """A command implemented by `hbdata.<module>.<function>(args)`; the module's own
    `add_arguments(parser)` defines its options when it has one, else `fallback_arguments` does
    (the options docs/dataset.md §7 gives it)."""
    sub = commands.add_parser(name, help=summary)
    loaded, problem = _load(module)
    getattr(loaded, "add_arguments", fallback_arguments)(sub)

    def run(args: argparse.Namespace) -> int:
        command = getattr(loaded, function, None)
        if command is None:
            print(f"hbdata {name}: not available: hbdata.{module}.{function} cannot be loaded"
                  f" ({problem or 'no such function'})", file=sys.stderr)
            return 2
        return int(command(args))
    sub.set_defaults(run=run)


def _fetch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--subject", required=True, help="catalog name (dataset/subjects/NAME.yaml) or subject string")


def _build_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--subject", required=True, help="catalog name (dataset/subjects/NAME.yaml)")
    parser.add_argument("--limit", type=int, help="instances to accept")
    parser.add_argument("--write", action="store_true", help="write the accepted instances")


def _preflight_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instances", action="append")
    parser.add_argument("--for", dest="purpose", choices=("run", "tests"), default="run")
    parser.add_argument("--runs-dir")
    parser.add_argument("--no-install", action="store_true")
    parser.add_argument("--json", action="store_true")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python3 -m hbdata", description="HealBench dataset tooling")
    commands = top.add_subparsers(dest="command", required=True)

    validate = commands.add_parser("validate", help="BUGGY raises expected_crash, REFERENCE passes, on every run")
    add_arguments(validate)
    validate.set_defaults(run=validate_command)

    stats = commands.add_parser("stats", help="validate what has no record, then count validated instances")
    stats.add_argument("--json", action="store_true", help="end with one JSON line")
    add_run_arguments(stats)
    stats.set_defaults(run=stats_command)

    mat = commands.add_parser("materialize", help="build a variant's workspace and print its plan.json")
    mat.add_argument("--instance", required=True, help="instance directory")
    mat.add_argument("--variant", required=True, choices=VARIANTS)
    mat.add_argument("--workspace", required=True, help="new or empty directory")
    mat.set_defaults(run=_materialize_command)

    _delegated(commands, "fetch", "subjects", "fetch_command", "fetch a subject into the cache, print its root",
               _fetch_arguments)
    _delegated(commands, "build", "build", "build_command",
               "the builder funnel: mine, run and keep instances for a subject", _build_arguments)
    _delegated(commands, "preflight", "preflight", "preflight_command",
               "check (and install) what a run or the test suites need; exit 3 when not ready",
               _preflight_arguments)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
