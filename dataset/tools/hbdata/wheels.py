"""Wheel subjects (docs/dataset.md §4): one distribution and its pinned dependencies installed from
the local wheelhouses into a private directory, made read-only.

The environment is a `pip install --target` tree, not a venv: the interpreter stays the pyenv one
(with its own pytest, which runs the target test), and the tree goes on PYTHONPATH, ahead of the
interpreter's site-packages, so the pinned versions win over whatever that interpreter has.
`--no-deps` and exact pins for everything: what is installed is exactly what the subject file
says, never what a resolver picks on the day.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from pathlib import Path

from .debian import FetchError

# Index URLs for pip, the first one --index-url, the others --extra-index-url. Both local
# wheelhouses, always: with one alone pip also tries the public index and hangs in retries.
WHEELHOUSE = "file:///opt/pypi/simple file:///opt/pypi-more/simple"
SITE_DIR = "site-packages"                  # the environment's tree inside its cache entry
_INSTALL_TIMEOUT_S = 1800
# `name==version`, the only form a wheel subject's deps take (a pin, never a range).
PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!_-]*)")


def wheelhouse_indexes() -> list[str]:
    """pip's index options: `$HEALBENCH_WHEELHOUSE` (URLs separated by spaces or commas) or both
    local wheelhouses."""
    urls = (os.environ.get("HEALBENCH_WHEELHOUSE") or WHEELHOUSE).replace(",", " ").split()
    return ["--index-url", urls[0], *[arg for url in urls[1:] for arg in ("--extra-index-url", url)]]


def pip_install_command(python: Path, *requirements: str, target: Path | None = None) -> list[str]:
    """Install from the wheelhouses into `python`'s own prefix, or, with `target`, into that
    directory with exactly the pinned `requirements` and nothing else (binary wheels only)."""
    into = ["--target", str(target), "--no-deps", "--only-binary=:all:"] if target is not None else []
    return [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-warn-script-location", *into, *wheelhouse_indexes(), *requirements]


def environment_key(dist: str, version: str, deps: list[str]) -> str:
    """A short digest of what an environment holds: another pin in the subject file is another
    cache entry, never a stale one reused."""
    pins = "\n".join(sorted([f"{dist}=={version}", *deps]))
    return hashlib.sha256(pins.encode()).hexdigest()[:12]


def install_environment(python: Path, dist: str, version: str, deps: list[str], stage: Path) -> str:
    """Fill `stage/site-packages` with the distribution and its pins, check the version pip
    installed, make the tree read-only; returns the installed version."""
    target = stage / SITE_DIR
    command = pip_install_command(python, f"{dist}=={version}", *deps, target=target)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise FetchError(f"wheel:{dist}@{version}: {' '.join(command)}: {error}") from error
    if done.returncode != 0:
        output = " ".join((done.stdout + done.stderr).split())[-1500:]
        raise FetchError(f"wheel:{dist}@{version}: pip install failed (exit {done.returncode}): {output}")
    installed = installed_version(target, dist)
    if installed != version:
        raise FetchError(f"wheel:{dist}@{version}: the wheelhouse installed {installed}, not the declared {version}")
    make_read_only(target)
    return installed


def installed_version(site: Path, dist: str) -> str | None:
    """The version of `dist` in an install tree, from its `.dist-info` directory's name (pip
    normalises the name's separators to `_`)."""
    wanted = re.sub(r"[-_.]+", "_", dist).lower()
    for info in site.glob("*.dist-info"):
        name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
        if re.sub(r"[-_.]+", "_", name).lower() == wanted:
            return version
    return None


def make_read_only(tree: Path) -> None:
    """No write bit anywhere under `tree`: sessions link into it (docs/dataset.md §5), and a file
    shared by a hard link must never be changed in place."""
    write_bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    for parent, dirs, files in os.walk(tree):
        for name in [*files, *dirs]:
            path = Path(parent, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~write_bits)
    tree.chmod(tree.stat().st_mode & ~write_bits)
