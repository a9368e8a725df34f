"""Subjects: parse a subject string, fetch it into the cache once, and read the subject catalog.

A subject string (docs/dataset.md §2) names where code comes from; `dataset/subjects/<name>.yaml`
(§3) says how to test it. `resolve` turns either into a `Subject`: a local tree plus the
interpreter, the extra import path (`deps`) and everything a sandbox must be able to read.
Fetches go to `<cache>/subjects/<kind>/<name>-<version>/` (§4; a wheel subject's environment, from
the local wheelhouses, to `<name>-<version>-<key of its pins>/`), happen once, and are safe when
several processes race for the same subject: a lock file serialises them and the tree appears
under its final name only by an atomic rename, with its `.hbdata-subject.json` already inside.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import fcntl
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Callable

from . import healrt_module, wheels
from .debian import PYTHON_DIR, SOURCE_DIR, Apt, FetchError, run_tool

# The repository's one reader of its YAML subset (healrt's: the runtime reads its default policy).
yamlsubset = healrt_module("yamlsubset")

__all__ = ["FetchError", "Subject", "SubjectConfig", "SubjectError", "cache_dir", "cache_entries", "config_for",
           "fetch_command", "interpreter", "load_config", "parse_subject", "resolve"]

DATASET = Path(__file__).resolve().parents[2]
SUBJECTS_DIR = DATASET / "subjects"
POLICIES_DIR = DATASET / "policies"
MARKER = ".hbdata-subject.json"

DEBIAN_PYTHON_VERSION = "3.11.2"
DEBIAN_PYTHON = Path("/usr/bin/python3")
PYENV_VERSIONS = ("3.11.7", "3.12.1", "3.13.0")
# Debian's binary packages (subjects and deps alike) are built for bookworm's own python3.
_DEBIAN_KINDS = ("debian-source", "debian-package")

_FORMS = ("cpython-stdlib@X.Y.Z, debian-source:<package>@<version>, "
          "debian-package:<package>@<version>, wheel:<dist>@<version>, git:<url>@<commit>, local:<path>")
_PYTHON_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_DEBIAN_NAME = re.compile(r"[a-z0-9][a-z0-9+.-]+")
_UPSTREAM_VERSION = re.compile(r"[0-9][A-Za-z0-9.+~]*")
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_WHEEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_WHEEL_VERSION = re.compile(r"[0-9][A-Za-z0-9.+!_-]*")
# The kinds spelled `<kind>:<name>@<version>`: what their name and version must look like.
_DEBIAN_FORMS = ((_DEBIAN_NAME, "a Debian package name"), (_UPSTREAM_VERSION, "an upstream version"))
_NAMED_KINDS = {
    "debian-source": _DEBIAN_FORMS,
    "debian-package": _DEBIAN_FORMS,
    "wheel": ((_WHEEL_NAME, "a distribution name"), (_WHEEL_VERSION, "a release version")),
}


class SubjectError(ValueError):
    """A malformed subject string or catalog entry, or an interpreter that is not what it claims."""


def cache_dir() -> Path:
    return Path(os.environ.get("HEALBENCH_CACHE") or "~/.cache/healbench").expanduser()


@dataclasses.dataclass(frozen=True)
class SubjectConfig:
    """One `dataset/subjects/<name>.yaml` (docs/dataset.md §3)."""
    subject: str
    codebase: str
    python: str
    project_roots: list[str]
    test_paths: list[str]
    pytest_args: list[str]
    deselect: list[str]
    deps: list[str]
    policy: str
    # The directory of the subject root that goes on sys.path ("src" for a src-layout tree such as
    # jinja2's); project_roots and expected_crash.file stay relative to the subject root.
    import_root: str = ""
    # Paths under a project root that are not the project's pure-Python code (a wheel's compiled
    # extensions, its shipped tests): a workspace gets them as symlinks into the subject, so they
    # import as usual but are never copied, patched or instrumented (docs/dataset.md §5).
    not_instrumented: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Subject:
    spec: str
    kind: str
    name: str
    version: str | None          # None for local:<path>
    root: Path
    python: Path
    pythonpath: list[Path]       # the extracted deps
    readable: list[Path]         # what a sandbox must see besides /usr
    config: SubjectConfig | None


@dataclasses.dataclass(frozen=True)
class ParsedSpec:
    kind: str
    name: str
    version: str | None
    location: str | None         # the path of local:, the URL of git:


def parse_subject(spec: str) -> ParsedSpec:
    def bad(why: str) -> SubjectError:
        return SubjectError(f"subject {spec!r}: {why}; expected one of {_FORMS}")

    if spec.startswith("cpython-stdlib@"):
        version = spec.partition("@")[2]
        if not _PYTHON_VERSION.fullmatch(version):
            raise bad(f"{version!r} is not a Python version X.Y.Z")
        return ParsedSpec("cpython-stdlib", "cpython-stdlib", version, None)
    kind, colon, rest = spec.partition(":")
    if not colon:
        raise bad("no kind")
    if kind in _NAMED_KINDS:
        (name_form, name_is), (version_form, version_is) = _NAMED_KINDS[kind]
        name, at, version = rest.partition("@")
        if not name_form.fullmatch(name):
            raise bad(f"{name!r} is not {name_is}")
        if not at or not version_form.fullmatch(version):
            raise bad(f"{version!r} is not {version_is}" if at else "no @<version>")
        return ParsedSpec(kind, name, version, None)
    if kind == "git":
        # URLs may contain '@' (git@host:repo), the commit never does: split at the last one.
        url, at, commit = rest.rpartition("@")
        if not at or not url:
            raise bad("no @<commit>")
        if not _COMMIT.fullmatch(commit):
            raise bad(f"{commit!r} is not a commit hash (7 to 40 lowercase hex digits)")
        name = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
        return ParsedSpec("git", name or "repo", commit, url)
    if kind == "local":
        if not rest:
            raise bad("empty path")
        return ParsedSpec("local", Path(rest).name or rest, None, rest)
    raise bad(f"unknown kind {kind!r}")


def _is_name(subject: str) -> bool:
    """A catalog name (`toolz`) rather than a subject string (`debian-source:toolz@0.12.0`)."""
    return ":" not in subject and "@" not in subject


# --- interpreters ------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _version_of(python: Path) -> str:
    try:
        done = subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SubjectError(f"{python}: cannot run it: {error}") from error
    if done.returncode != 0:
        raise SubjectError(f"{python}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout.strip()


def interpreter(version: str) -> Path:
    """The exact interpreter `python: X.Y.Z` names, checked by running it."""
    if version == DEBIAN_PYTHON_VERSION:
        path = DEBIAN_PYTHON
    elif version in PYENV_VERSIONS:
        pyenv = Path(os.environ.get("PYENV_ROOT") or "~/.pyenv").expanduser()
        path = pyenv / "versions" / version / "bin" / "python"
    else:
        raise SubjectError(f"python {version!r}: supported are {DEBIAN_PYTHON_VERSION} "
                           f"({DEBIAN_PYTHON}) and {', '.join(PYENV_VERSIONS)} (pyenv)")
    actual = _version_of(path)
    if actual != version:
        raise SubjectError(f"{path} is Python {actual}, not the declared {version}")
    return path


def _prefix(python: Path) -> Path:
    return python.parent.parent


# --- the catalog -------------------------------------------------------------------------------

_REQUIRED = ("subject", "codebase", "python", "project_roots", "test_paths", "policy")
_LISTS = ("project_roots", "test_paths", "pytest_args", "deselect", "deps", "not_instrumented")


def load_config(path: Path) -> SubjectConfig:
    """One catalog file, checked; errors name the file and the field."""
    def bad(field: str, why: str) -> SubjectError:
        return SubjectError(f"{path}: {field}: {why}")

    try:
        data = yamlsubset.load_yaml(path.read_text(encoding="utf-8"))
    except yamlsubset.YamlError as error:
        raise SubjectError(f"{path}: {error}") from error
    fields = {f.name for f in dataclasses.fields(SubjectConfig)}
    unknown = sorted(set(data) - fields)
    if unknown:
        raise bad(unknown[0], "unknown field")
    for key in _REQUIRED:
        # test_paths must be there, but may be empty: a distribution that ships no tests (requests)
        # says so with [], and every target test of its instances is then the instance's own.
        if data.get(key) in (None, "") or (data.get(key) == [] and key != "test_paths"):
            raise bad(key, "missing")
    data.setdefault("import_root", "")
    for key in fields - set(_LISTS):
        if not isinstance(data[key], str):
            raise bad(key, f"must be a string, got {data[key]!r}")
    for key in _LISTS:
        data.setdefault(key, [])
        if not isinstance(data[key], list) or not all(isinstance(v, str) and v for v in data[key]):
            raise bad(key, f"must be a list of non-empty strings, got {data[key]!r}")
    try:
        parsed = parse_subject(data["subject"])
    except SubjectError as error:
        raise bad("subject", str(error)) from error
    for dep in data["deps"]:
        if parsed.kind == "wheel" and not wheels.PIN.fullmatch(dep):
            raise bad("deps", f"{dep!r} is not a pin <dist>==<version> (a wheel subject installs exactly its pins)")
        if parsed.kind != "wheel" and not _DEBIAN_NAME.fullmatch(dep):
            raise bad("deps", f"{dep!r} is not a Debian binary package name")
    for path in data["not_instrumented"]:
        if not any(path != root and path.startswith(root.rstrip("/") + "/") for root in data["project_roots"]):
            raise bad("not_instrumented", f"{path!r} lies under none of the project_roots")
    if data["python"] not in (DEBIAN_PYTHON_VERSION, *PYENV_VERSIONS):
        raise bad("python", f"{data['python']!r} is not one of {DEBIAN_PYTHON_VERSION}, {', '.join(PYENV_VERSIONS)}")
    if parsed.kind == "cpython-stdlib" and data["python"] != parsed.version:
        raise bad("python", f"{data['python']} cannot test the stdlib of {parsed.version}")
    if parsed.kind in _DEBIAN_KINDS and data["python"] != DEBIAN_PYTHON_VERSION:
        raise bad("python", f"Debian packages are built for {DEBIAN_PYTHON_VERSION}, got {data['python']}")
    if parsed.kind == "wheel" and data["python"] not in PYENV_VERSIONS:
        raise bad("python", f"a wheel subject installs with a pyenv interpreter's pip ({', '.join(PYENV_VERSIONS)}), "
                            f"got {data['python']}")
    if not (POLICIES_DIR / f"{data['policy']}.yaml").is_file():
        raise bad("policy", f"no {POLICIES_DIR / (data['policy'] + '.yaml')}")
    return SubjectConfig(**data)


def config_for(subject: str, directory: Path | None = None) -> SubjectConfig | None:
    """The catalog entry for a name (`toolz`) or a subject string; None when there is none."""
    directory = SUBJECTS_DIR if directory is None else directory
    if _is_name(subject):
        path = directory / f"{subject}.yaml"
        return load_config(path) if path.is_file() else None
    found = [(path, config) for path in sorted(directory.glob("*.yaml"))
             if (config := load_config(path)).subject == subject]
    if len(found) > 1:
        raise SubjectError(f"{subject}: more than one catalog entry: {', '.join(str(p) for p, _ in found)}")
    return found[0][1] if found else None


# --- fetching ----------------------------------------------------------------------------------

def _recorded_root(marker: Path) -> Path:
    return Path(json.loads(marker.read_text())["root"])


def _fetch_once(final: Path, fill: Callable[[Path], tuple[str, str]]) -> Path:
    """The root recorded in `final`, filling it first if needed. `fill(stage)` populates an empty
    private directory and returns (root relative to it, the exact version fetched)."""
    marker = final / MARKER
    if marker.is_file():
        return _recorded_root(marker)
    final.parent.mkdir(parents=True, exist_ok=True)
    with open(final.parent / f".{final.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():                      # another process fetched it while we waited
            return _recorded_root(marker)
        # Holding the lock, anything staged for this entry is a leftover of a killed fetch.
        for leftover in [*final.parent.glob(f".{final.name}.stage-*"), final]:
            if leftover.exists():
                shutil.rmtree(leftover)
        stage = final.parent / f".{final.name}.stage-{os.getpid()}"
        stage.mkdir()
        try:
            relative, version = fill(stage)
            if not (stage / relative).is_dir():
                raise FetchError(f"{final.name}: the fetched tree has no {relative}/")
            record = {"root": str(final / relative), "version": version,
                      "fetched": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
            (stage / MARKER).write_text(json.dumps(record, indent=1) + "\n")
            os.rename(stage, final)
        finally:
            if stage.exists():
                shutil.rmtree(stage)
    return _recorded_root(marker)


def subject_entry(cache: Path, kind: str, name: str, version: str) -> Path:
    """Where a fetched subject lives in the cache (docs/dataset.md §4); `version` is a git subject's commit."""
    return cache / "subjects" / kind / f"{name}-{version}"


