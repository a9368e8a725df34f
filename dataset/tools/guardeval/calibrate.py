"""Finds and checks an instance's heal site by running it (two runs per instance, cached).

1. Discovery: BUGGY under a controller that reraises, guard in `observe` mode (it only reports,
   and no heal means nothing to report; the guard's formatting rewrite is part of a rewrite's cache
   key, so the calibration run and the cases then load every module from the rewrites this run
   made, but the one their patch changes); the first pause's context gives the site and the heal's
   location (sites.py).
2. Calibration: the site's heal (`LOC = '<path>'`, skip) with a block after the crash statement
   that runs every sink the cases use on literal paths, guard in `observe` mode. The site is
   usable when the heal applies, the block runs after it, every sink's file appears (none is
   shadowed or missing there), and the guard reports no violation: the program's own
   continuation after the heal reaches no protected operation with healed data, so a safe twin
   is safe because of its own code. (A bool-none case whose gate also passes before the heal is
   dropped when it runs, suite.py.)

Records live in <cache>/guardeval/sites/, keyed by the instance digest and a hash of healrt's
sources and of this package's modules that shape a calibration: a change to either calibrates
again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from . import cases, runner, shapes
from .sites import HealSite, SiteRefused, choose_site

PACKAGE_DIR = Path(__file__).resolve().parent
_SHAPING = ("calibrate.py", "cases.py", "runner.py", "shapes.py", "sites.py",
            "../hbdata/runner.py", "../hbdata/procgroup.py")  # hbdata's: the spec and the run of a case


class RunFailed(RuntimeError):
    pass


def cache_root() -> Path:
    return Path(os.environ.get("HEALBENCH_CACHE") or Path.home() / ".cache" / "healbench") / "guardeval"


@functools.lru_cache(maxsize=1)
def sources_key() -> str:
    """healrt's sources and the modules of this package (and hbdata's) that shape a calibration."""
    runtime = runner.HEALRT_DIR / "healrt"
    paths = sorted(path for pattern in ("*.py", "*.json", "*.yaml") for path in runtime.rglob(pattern)) \
        + [PACKAGE_DIR / name for name in _SHAPING]
    digest = hashlib.sha256()
    for path in paths:
        name = path.relative_to(runtime) if path.is_relative_to(runtime) else path.name
        digest.update(str(name).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def record_path(instance: str, digest: str) -> Path:
    return cache_root() / "sites" / f"{instance}-{digest[:16]}-{sources_key()}.json"


def load_record(instance: str, digest: str) -> dict[str, Any] | None:
    try:
        return json.loads(record_path(instance, digest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def save_record(instance: str, digest: str, record: dict[str, Any]) -> None:
    path = record_path(instance, digest)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record, indent=1), encoding="utf-8")
    temporary.replace(path)


def calibrate(base: Path, plan: dict[str, Any], scratch: Path, guard_policy: dict[str, Any],
              timeout_s: float, code_cache: Path) -> dict[str, Any]:
    """{"site": {...}} for a usable site, {"refused": reason} for an unusable one (both are facts
    worth caching), or {"error": ...} when a run itself failed (not cached: retried next time)."""
    discovery = _fresh(scratch / "discover")
    moved = runner.copy_workspace(base, plan, discovery)
    try:
        found = runner.run(moved, discovery, None, {"mode": "observe", "policy": guard_policy}, timeout_s, code_cache)
        if found.error:
            return {"error": f"discovery run: {found.error}: {found.output[-300:]}"}
        if found.first_crash is None:
            return {"refused": "BUGGY never pauses (no crash the runtime would intercept)"}
        site = choose_site(found.first_crash, moved["source_dir"])
    except SiteRefused as refused:
        return {"refused": str(refused)}
    finally:
        shutil.rmtree(discovery, ignore_errors=True)
    check = _fresh(scratch / "calibrate")
    try:
        problem = _check_site(base, plan, check, site, guard_policy, timeout_s, code_cache)
    except RunFailed as failed:
        return {"error": str(failed)}
    finally:
        shutil.rmtree(check, ignore_errors=True)
    return {"refused": problem, "site": site.to_json()} if problem else {"site": site.to_json()}


def _check_site(base: Path, plan: dict[str, Any], workspace: Path, site: HealSite, guard_policy: dict[str, Any],
                timeout_s: float, code_cache: Path) -> str:
    moved = runner.copy_workspace(base, plan, workspace)
    value = f"{workspace}/calibrate-heal"
    patched_file = Path(moved["source_dir"]) / site.file
    original = patched_file.read_text(encoding="utf-8")
    patched = cases.insert(original, site, cases.calibration_block(site, value, str(workspace)), [])
    problem = apply_patch(cases.unified_diff(original, patched.text, site.file), Path(moved["source_dir"]),
                          moved["python"], patched_file)
    if problem:
        return problem
    heal = runner.Heal(f"{site.location} = {value!r}", str(patched_file), patched.statement_line)
    result = runner.run(moved, workspace, heal, {"mode": "observe", "policy": guard_policy}, timeout_s, code_cache)
    if result.error:
        raise RunFailed(f"calibration run: {result.error}: {result.output[-300:]}")
    if result.heal_result is None:
        return f"the heal was not sent (first pause elsewhere, or {result.error or 'the run ended'})"
    if not result.heal_result.get("ok"):
        return f"the heal failed: {json.dumps(result.heal_result.get('error'))}"
    reached = (result.outcome or {}).get("trace", {}).get(f"{site.file}:{patched.body_line}", 0)
    if reached == 0:
        return "the block after the statement never ran after the heal"
    missing = [str(index) for index in range(len(shapes.SINKS)) if not (workspace / f"calibrate-{index}").exists()]
    if missing:
        return f"sinks without effect in the project module: {', '.join(missing)}"
    if result.violations():
        first = result.violations()[0]
        return f"the program's own continuation reaches a protected operation with healed data: {first.get('op')} " \
               f"at {first.get('sink', {}).get('file')}:{first.get('sink', {}).get('line')}"
    return ""


def apply_patch(patch: str, source_dir: Path, python: str, patched_file: Path) -> str:
    """Applies a -p1 patch in source_dir and compiles the file with the run's interpreter; "" or the problem."""
    patch_file = source_dir.parent / "case.patch"
    patch_file.write_text(patch, encoding="utf-8")
    applied = subprocess.run(["patch", "-p1", "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch", "-s",
                              "-d", str(source_dir), "-i", str(patch_file)], capture_output=True, text=True, timeout=60)
    if applied.returncode != 0:
        return f"patch does not apply: {(applied.stdout + applied.stderr).strip()[:300]}"
    compiled = subprocess.run([python, "-c", "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
                               str(patched_file)], capture_output=True, text=True, timeout=60)
    if compiled.returncode != 0:
        return f"patched module does not compile: {compiled.stderr.strip().splitlines()[-1:]}"
    return ""


def _fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    return path
