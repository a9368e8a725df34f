"""Loading instance directories (docs/dataset.md §2): schema check, cross-field checks, digest."""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
from pathlib import Path
from typing import Any

from . import schema, subjects
from .subjects import yamlsubset

DATASET_DIR = subjects.DATASET
POLICIES_DIR = subjects.POLICIES_DIR
STDLIB_CODEBASE = "cpython-stdlib"

# Files a test run or an editor may leave in an instance directory; they are not the instance.
_DIGEST_IGNORED_DIRS = {"__pycache__", ".pytest_cache"}
_DIGEST_IGNORED_SUFFIXES = (".pyc", "~", ".swp")


class InstanceError(ValueError):
    """A malformed instance: the message names the file, the field and the problem."""


@dataclasses.dataclass(frozen=True)
class Crash:
    type: str
    file: str
    function: str
    line: int

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        return f"{self.type} at {self.file}:{self.function}:{self.line}"


@dataclasses.dataclass(frozen=True)
class Instance:
    id: str
    dir: Path
    subject: str
    python: str
    project_roots: tuple[str, ...]
    bug_patch: Path | None
    fix_patch: Path | None
    target_test: str
    target_test_origin: str
    expected_crash: Crash
    policy: str
    provenance: dict[str, Any]
    determinism: dict[str, str]
    digest: str

    @property
    def tier(self) -> str:
        return str(self.provenance["kind"])

    @property
    def codebase(self) -> str:
        return codebase_of(self.subject)

    @property
    def env(self) -> dict[str, str]:
        """The determinism settings that are environment variables (everything but `basetemp`)."""
        return {key: value for key, value in self.determinism.items() if key != "basetemp"}

    @property
    def basetemp(self) -> str | None:
        return self.determinism.get("basetemp")


def display_path(path: Path) -> str:
    """The path relative to the working directory when it lies inside it, as error messages show it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_instance(directory: Path) -> Instance:
    directory = Path(directory)
    yaml_path = directory / "instance.yaml"
    where = display_path(yaml_path)
    try:
        raw = yamlsubset.load_yaml(yaml_path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InstanceError(f"{where}: cannot read: {error.strerror or error}") from None
    except yamlsubset.YamlError as error:
        raise InstanceError(f"{where}: {error}") from None
    problems = schema.validate(raw) or _cross_field_problems(raw, directory)
    if problems:
        raise InstanceError("\n".join(f"{where}: {problem}" for problem in problems))
    crash = raw["expected_crash"]
    return Instance(
        id=raw["id"],
        dir=directory.resolve(),
        subject=raw["subject"],
        python=raw["python"],
        project_roots=tuple(raw["project_roots"]),
        bug_patch=directory.resolve() / raw["bug_patch"] if "bug_patch" in raw else None,
        fix_patch=directory.resolve() / raw["fix_patch"] if "fix_patch" in raw else None,
        target_test=raw["target_test"],
        target_test_origin=raw.get("target_test_origin", "subject"),
        expected_crash=Crash(crash["type"], crash["file"], crash["function"], crash["line"]),
        policy=raw["policy"],
        provenance=dict(raw["provenance"]),
        determinism=dict(raw["determinism"] or {}),
        digest=digest(directory),
    )


def _cross_field_problems(raw: dict[str, Any], directory: Path) -> list[str]:
    """What the schema cannot say: names that must agree with each other or with files on disk."""
    problems = []
    if raw["id"] != directory.name:
        problems.append(f"id: must equal the directory name {directory.name!r}, got {raw['id']!r}")
    for key in ("bug_patch", "fix_patch"):
        if key in raw and not (directory / raw[key]).is_file():
            problems.append(f"{key}: no such file {raw[key]!r} in the instance directory")
    test_file = raw["target_test"].partition("::")[0]
    if raw.get("target_test_origin") == "instance" and not (directory / test_file).is_file():
        problems.append(f"target_test: no such file {test_file!r} in the instance directory")
    if not (POLICIES_DIR / f"{raw['policy']}.yaml").is_file():
        problems.append(f"policy: no such policy file {display_path(POLICIES_DIR / (raw['policy'] + '.yaml'))}")
    kind, _, version = raw["subject"].partition("@")
    if kind == STDLIB_CODEBASE and version != raw["python"]:
        problems.append(f"python: a {STDLIB_CODEBASE} subject runs on its own interpreter {version}, "
                        f"got {raw['python']!r}")
    crash_file = raw["expected_crash"]["file"]
    if not any(inside(crash_file, root) for root in raw["project_roots"]):
        problems.append(f"expected_crash.file: {crash_file!r} lies in none of the project_roots {raw['project_roots']}")
    return problems


def inside(path: str, root: str) -> bool:
    """Whether a subject-relative path is the project root `root` or lies under it."""
    root = root.rstrip("/")
    return path == root or path.startswith(root + "/")


def digest(directory: Path) -> str:
    """sha256 over the instance directory: for each file in sorted relative-path order, the path
    (UTF-8, '/'-separated), a NUL, the content's length in decimal, a NUL, the content."""
    directory = Path(directory)
    files = []
    for parent, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if d not in _DIGEST_IGNORED_DIRS]
        files += [Path(parent, name) for name in names if not name.endswith(_DIGEST_IGNORED_SUFFIXES)]
    hasher = hashlib.sha256()
    for relative, path in sorted((p.relative_to(directory).as_posix(), p) for p in files):
        content = path.read_bytes()
        hasher.update(relative.encode() + b"\0" + str(len(content)).encode() + b"\0" + content)
    return hasher.hexdigest()


def instance_dirs(dataset_dir: Path = DATASET_DIR) -> list[Path]:
    instances = Path(dataset_dir) / "instances"
    return sorted(p for p in instances.iterdir() if (p / "instance.yaml").is_file()) if instances.is_dir() else []


def load_all(dataset_dir: Path = DATASET_DIR) -> tuple[list[Instance], list[InstanceError]]:
    """Every instance of the dataset, and the errors of those that are malformed (never raised:
    one bad instance must not hide the others)."""
    loaded, errors = [], []
    for directory in instance_dirs(dataset_dir):
        try:
            loaded.append(load_instance(directory))
        except InstanceError as error:
            errors.append(error)
    return loaded, errors


@functools.lru_cache(maxsize=None)
def codebase_of(subject: str) -> str:
    """The code base a subject belongs to: its catalog entry's `codebase`, else the name in the
    subject string (`debian-source:toolz@0.12.0` -> `toolz`; the stdlib is one code base)."""
    try:
        config = subjects.config_for(subject)
        return config.codebase if config else subjects.parse_subject(subject).name
    except subjects.SubjectError:
        return subject  # a broken catalog entry fails the instance's runs, with the reason; counting goes on
