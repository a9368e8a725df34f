#!/usr/bin/env python3
"""Re-validate HealBench dataset instances (stdlib only).

For every ``dataset/instances/<id>/instance.yaml`` this script:

1. copies the instance's project roots from the subject into a fresh overlay
   directory and applies ``bug_patch`` with ``patch -p1`` (BUGGY); a second
   overlay holds the pristine roots (REFERENCE);
2. runs the target test against each overlay, ``--runs`` times (default 3);
3. checks that BUGGY fails with ``expected_crash`` (type, and the innermost
   traceback frame's file, function and line), identically on every run, that
   the exception came out of the patched module (its module was loaded from the
   overlay), and that REFERENCE passes on every run.

How the target test is run (DESIGN.md §10, "a stdlib subject is also the
harness's library"): a small runner imports pytest from the pristine stdlib
first, then puts the overlay at the front of ``sys.path`` and drops the
subject's modules from ``sys.modules``, then calls ``pytest.main``.  The
interpreter runs with ``-P`` and pytest with ``--import-mode=append``:
without both, the subject root itself (cwd for ``-m``, and the rootdir that
pytest's default ``prepend`` import mode inserts for the ``test`` package)
lands in front of the overlay and the pristine module silently wins.

Output: one line per instance, then a summary line.  Exit code 0 only when
every instance passes.

Usage: check_instances.py [--runs N] [--subject-root PATH] [-v] [ID ...]
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DATASET = Path(__file__).resolve().parent.parent
INSTANCES = DATASET / "instances"
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT", "/root/.pyenv"))

REQUIRED_KEYS = ("id", "subject", "python", "project_roots", "target_test",
                 "expected_crash", "policy", "provenance", "determinism")


# --------------------------------------------------------------------------
# Minimal YAML reader for the subset instance.yaml uses: nested block
# mappings (2-space indent), scalars (plain, "double" or 'single' quoted),
# flow lists of scalars ([a, b]), and comments.  Anything else is an error.
# --------------------------------------------------------------------------
class YamlError(ValueError):
    pass


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text: str, lineno: int):
    text = text.strip()
    if text == "":
        return None
    if text[0] == '"':
        if len(text) < 2 or text[-1] != '"':
            raise YamlError(f"line {lineno}: unterminated string")
        return json.loads(text)
    if text[0] == "'":
        if len(text) < 2 or text[-1] != "'":
            raise YamlError(f"line {lineno}: unterminated string")
        return text[1:-1].replace("''", "'")
    if text[0] == "[":
        if text[-1] != "]":
            raise YamlError(f"line {lineno}: unterminated flow list")
        inner = text[1:-1].strip()
        return [] if not inner else [_scalar(p, lineno) for p in inner.split(",")]
    if text[0] in "{&*!|>":
        raise YamlError(f"line {lineno}: unsupported YAML construct {text[0]!r}")
    if text in ("null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def load_yaml(text: str) -> dict:
    root: dict = {}
    stack = [(-1, root)]            # (indent, mapping)
    pending = None                  # (indent, parent, key) awaiting a nested block
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError(f"line {lineno}: tab indentation")
        line = _strip_comment(raw)
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- "):
            raise YamlError(f"line {lineno}: block lists are not supported; use [a, b]")
        if pending is not None:
            p_indent, parent, key = pending
            pending = None
            if indent > p_indent:
                parent[key] = {}
                stack.append((indent, parent[key]))
            else:
                parent[key] = None
        while stack and indent < stack[-1][0]:
            stack.pop()
        if not stack or indent != stack[-1][0]:
            if stack[-1][0] == -1 and indent == 0:
                stack[-1] = (0, root)
            else:
                raise YamlError(f"line {lineno}: bad indentation")
        mapping = stack[-1][1]
        if ":" not in body:
            raise YamlError(f"line {lineno}: expected 'key: value'")
        key, _, rest = body.partition(":")
        if rest and not rest.startswith(" "):
            raise YamlError(f"line {lineno}: expected a space after ':'")
        key = key.strip()
        if key in mapping:
            raise YamlError(f"line {lineno}: duplicate key {key!r}")
        if rest.strip():
            mapping[key] = _scalar(rest, lineno)
        else:
            pending = (indent, mapping, key)
    if pending is not None:
        pending[1][pending[2]] = None
    return root


# --------------------------------------------------------------------------
# Subject resolution
# --------------------------------------------------------------------------
def resolve_subject(subject: str, override: str | None) -> tuple[Path, Path]:
    """Return (subject_root, interpreter) for a subject spec."""
    kind, _, version = subject.partition("@")
    if kind != "cpython-stdlib" or not version:
        raise ValueError(f"unsupported subject {subject!r} (this checker handles cpython-stdlib@X.Y.Z)")
    major_minor = ".".join(version.split(".")[:2])
    prefix = PYENV_ROOT / "versions" / version
    root = Path(override) if override else prefix / "lib" / f"python{major_minor}"
    python = prefix / "bin" / "python3"
    if not root.is_dir():
        raise FileNotFoundError(f"subject root {root} not found")
    if not python.exists():
        raise FileNotFoundError(f"interpreter {python} not found")
    return root, python


def module_names(roots: list[str]) -> list[str]:
    names = []
    for r in roots:
        r = r.rstrip("/")
        if r.endswith(".py"):
            r = r[:-3]
        if r.endswith("/__init__"):
            r = r[: -len("/__init__")]
        names.append(r.replace("/", "."))
    return names


# --------------------------------------------------------------------------
# The runner executed in the subject's interpreter.  argv: overlay, result
# json path, comma-separated module names, then pytest args.
# --------------------------------------------------------------------------
RUNNER = r'''
import json, os, sys, traceback
overlay, result_path, mods = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
pytest_args = sys.argv[4:]
import pytest                       # harness first, from the pristine stdlib
sys.path.insert(0, overlay)
for name in list(sys.modules):
    if any(name == m or name.startswith(m + ".") for m in mods):
        del sys.modules[name]

result = {"reports": [], "module_files": {}}

class Recorder:
    def pytest_runtest_makereport(self, item, call):
        if call.excinfo is None:
            return
        exc = call.excinfo.value
        frames = [{"file": f.filename, "function": f.name, "line": f.lineno}
                  for f in traceback.extract_tb(exc.__traceback__)]
        result["reports"].append({
            "nodeid": item.nodeid, "when": call.when,
            "type": type(exc).__name__, "message": str(exc)[:500],
            "frames": frames})

    def pytest_runtest_logreport(self, report):
        result.setdefault("outcomes", []).append(
            [report.nodeid, report.when, report.outcome])

    def pytest_sessionfinish(self, session, exitstatus):
        result["collected"] = session.testscollected
        for m in mods:
            mod = sys.modules.get(m)
            result["module_files"][m] = getattr(mod, "__file__", None)

code = pytest.main(pytest_args, plugins=[Recorder()])
result["exit_code"] = int(code)
with open(result_path, "w") as fh:
    json.dump(result, fh)
'''


def make_overlay(dest: Path, subject_root: Path, roots: list[str], patch: Path | None) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for r in roots:
        src = subject_root / r
        dst = dest / r
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=ignore)
        else:
            shutil.copy2(src, dst)
    if patch is not None:
        proc = subprocess.run(["patch", "-p1", "--batch", "--forward", "-d", str(dest), "-i", str(patch)],
                              capture_output=True, text=True)
        if proc.returncode != 0 or list(dest.rglob("*.rej")):
            raise RuntimeError(f"patch failed: {proc.stdout.strip()} {proc.stderr.strip()}")


def run_test(python: Path, subject_root: Path, overlay: Path, mods: list[str], nodeid: str,
             determinism: dict, workdir: Path, tag: str, timeout: float) -> dict:
    result_path = workdir / f"{tag}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"     # never write into the subject
    # Third-party plugins stay out of the harness: pytest-benchmark, for one,
    # creates .benchmarks/ in the cwd (the subject root) on every run.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    for k, v in (determinism or {}).items():
        if k.isupper():
            env[k] = str(v)
    args = ["-p", "no:cacheprovider", "-q", "--assert=plain", "--import-mode=append",
            "--rootdir", str(subject_root), "-o", "addopts=", "--tb=no", "-W", "ignore::DeprecationWarning"]
    basetemp = (determinism or {}).get("basetemp")
    args += ["--basetemp", str(workdir / (basetemp or "basetemp") / tag)]
    args.append(nodeid)
    proc = subprocess.run([str(python), "-P", "-c", RUNNER, str(overlay), str(result_path), ",".join(mods), *args],
                          cwd=subject_root, env=env, capture_output=True, text=True, timeout=timeout)
    if not result_path.exists():
        return {"error": f"runner produced no result (rc={proc.returncode}): {proc.stderr.strip()[-400:]}"}
    res = json.loads(result_path.read_text())
    res["stdout_tail"] = proc.stdout[-2000:]
    return res


def crash_line_in_try(path: Path, function: str, line: int) -> bool | None:
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError):
        return None
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == function \
                and fn.lineno <= line <= fn.end_lineno:
            for node in ast.walk(fn):
                if isinstance(node, ast.Try) and node.body and \
                        node.body[0].lineno <= line <= node.body[-1].end_lineno:
                    return True
            return False
    return None


def check_instance(inst_dir: Path, runs: int, subject_override: str | None, verbose: bool,
                   timeout: float) -> tuple[bool, str, list[str]]:
    notes: list[str] = []
    meta = load_yaml((inst_dir / "instance.yaml").read_text())
    missing = [k for k in REQUIRED_KEYS if k not in meta]
    if missing:
        return False, f"missing keys {missing}", notes
    if meta["id"] != inst_dir.name:
        return False, f"id {meta['id']!r} != directory name", notes
    exp = meta["expected_crash"] or {}
    for k in ("type", "file", "function", "line"):
        if k not in exp:
            return False, f"expected_crash.{k} missing", notes
    policy = DATASET / "policies" / f"{meta['policy']}.yaml"
    if not policy.exists():
        return False, f"policy file {policy.relative_to(DATASET)} not found", notes
    subject_root, python = resolve_subject(meta["subject"], subject_override)
    ver = subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                         capture_output=True, text=True).stdout.strip()
    if ver != str(meta["python"]):
        return False, f"interpreter is {ver}, instance wants {meta['python']}", notes
    roots = meta["project_roots"]
    if not isinstance(roots, list) or not roots:
        return False, "project_roots must be a non-empty list", notes
    mods = module_names(roots)
    bug_patch = inst_dir / meta["bug_patch"] if meta.get("bug_patch") else None
    if bug_patch is None:
        return False, "this checker needs bug_patch (fix_patch subjects are not handled yet)", notes

    with tempfile.TemporaryDirectory(prefix=f"hbcheck-{meta['id']}-") as tmp:
        tmp = Path(tmp)
        buggy, ref = tmp / "buggy", tmp / "reference"
        make_overlay(buggy, subject_root, roots, bug_patch)
        make_overlay(ref, subject_root, roots, None)
        expected_file = (buggy / exp["file"]).resolve()
        signatures = set()
        for i in range(runs):
            res = run_test(python, subject_root, buggy, mods, meta["target_test"], meta["determinism"],
                           tmp, f"buggy{i}", timeout)
            if "error" in res:
                return False, f"BUGGY run {i+1}: {res['error']}", notes
            if res.get("collected") != 1:
                return False, f"BUGGY run {i+1}: collected {res.get('collected')} tests, want 1", notes
            for m, f in res["module_files"].items():
                if f is None or not Path(f).resolve().is_relative_to(buggy.resolve()):
                    return False, f"BUGGY run {i+1}: module {m} loaded from {f}, not the overlay", notes
            fails = [r for r in res["reports"] if r["when"] in ("setup", "call")]
            if res["exit_code"] != 1 or not fails:
                return False, f"BUGGY run {i+1}: did not fail (exit {res['exit_code']})", notes
            r = fails[0]
            if r["when"] != "call":
                return False, f"BUGGY run {i+1}: crashed in {r['when']}, not in the test call", notes
            last = r["frames"][-1] if r["frames"] else {}
            got = (r["type"], str(Path(last.get("file", "?")).resolve()), last.get("function"), last.get("line"))
            want = (exp["type"], str(expected_file), exp["function"], int(exp["line"]))
            if got != want:
                gf = got[1]
                try:
                    gf = str(Path(gf).relative_to(buggy.resolve()))
                except ValueError:
                    pass
                return False, (f"BUGGY run {i+1}: got {got[0]} at {gf}:{got[2]}:{got[3]} "
                               f"({r['message'][:80]!r}), want {exp['type']} at "
                               f"{exp['file']}:{exp['function']}:{exp['line']}"), notes
            signatures.add((got, r["message"]))
            project_frames = [f for f in r["frames"] if Path(f["file"]).resolve().is_relative_to(buggy.resolve())]
            if verbose:
                notes.append(f"BUGGY run {i+1}: {r['type']}: {r['message'][:100]}")
        if len(signatures) != 1:
            return False, f"BUGGY not deterministic over {runs} runs: {signatures}", notes
        for i in range(runs):
            res = run_test(python, subject_root, ref, mods, meta["target_test"], meta["determinism"],
                           tmp, f"ref{i}", timeout)
            if "error" in res:
                return False, f"REFERENCE run {i+1}: {res['error']}", notes
            if res.get("collected") != 1 or res["exit_code"] != 0:
                fail = res["reports"][0] if res["reports"] else {}
                return False, (f"REFERENCE run {i+1}: exit {res['exit_code']}, collected "
                               f"{res.get('collected')}, {fail.get('type')}: {fail.get('message', '')[:80]}"), notes
            for m, f in res["module_files"].items():
                if f is None or not Path(f).resolve().is_relative_to(ref.resolve()):
                    return False, f"REFERENCE run {i+1}: module {m} loaded from {f}, not the overlay", notes
        # Preference, not a rule: no project frame on the crash path (the crash
        # line or a call site in the module) sits inside a try body.
        for f in project_frames:
            if crash_line_in_try(Path(f["file"]), f["function"], f["line"]):
                rel = Path(f["file"]).resolve().relative_to(buggy.resolve())
                notes.append(f"warning: {rel}:{f['function']}:{f['line']} is inside a try block of the module")
        (_, msg), = signatures
    return True, f"{exp['type']}: {msg[:60]!r} at {exp['file']}:{exp['function']}:{exp['line']}", notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", help="instance ids (default: all)")
    ap.add_argument("--runs", type=int, default=3, help="runs per variant (default 3)")
    ap.add_argument("--subject-root", help="override the subject root directory")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per test run")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    dirs = sorted(p for p in INSTANCES.iterdir() if (p / "instance.yaml").exists()) if INSTANCES.is_dir() else []
    if args.ids:
        known = {d.name: d for d in dirs}
        unknown = [i for i in args.ids if i not in known]
        if unknown:
            print(f"unknown instance ids: {', '.join(unknown)}", file=sys.stderr)
            return 2
        dirs = [known[i] for i in args.ids]
    if not dirs:
        print("no instances found", file=sys.stderr)
        return 2
    failed = 0
    for d in dirs:
        try:
            ok, detail, notes = check_instance(d, args.runs, args.subject_root, args.verbose, args.timeout)
        except Exception as e:  # malformed instance, missing subject, timeout...
            ok, detail, notes = False, f"{type(e).__name__}: {e}", []
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'}  {d.name}  {detail}")
        for n in notes:
            print(f"      {n}")
    total = len(dirs)
    print(f"summary: {total - failed}/{total} instances valid, {failed} failed "
          f"({args.runs} BUGGY + {args.runs} REFERENCE runs each)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
