"""Placing a project root of the subject in a workspace's `src` (docs/dataset.md §5).

A root is copied, or, from a read-only subject such as a wheel's cached environment, hard-linked
file by file: a session then costs directory entries, not a copy of the package. Paths the
subject marks `not_instrumented` (compiled extensions, shipped tests) become one symlink each
into the subject: importable through the package, never patched, and outside `src` once
resolved, which is what keeps healrt from instrumenting them. A wheel's vendored shared libraries
(`<dist>.libs/` at the top of the environment) become symlinks next to the project roots: the
extensions find them relative to their own directory, so they must be there.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

_SKIPPED = ("__pycache__",)
_SKIPPED_SUFFIXES = (".pyc",)


def place(source: Path, destination: Path, *, link: bool, symlinked: frozenset[Path] = frozenset()) -> None:
    """`source` (a file or a directory) at `destination`; `symlinked` are absolute paths under
    `source` that become symlinks to themselves. With `link`, files are hard links where the
    workspace shares the subject's filesystem, and copies where it does not (a workspace on its
    own tmpfs)."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    if source.is_file():
        _place_file(source, destination, link)
        return
    # Following symlinks, as a copy does: a link inside the subject gives the workspace its content.
    for parent, dirs, files in os.walk(source, followlinks=True):
        here = Path(parent)
        target = destination / here.relative_to(source)
        target.mkdir(exist_ok=True)
        for name in list(dirs):
            if name in _SKIPPED or here / name in symlinked:
                dirs.remove(name)
                if here / name in symlinked:
                    (target / name).symlink_to(here / name)
        for name in files:
            if here / name in symlinked:
                (target / name).symlink_to(here / name)
            elif not name.endswith(_SKIPPED_SUFFIXES):
                _place_file(here / name, target / name, link)


def vendored_libraries(subject_root: Path) -> list[Path]:
    """The directories of shared libraries a repaired manylinux wheel ships next to its packages
    (auditwheel's `<dist>.libs/`, e.g. numpy's OpenBLAS). Its extensions load them through the
    run path `$ORIGIN/../<dist>.libs` (one `..` per package level), which the dynamic loader reads
    from the extension's path as imported: from a workspace's `src`, not the environment's."""
    return sorted(path for path in subject_root.glob("*.libs") if path.is_dir() and not path.is_symlink())


def link_vendored_libraries(subject_root: Path, source_dir: Path) -> None:
    """One symlink in `source_dir` to each of the subject's vendored library directories (read in
    place, like the symlinked `not_instrumented` paths: never copied into a workspace)."""
    for libraries in vendored_libraries(subject_root):
        link = source_dir / libraries.name
        if not link.exists() and not link.is_symlink():
            link.symlink_to(libraries)


def _place_file(source: Path, destination: Path, link: bool) -> None:
    if link:
        try:
            os.link(source, destination)
            return
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
    shutil.copy2(source, destination)


def detach(files: list[Path]) -> None:
    """Give each existing file its own writable copy in place of a hard link, before a patch
    changes it: the subject's file, shared by every workspace, must stay as it is."""
    for path in files:
        if path.is_file() and not path.is_symlink() and path.stat().st_nlink > 1:
            private = path.with_name(f".{path.name}.detached")
            shutil.copy2(path, private)
            private.chmod(private.stat().st_mode | stat.S_IWUSR)
            os.replace(private, path)


def patched_files(patch: Path) -> list[str]:
    """The files a `-p1` unified diff changes, relative to the tree it applies to."""
    found = []
    for line in patch.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("+++ "):
            name = line[4:].split("\t")[0].strip()
            if name != "/dev/null":
                found.append(name.split("/", 1)[1] if "/" in name else name)
    return found
