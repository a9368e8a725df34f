"""The code the benchmark runs: stdlib modules with their own CPython test files, and a Debian source package."""

from __future__ import annotations

import dataclasses
import glob
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

CACHE = Path(os.environ.get("HEALBENCH_CACHE", "~/.cache/healbench")).expanduser()
DEBIAN_PYTHON = "/usr/bin/python3"
_SOURCES_FALLBACK = "http://deb.debian.org/debian"
_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


@dataclasses.dataclass(frozen=True)
class Suite:
    name: str
    python: str
    source_dir: str
    project_modules: tuple[str, ...]
    tests: str  # the test file or directory given to pytest
    # Whether runs pause at crashes (a controller answers `reraise`). A whole directory of test
    # files has no single target file whose frames end the "would it be caught?" walk, so
    # directory suites run with intercept off: instrumentation and trace only.
    intercept: bool


def stdlib_suite(module: str, work: Path, python: str) -> Suite | None:
    """`module`.py copied into an overlay, tested by CPython's own test/test_<module>.py."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    source, tests = stdlib / f"{module}.py", stdlib / "test" / f"test_{module}.py"
    if not source.is_file() or not tests.is_file():
        return None
    overlay = work / f"stdlib-{module}"
    overlay.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, overlay / source.name)
    return Suite(module, python, str(overlay), (module,), str(tests), True)


def _debian_mirror() -> str:
    """The Debian mirror this machine's apt already uses (deb822 or one-line sources)."""
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + ["/etc/apt/sources.list"]:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split()
            if words[:1] == ["URIs:"] and len(words) > 1 and words[1].rstrip("/").endswith("/debian"):
                return words[1]
            if words[:1] == ["deb"] and any(w.rstrip("/").endswith("/debian") for w in words[1:]):
                return next(w for w in words[1:] if w.rstrip("/").endswith("/debian"))
    return _SOURCES_FALLBACK


def debian_source(package: str) -> tuple[Path | None, str]:
    """Unpacked `apt-get source` of a bookworm package under the cache, or (None, why not).

    apt runs with a private sources list and lists directory; nothing under /etc is touched.
    """
    subjects = CACHE / "subjects"
    found = sorted(p for p in subjects.glob(f"{package}-*") if p.is_dir())
    if found:
        return found[-1], "cached"
    if shutil.which("apt-get") is None or shutil.which("dpkg-source") is None:
        return None, "apt-get or dpkg-source not installed"
    apt_dir = CACHE / "apt"
    (apt_dir / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    sources = apt_dir / "sources.list"
    signed = f"[signed-by={_KEYRING}] " if os.path.exists(_KEYRING) else ""
    sources.write_text(f"deb-src {signed}{_debian_mirror()} bookworm main\n")
    options = ["-o", f"Dir::Etc::sourcelist={sources}", "-o", "Dir::Etc::sourceparts=-",
               "-o", f"Dir::State::Lists={apt_dir / 'lists'}"]
    subjects.mkdir(parents=True, exist_ok=True)
    for command in (["apt-get", "update", "-qq", *options], ["apt-get", "source", "-qq", *options, package]):
        try:
            done = subprocess.run(command, cwd=subjects, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as error:
            return None, f"{command[1]} failed: {error}"
        if done.returncode != 0:
            return None, f"apt-get {command[1]} failed: {done.stderr.strip()[-300:]}"
    found = sorted(p for p in subjects.glob(f"{package}-*") if p.is_dir())
    return (found[-1], "fetched") if found else (None, "apt-get source unpacked nothing")


def toolz_suite() -> tuple[Suite | None, str]:
    """toolz from Debian's source package, tested with its own tests by Debian's python3."""
    if not os.access(DEBIAN_PYTHON, os.X_OK):
        return None, f"{DEBIAN_PYTHON} not found"
    probe = subprocess.run([DEBIAN_PYTHON, "-c", "import pytest"], capture_output=True)
    if probe.returncode != 0:
        return None, f"pytest missing for {DEBIAN_PYTHON} (apt-get install python3-pytest)"
    root, why = debian_source("toolz")
    if root is None:
        return None, why
    # toolz/tests is inside the package: intercept.py leaves test code uninstrumented.
    return Suite("toolz", DEBIAN_PYTHON, str(root), ("toolz", "tlz"), str(root / "toolz" / "tests"), False), why
