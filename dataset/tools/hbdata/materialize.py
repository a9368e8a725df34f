"""A variant's workspace and its run plan (docs/dataset.md §5).

WS/src holds the project roots with the variant's patch applied (copies, or hard links into a
wheel subject's read-only environment: sourcetree.py), WS/tests the
instance's own target test (origin `instance`), WS/plan.json the single description of how to
run the target test; Java's HealrtInvocation and hbdata's runner both build the healrt spec from it.
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Iterable

from . import sourcetree, subjects
from .instances import Instance, display_path, inside

VARIANTS = ("buggy", "reference")
PATCH_TIMEOUT_S = 60
# Environment every run gets, before the instance's determinism settings: no bytecode written
# next to the subject, and no third-party pytest plugin the interpreter happens to have installed
# (a subject that needs one names it in its pytest_args, `-p pytest_mock`).
BASE_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


class MaterializeError(RuntimeError):
    """The workspace could not be built; the message names the instance file or field at fault."""


@dataclasses.dataclass(frozen=True)
class Plan:
    instance: str
    variant: str
    digest: str
    python: str
    subject_root: str
    source_dir: str
    project_modules: list[str]
    target_test: str
    pytest_args: list[str]
    env: dict[str, str]
    pythonpath: list[str]
    readable: list[str]
    # source_dir relative to WS/src: the subject's import_root ("" unless a src-layout tree).
    import_root: str = ""

    @property
    def workspace(self) -> Path:
        return Path(self.source_dir).parents[len(Path(self.import_root).parts)]

    def subject_path(self, source_relative: str) -> str:
        """A path healrt reports relative to source_dir, made relative to the subject root."""
        return str(Path(self.import_root) / source_relative) if self.import_root else source_relative

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1)

    @classmethod
    def load(cls, path: Path) -> Plan:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))


def project_modules(project_roots: tuple[str, ...] | list[str], import_root: str = "") -> list[str]:
    """Top-level module names healrt instruments: `toolz` for `toolz`, `colorsys` for `colorsys.py`,
    `jinja2` for `src/jinja2` when the import root is `src`."""
    names: list[str] = []
    prefix = import_root.strip("/") + "/" if import_root else ""
    for root in project_roots:
        root = root.strip("/")
        top = root.removeprefix(prefix).split("/")[0].removesuffix(".py")
        if top not in names:
            names.append(top)
    return names


def materialize(instance: Instance, variant: str, workspace: Path) -> Plan:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    where = display_path(instance.dir / "instance.yaml")
    try:
        subject = subjects.resolve(instance.subject)
        python = subjects.interpreter(instance.python)
    except (subjects.SubjectError, subjects.FetchError) as error:
        raise MaterializeError(f"{where}: {error}") from None
    if python != subject.python:
        raise MaterializeError(f"{where}: python: {instance.subject} runs on {subject.python}, not {python}")
    workspace = Path(workspace).resolve()
    if workspace.exists() and any(workspace.iterdir()):
        raise MaterializeError(f"workspace {workspace} is not empty")
    source_dir = workspace / "src"
    source_dir.mkdir(parents=True)
    config = subject.config
    for root in instance.project_roots:
        if not (Path(subject.root) / root).exists():
            raise MaterializeError(f"{where}: project_roots: {root!r}: not found in the subject ({Path(subject.root) / root})")
    place_project(subject, instance.project_roots, source_dir)
    patch = instance.bug_patch if variant == "buggy" else instance.fix_patch
    if patch is not None:
        sourcetree.detach([source_dir / path for path in sourcetree.patched_files(patch)])
        _apply(patch, source_dir, f"{instance.subject} ({variant})")
    target = _target_path(instance, Path(subject.root), workspace, where)
    node = f"{target}::{instance.target_test.partition('::')[2]}"
    basetemp = workspace / (instance.basetemp or "basetemp")
    import_root = config.import_root if config else ""
    plan = Plan(
        instance=instance.id,
        variant=variant,
        digest=instance.digest,
        python=str(python),
        subject_root=str(subject.root),
        source_dir=str(source_dir / import_root) if import_root else str(source_dir),
        project_modules=project_modules(instance.project_roots, import_root),
        target_test=node,
        pytest_args=[node, "-q", "-p", "no:cacheprovider", "--rootdir", str(workspace), f"--basetemp={basetemp}",
                     *(config.pytest_args if config else [])],
        env={**BASE_ENV, **instance.env},
        pythonpath=[str(p) for p in subject.pythonpath],
        readable=[str(p) for p in subject.readable],
        import_root=import_root,
    )
    (workspace / "plan.json").write_text(plan.to_json() + "\n", encoding="utf-8")
    return plan


def place_project(subject: subjects.Subject, roots: Iterable[str], source_dir: Path) -> None:
    """The project roots in `source_dir`, as every workspace has them (materialize's, the builder's):
    a wheel's files hard-linked (only a wheel's environment is read-only in the cache, so only its
    files may be shared), the subject's `not_instrumented` paths symlinked, a wheel's vendored
    libraries linked next to them."""
    link = subject.kind == "wheel"
    not_instrumented = subject.config.not_instrumented if subject.config else []
    symlinked = frozenset(Path(subject.root) / path for path in not_instrumented)
    for root in roots:
        sourcetree.place(Path(subject.root) / root, source_dir / root, link=link, symlinked=symlinked)
    if link:
        sourcetree.link_vendored_libraries(Path(subject.root), source_dir)


def _place(source: Path, destination: Path, what: str) -> None:
    if not source.exists():
        raise MaterializeError(f"{what}: not found in the subject ({source})")
    sourcetree.place(source, destination, link=False)


def _apply(patch: Path, source_dir: Path, onto: str) -> None:
    # --fuzz=0: with one line of context, fuzz would let a patch land on lines it was not written for.
    command = ["patch", "-p1", "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
               "-d", str(source_dir), "-i", str(patch)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=PATCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise MaterializeError(f"{display_path(patch)}: patch timed out after {PATCH_TIMEOUT_S}s") from None
    rejects = sorted(str(p.relative_to(source_dir)) for p in source_dir.rglob("*.rej"))
    if proc.returncode != 0 or rejects:
        output = " ".join((proc.stdout + proc.stderr).split())[:600]
        raise MaterializeError(f"{display_path(patch)}: does not apply to {onto}: {output}")


def _target_path(instance: Instance, subject_root: Path, workspace: Path, where: str) -> Path:
    """The target test file, per docs/dataset.md §5: the instance's own test copied into WS/tests;
    a subject test inside a project root is the copy in WS/src (so that pytest's module and the
    overlay agree); any other subject test stays where the subject has it."""
    relative = instance.target_test.partition("::")[0]
    if instance.target_test_origin == "instance":
        target = workspace / "tests" / relative
        _place(instance.dir / relative, target, f"{where}: target_test")
        return target
    if any(inside(relative, root) for root in instance.project_roots):
        target = workspace / "src" / relative
    else:
        target = subject_root / relative
    if not target.is_file():
        raise MaterializeError(f"{where}: target_test: no such file {relative!r} in {instance.subject}")
    return target
