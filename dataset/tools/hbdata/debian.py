"""Debian packages from bookworm through a private apt configuration (docs/dataset.md §4).

apt reads its sources, lists and package cache from `<cache>/apt/`; nothing under /etc or
/var/cache/apt is touched, so this works next to the system's own apt and never changes what
`apt-get install` sees. Source packages: `apt-get source --print-uris` names the upstream tarball,
`apt-helper download-file` fetches it with its hash checked, `tar` unpacks it. Binary packages:
`apt-get download`, then `dpkg-deb -x`.
"""
from __future__ import annotations

import fcntl
import glob
import os
import re
import shutil
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

SUITE = "bookworm"
_FALLBACK_MIRROR = "http://deb.debian.org/debian"
_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
_TIMEOUT = 600
_LISTS_MAX_AGE_S = 24 * 3600
SOURCE_DIR = "source"                            # fetch_source's tree, inside the stage
PYTHON_DIR = "usr/lib/python3/dist-packages"     # where python3-* binary packages put modules
# Debian repacks upstream tarballs under suffixes like 1.2+dfsg or 3.0+ds1; the upstream
# version a subject declares is the part before them.
_REPACK = re.compile(r"[+~](dfsg|ds|repack)[0-9.]*$")


class FetchError(RuntimeError):
    """A subject or dependency could not be fetched; the message says which and why."""


def upstream_version(debian_version: str) -> str:
    """`1:2.4.0+dfsg-2` -> `2.4.0`: no epoch, no Debian revision, no repack suffix."""
    version = debian_version.split(":", 1)[-1]
    if "-" in version:
        version = version.rsplit("-", 1)[0]
    return _REPACK.sub("", version)


def _mirror() -> str:
    """The Debian mirror this machine's apt already uses (deb822 or one-line sources)."""
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + ["/etc/apt/sources.list"]:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split()
            uris = words[1:] if words[:1] in (["URIs:"], ["deb"]) else []
            for uri in uris:
                if uri.rstrip("/").endswith("/debian"):
                    return uri
    return _FALLBACK_MIRROR


def run_tool(command: list[str], cwd: Path | None = None) -> str:
    """stdout of a fetch tool (apt, dpkg, git); FetchError with its stderr when it fails."""
    # Name the tool and its subcommand, skipping options and `-o Key=value` settings.
    label = " ".join([Path(command[0]).name, *[w for w in command[1:] if w[:1] != "-" and "=" not in w][:1]])
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                              timeout=_TIMEOUT, env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise FetchError(f"{label} failed: {error}") from error
    if done.returncode != 0:
        raise FetchError(f"{label} failed (exit {done.returncode}): "
                         f"{done.stderr.strip()[-500:]}")
    return done.stdout