def dep_entry(cache: Path, package: str) -> Path:
    """Where a subject's Debian dependency lives in the cache."""
    return cache / "deps" / package


def _fetch_debian_source(cache: Path, package: str, version: str) -> Path:
    def fill(stage: Path) -> tuple[str, str]:
        return SOURCE_DIR, Apt(cache).fetch_source(package, version, stage)
    return _fetch_once(subject_entry(cache, "debian-source", package, version), fill)


def _fetch_debian_package(cache: Path, package: str, version: str | None, final: Path) -> Path:
    def fill(stage: Path) -> tuple[str, str]:
        return PYTHON_DIR, Apt(cache).fetch_binary(package, version, stage)
    return _fetch_once(final, fill)


def wheel_entry(cache: Path, dist: str, version: str, deps: list[str]) -> Path:
    """Where a wheel subject's environment lives in the cache: one entry per set of pins."""
    return subject_entry(cache, "wheel", dist, f"{version}-{wheels.environment_key(dist, version, deps)}")


def _fetch_wheel(cache: Path, python: Path, dist: str, version: str, deps: list[str]) -> Path:
    def fill(stage: Path) -> tuple[str, str]:
        return wheels.SITE_DIR, wheels.install_environment(python, dist, version, deps, stage)
    return _fetch_once(wheel_entry(cache, dist, version, deps), fill)


