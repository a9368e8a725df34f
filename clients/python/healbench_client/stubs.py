"""Python message classes and gRPC stubs for the repository's protos, generated at run time into the cache.

Generated code is never committed: the protos are the one source, and they are being edited. Every
healbench/**/*.proto is compiled in one protoc call into one directory, so a proto's imports of
another (bench.proto of decision.proto) resolve, and the agent client and the controlled suite's
guard client load from the same place. The directory is keyed by a hash of all those protos and of
the generator and runtime versions, so an edit to any of them (or a new grpcio-tools) gives a fresh
directory while an unchanged tree costs only a hash.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from healbench_client import paths

_MARKER = ".complete"


class StubError(RuntimeError):
    """The stubs cannot be generated (missing proto, include or generator)."""


@dataclass(frozen=True)
class Stubs:
    """One proto's generated modules: `pb` holds its messages (agent.proto's `ConnectRequest`,
    `Resume`, ...), `grpc` its service's stub and servicer (`AgentGatewayServiceStub`/`...Servicer`)."""

    pb: ModuleType
    grpc: ModuleType
    directory: Path


def _googleapis_root() -> Path:
    """The site-packages directory holding `google/rpc/status.proto`.

    googleapis-common-protos ships the .proto files beside its generated modules, so the same
    installed package serves protoc's import and, at run time, `google.rpc.status_pb2` (which the
    generated agent_pb2 and sandbox_pb2 import) and `error_details_pb2` (for ErrorInfo).
    """
    spec = importlib.util.find_spec("google.rpc")
    for location in (spec.submodule_search_locations or []) if spec else []:
        root = Path(location).parent.parent
        if (root / "google" / "rpc" / "status.proto").is_file():
            return root
    raise StubError("google/rpc/status.proto not found: install googleapis-common-protos "
                    "(clients/python/env.sh does)")


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _protos(root: Path) -> list[Path]:
    """Every proto of the repository's tree, in a stable order (the key hashes them in it)."""
    return sorted(root.glob("healbench/**/*.proto"))


def _key(root: Path, protos: list[Path]) -> str:
    digest = hashlib.sha256()
    for proto in protos:
        # The path too: a proto moved to another package generates other modules.
        digest.update(f"{proto.relative_to(root)}\0".encode())
        digest.update(proto.read_bytes())
        digest.update(b"\0")
    for distribution in ("grpcio-tools", "protobuf", "googleapis-common-protos"):
        digest.update(f"\0{distribution}={_version(distribution)}".encode())
    return digest.hexdigest()[:16]


def generate(proto_root: Path | None = None, cache: Path | None = None) -> Path:
    """Generates (once per key) and returns the directory to put on sys.path."""
    root = (proto_root or paths.proto_root()).resolve()
    protos = _protos(root)
    if not protos:
        raise StubError(f"no healbench/**/*.proto under {root} (set HEALBENCH_PROTO_DIR to the directory "
                        f"holding {paths.AGENT_PROTO})")
    out = (cache or paths.cache_dir()) / "gen" / _key(root, protos)
    if (out / _MARKER).exists():
        return out
    try:
        from grpc_tools import protoc  # only imported when generating: it is slow to load
    except ImportError as error:
        raise StubError("grpcio-tools is not installed (run clients/python/env.sh)") from error
    builtin = Path(protoc.__file__).parent / "_proto"   # google/protobuf/*.proto (empty.proto, timestamp.proto)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Generate into a temporary sibling and rename it into place, so that concurrent callers (tests
    # run in parallel) never import a half-written directory; the loser of the race drops its copy.
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        args = ["grpc_tools.protoc", f"-I{root}", f"-I{_googleapis_root()}", f"-I{builtin}",
                f"--python_out={work}", f"--pyi_out={work}", f"--grpc_python_out={work}",
                *(str(proto) for proto in protos)]
        if protoc.main(args) != 0:
            raise StubError(f"protoc failed on the protos under {root} (its messages are above)")
        (work / _MARKER).write_text("".join(f"{proto}\n" for proto in protos))
        try:
            os.rename(work, out)
        except OSError:
            if not (out / _MARKER).exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def load(proto_root: Path | None = None, cache: Path | None = None, proto: Path = paths.AGENT_PROTO) -> Stubs:
    """Generates if needed and imports `proto`'s modules (relative to the proto root, agent.proto by
    default: `healbench.agent.v1.agent_pb2` and `agent_pb2_grpc`)."""
    directory = generate(proto_root, cache)
    if not (directory / proto.with_name(f"{proto.stem}_pb2.py")).is_file():
        raise StubError(f"{proto} is not among the protos generated into {directory}")
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    module = ".".join(proto.with_suffix("").parts) + "_pb2"
    pb = importlib.import_module(module)
    grpc_module = importlib.import_module(f"{module}_grpc")
    loaded_from = Path(pb.__file__ or "").resolve().parent
    if not loaded_from.is_relative_to(directory.resolve()):
        # Another directory's copy was imported first in this process (an older proto): mixing
        # the two would send messages the server does not know.
        raise StubError(f"{proto.stem}_pb2 already imported from {loaded_from}, not {directory}")
    return Stubs(pb=pb, grpc=grpc_module, directory=directory)