class Apt:
    """apt with `<cache>/apt` as its whole state. One process at a time per cache (a lock file),
    because apt's own lists lock makes a second concurrent `apt-get update` fail instead of wait."""

    def __init__(self, cache: Path) -> None:
        self.home = cache / "apt"
        self.sources = self.home / "sources.list"
        self.options = [
            "-o", f"Dir::Etc::sourcelist={self.sources}", "-o", "Dir::Etc::sourceparts=-",
            "-o", f"Dir::State::Lists={self.home / 'lists'}",
            "-o", f"Dir::Cache={self.home / 'cache'}",
        ]
        if os.geteuid() == 0:
            # The cache usually lives under /root, which apt's unprivileged `_apt` download
            # user cannot enter; downloading as root avoids a warning per file.
            self.options += ["-o", "APT::Sandbox::User=root"]

    @contextmanager
    def _locked(self) -> Iterator[None]:
        for sub in ("lists/partial", "cache/archives/partial"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        with open(self.home / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _update(self) -> None:
        """`apt-get update` when the lists are missing, older than a day (the mirror drops
        superseded revisions, so old lists name files that are gone), or for other sources."""
        signed = f"[signed-by={_KEYRING}] " if os.path.exists(_KEYRING) else ""
        wanted = "".join(f"{kind} {signed}{_mirror()} {SUITE} main\n" for kind in ("deb", "deb-src"))
        stamp = self.home / "updated-for"
        if stamp.is_file() and stamp.read_text() == wanted and time.time() - stamp.stat().st_mtime < _LISTS_MAX_AGE_S:
            return
        self.sources.write_text(wanted)
        run_tool(["apt-get", "update", "-qq", *self.options])
        stamp.write_text(wanted)

    def _pick(self, package: str, index: str, upstream: str | None) -> str:
        """The Debian version of `package` in the `index` ("Sources" or "Packages") whose upstream
        version is `upstream` (any version when None)."""
        out = run_tool(["apt-cache", "madison", *self.options, package])
        rows = [[col.strip() for col in line.split(" | ")] for line in out.splitlines()]
        versions = [row[1] for row in rows if len(row) == 3 and row[0] == package and row[2].endswith(index)]
        if not versions:
            kind = "source package" if index == "Sources" else "binary package"
            raise FetchError(f"{package}: no {kind} of that name in Debian {SUITE}")
        matching = [v for v in versions if upstream is None or upstream_version(v) == upstream]
        if not matching:
            found = ", ".join(f"{upstream_version(v)} ({v})" for v in versions)
            raise FetchError(f"{package}: declared version {upstream}, but Debian {SUITE} has {found}")
        return matching[0]

    def fetch_source(self, package: str, upstream: str, stage: Path) -> str:
        """Unpack the upstream tarball of source package `package` at upstream version `upstream`
        into `stage/SOURCE_DIR` (`stage` is empty); returns the Debian version it came with.

        Only the upstream (orig) tarball is used, not Debian's packaging and patches: for a given
        upstream version it never changes, while Debian revisions (stable and security updates)
        replace each other on the mirror and would shift the lines pinned instances point at.
        It is also all that some mirrors still serve (their .debian.tar is gone).
        """
        download, unpacked = stage / ".download", stage / ".unpacked"
        download.mkdir()
        unpacked.mkdir()
        with self._locked():
            self._update()
            version = self._pick(package, "Sources", upstream)
            listing = run_tool(["apt-get", "source", "--download-only", "--print-uris", "-qq",
                                *self.options, f"{package}={version}"])
            uri, name, digest = _upstream_tarball(package, listing)
            # apt's own downloader: the same proxy settings, and it checks the signed index's hash.
            run_tool(["/usr/lib/apt/apt-helper", *self.options, "download-file", uri,
                      str(download / name), digest])
        run_tool(["tar", "-xf", str(download / name), "-C", str(unpacked)])
        # Upstream tarballs normally hold one top directory (toolz-0.12.0/); that is the tree.
        entries = list(unpacked.iterdir())
        os.rename(entries[0] if len(entries) == 1 and entries[0].is_dir() else unpacked, stage / SOURCE_DIR)
        shutil.rmtree(unpacked, ignore_errors=True)      # gone already when it was the tree itself
        shutil.rmtree(download)
        return version

    def fetch_binary(self, package: str, upstream: str | None, stage: Path) -> str:
        """Extract binary package `package` (at upstream version `upstream`, or bookworm's one
        when None) into `stage` (empty); returns the Debian version. Its modules end up in
        `stage/PYTHON_DIR`."""
        download = stage / ".download"
        download.mkdir()
        with self._locked():
            self._update()
            version = self._pick(package, "Packages", upstream)
            run_tool(["apt-get", "download", "-qq", *self.options, f"{package}={version}"], cwd=download)
        debs = sorted(download.glob("*.deb"))
        if len(debs) != 1:
            raise FetchError(f"{package}: apt-get download left {len(debs)} .deb files")
        run_tool(["dpkg-deb", "-x", str(debs[0]), str(stage)])
        shutil.rmtree(download)
        return version


def _upstream_tarball(package: str, listing: str) -> tuple[str, str, str]:
    """(uri, file name, hash) of the upstream tarball in `apt-get source --print-uris` output:
    `name.orig.tar.*`, or `name.tar.*` for a native package. Multi-tarball sources (orig-COMPONENT)
    are refused rather than half unpacked."""
    files = []
    for line in listing.splitlines():
        words = line.split()
        if len(words) == 4 and words[0].startswith("'"):
            files.append((words[0].strip("'"), words[1], words[3]))
    names = [name for _, name, _ in files]
    if any(".orig-" in name and ".asc" not in name for name in names):
        raise FetchError(f"{package}: multi-tarball source packages are not supported ({', '.join(names)})")
    chosen = [f for f in files if re.search(r"\.tar\.[a-z0-9]+$", f[1]) and ".debian.tar." not in f[1]]
    if len(chosen) != 1:
        raise FetchError(f"{package}: expected one upstream tarball, apt lists {', '.join(names) or 'nothing'}")
    return chosen[0]