def cache_entries(parsed: ParsedSpec, config: SubjectConfig | None, cache: Path) -> list[Path]:
    """The cache entries resolving a subject fills (its own and its Debian deps'); none for the
    stdlib and local: subjects."""
    deps = config.deps if config else []
    if parsed.kind in ("cpython-stdlib", "local"):
        return [dep_entry(cache, dep) for dep in deps]
    assert parsed.version is not None
    if parsed.kind == "wheel":
        return [wheel_entry(cache, parsed.name, parsed.version, deps)]
    return [subject_entry(cache, parsed.kind, parsed.name, parsed.version), *[dep_entry(cache, dep) for dep in deps]]


def _fetch_git(cache: Path, name: str, url: str, commit: str) -> Path:
    def fill(stage: Path) -> tuple[str, str]:
        checkout = stage / "checkout"
        try:
            run_tool(["git", "clone", "--quiet", "--no-checkout", url, str(checkout)])
            run_tool(["git", "-C", str(checkout), "checkout", "--quiet", "--detach", commit])
            head = run_tool(["git", "-C", str(checkout), "rev-parse", "HEAD"]).strip()
        except FetchError as error:
            raise FetchError(f"git:{url}@{commit}: {error}") from error
        return "checkout", head
    return _fetch_once(subject_entry(cache, "git", name, commit), fill)


