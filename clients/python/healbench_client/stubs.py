"""Python message classes and gRPC stubs for agent.proto, generated at run time into the cache.

Generated code is never committed: the proto is the one source, and it is being edited. The output
directory is keyed by a hash of the proto and of the generator and runtime versions, so an edit to
the proto (or a new grpcio-tools) gives a fresh directory while an unchanged one costs only a hash.
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
    """The generated modules: `pb` holds the messages (`ConnectRequest`, `Resume`, ...), `grpc` the
    `AgentGatewayServiceStub`/`AgentGatewayServiceServicer`."""

    pb: ModuleType
    grpc: ModuleType
    directory: Path


def _googleapis_root() -> Path:
    """The site-packages directory holding `google/rpc/status.proto`.

    googleapis-common-protos ships the .proto files beside its generated modules, so the same
    installed package serves protoc's import and, at run time, `google.rpc.status_pb2` (which the
    generated agent_pb2 imports) and `error_details_pb2` (for ErrorInfo).
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


def _key(proto: Path) -> str:
    digest = hashlib.sha256(proto.read_bytes())
    for distribution in ("grpcio-tools", "protobuf", "googleapis-common-protos"):
        digest.update(f"\0{distribution}={_version(distribution)}".encode())
    return digest.hexdigest()[:16]


def generate(proto_root: Path | None = None, cache: Path | None = None) -> Path:
    """Generates (once per key) and returns the directory to put on sys.path."""
    root = (proto_root or paths.proto_root()).resolve()
    proto = root / paths.AGENT_PROTO
    if not proto.is_file():
        raise StubError(f"{proto} not found (set HEALBENCH_PROTO_DIR to the directory holding "
                        f"{paths.AGENT_PROTO})")
    out = (cache or paths.cache_dir()) / "gen" / _key(proto)
    if (out / _MARKER).exists():
        return out
    try:
        from grpc_tools import protoc  # only imported when generating: it is slow to load
    except ImportError as error:
        raise StubError("grpcio-tools is not installed (run clients/python/env.sh)") from error
    builtin = Path(protoc.__file__).parent / "_proto"   # google/protobuf/*.proto (any.proto)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Generate into a temporary sibling and rename it into place, so that concurrent callers (tests
    # run in parallel) never import a half-written directory; the loser of the race drops its copy.
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        args = ["grpc_tools.protoc", f"-I{root}", f"-I{_googleapis_root()}", f"-I{builtin}",
                f"--python_out={work}", f"--pyi_out={work}", f"--grpc_python_out={work}", str(proto)]
        if protoc.main(args) != 0:
            raise StubError(f"protoc failed on {proto} (its messages are above)")
        (work / _MARKER).write_text(f"{proto}\n")
        try:
            os.rename(work, out)
        except OSError:
            if not (out / _MARKER).exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def load(proto_root: Path | None = None, cache: Path | None = None) -> Stubs:
    """Generates if needed and imports `healbench.agent.v1.agent_pb2` and `agent_pb2_grpc`."""
    directory = generate(proto_root, cache)
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    pb = importlib.import_module("healbench.agent.v1.agent_pb2")
    grpc_module = importlib.import_module("healbench.agent.v1.agent_pb2_grpc")
    loaded_from = Path(pb.__file__ or "").resolve().parent
    if not loaded_from.is_relative_to(directory.resolve()):
        # Another directory's copy was imported first in this process (an older proto): mixing
        # the two would send messages the server does not know.
        raise StubError(f"agent_pb2 already imported from {loaded_from}, not {directory}")
    return Stubs(pb=pb, grpc=grpc_module, directory=directory)
