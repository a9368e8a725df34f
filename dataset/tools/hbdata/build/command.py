"""`hbdata build --subject NAME` (also `python3 -m hbdata.build`): options, the run, its report."""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import sys
from typing import Any, TextIO

from .. import mine
from ..instances import DATASET_DIR, STDLIB_CODEBASE
from ..subjects import FetchError, Subject, SubjectConfig, SubjectError, cache_dir, resolve
from .picking import TYPE_WEIGHTS, BuildError
from .pipeline import build
from .staging import slug

DEFAULTS = {"operators": list(mine.OPERATORS), "limit": 40, "max_per_module": 6, "mutants": 400,
            "mutants_per_module": 12, "seed": 0, "jobs": 2, "write": False, "only": [], "types": []}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--subject", required=True, help="catalog name (dataset/subjects/NAME.yaml) or subject string")
    parser.add_argument("--operators", nargs="+", choices=mine.OPERATORS, help="default: all")
    parser.add_argument("--limit", type=int, help=f"instances to accept (default {DEFAULTS['limit']})")
    parser.add_argument("--max-per-module", type=int, help=f"instances per module (default {DEFAULTS['max_per_module']})")
    parser.add_argument("--mutants", type=int, help=f"mutants to run at most (default {DEFAULTS['mutants']})")
    parser.add_argument("--seed", type=int, help="seed of the mutant sample (default 0)")
    parser.add_argument("--jobs", type=int, help="test runs at once (default 2)")
    parser.add_argument("--only", nargs="+", metavar="MODULE", help="stdlib: mine only these modules")
    parser.add_argument("--types", nargs="+", metavar="TYPE", choices=sorted(TYPE_WEIGHTS),
                        help="pick only these error-type buckets (to even out the dataset's mix)")
    parser.add_argument("--write", action="store_true", help="write the accepted instances")


def _option(args: argparse.Namespace, name: str) -> Any:
    """An option's value, or its default when unset or when the caller's parser lacks it."""
    value = getattr(args, name, None)
    return DEFAULTS[name] if value is None else value


def build_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        subject = resolve(args.subject)
    except (SubjectError, FetchError) as error:
        print(f"hbdata build: {error}", file=sys.stderr)
        return 1
    config = subject.config or _stdlib_default(subject)
    if config is None:
        print(f"hbdata build: {args.subject}: no catalog entry (dataset/subjects/*.yaml) says how to test it",
              file=sys.stderr)
        return 1
    options = {name: _option(args, name) for name in DEFAULTS}
    try:
        funnel, accepted = build(subject, config, options, DATASET_DIR)
    except BuildError as error:
        print(f"hbdata build: {error}", file=sys.stderr)
        return 1
    print(funnel.table(), file=out)
    by_type = collections.Counter(a.type for a in accepted)
    print(f"accepted {len(accepted)}: " + ", ".join(f"{t} {n}" for t, n in by_type.most_common()), file=out)
    report = cache_dir() / "build" / slug(subject.spec) / "funnel.json"
    report.write_text(json.dumps({"subject": subject.spec, **funnel.as_dict(),
                                  "accepted": [dataclasses.asdict(a) | {"directory": str(a.directory)}
                                               for a in accepted]}, indent=1) + "\n")
    return 0


def _stdlib_default(subject: Subject) -> SubjectConfig | None:
    """A stdlib subject without a catalog entry: its own Lib/test, the default policy."""
    if subject.kind != STDLIB_CODEBASE:
        return None
    return SubjectConfig(subject=subject.spec, codebase=STDLIB_CODEBASE, python=str(subject.version),
                         project_roots=[], test_paths=["test"], pytest_args=[], deselect=[], deps=[],
                         policy="default", import_root="")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hbdata.build", description="the injected tier's builder")
    add_arguments(parser)
    return build_command(parser.parse_args(argv))