def _root_of(parsed: ParsedSpec, cache: Path, python: Path, deps: list[str]) -> Path:
    if parsed.kind == "cpython-stdlib":
        assert parsed.version is not None
        major_minor = ".".join(parsed.version.split(".")[:2])
        root = _prefix(interpreter(parsed.version)) / "lib" / f"python{major_minor}"
    elif parsed.kind == "debian-source":
        assert parsed.version is not None
        root = _fetch_debian_source(cache, parsed.name, parsed.version)
    elif parsed.kind == "debian-package":
        assert parsed.version is not None
        final = subject_entry(cache, "debian-package", parsed.name, parsed.version)
        root = _fetch_debian_package(cache, parsed.name, parsed.version, final)
    elif parsed.kind == "wheel":
        assert parsed.version is not None
        root = _fetch_wheel(cache, python, parsed.name, parsed.version, deps)
    elif parsed.kind == "git":
        assert parsed.location is not None and parsed.version is not None
        root = _fetch_git(cache, parsed.name, parsed.location, parsed.version)
    else:                                         # local:<path>, relative to the current directory
        assert parsed.location is not None
        root = Path(parsed.location).expanduser().resolve()
    if not root.is_dir():
        raise FetchError(f"{parsed.kind}:{parsed.name}: subject root {root} is not a directory")
    return root


def _default_python(parsed: ParsedSpec) -> str:
    """The interpreter of a subject with no catalog entry."""
    if parsed.kind == "cpython-stdlib":
        assert parsed.version is not None
        return parsed.version
    if parsed.kind in _DEBIAN_KINDS:
        return DEBIAN_PYTHON_VERSION
    return platform.python_version()


def resolve(subject: str) -> Subject:
    """A catalog name or a subject string, fetched into the cache on first use."""
    config = config_for(subject)
    if config is None and _is_name(subject):
        raise SubjectError(f"no subject named {subject!r}: no {SUBJECTS_DIR / (subject + '.yaml')}")
    spec = config.subject if config else subject
    parsed = parse_subject(spec)
    python = interpreter(config.python if config else _default_python(parsed))
    cache = cache_dir()
    pins = config.deps if config else []
    root = _root_of(parsed, cache, python, pins)
    if parsed.kind == "wheel":
        # The environment is the import path: the distribution's dependencies lie next to it.
        deps = [root]
    else:
        deps = [_fetch_debian_package(cache, dep, None, dep_entry(cache, dep)) for dep in pins]
    # The subject root, the deps and the interpreter's prefix (a stdlib root lies inside it); /usr
    # is always visible.
    readable = list(dict.fromkeys([root, *deps])) + ([] if _prefix(python) == Path("/usr") else [_prefix(python)])
    return Subject(spec, parsed.kind, parsed.name, parsed.version, root, python, deps, readable, config)


def fetch_command(args: argparse.Namespace) -> int:
    """`python3 -m hbdata fetch --subject NAME-or-spec`: fetch, then print the subject root."""
    try:
        subject = resolve(args.subject)
    except (SubjectError, FetchError) as error:
        print(f"hbdata fetch: {error}", file=sys.stderr)
        return 1
    print(subject.root)
    return 0
