"""Stub generation: every proto in one call, into the cache, once per content, never beside the protos."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from healbench_client import paths, stubs


@pytest.fixture
def proto_copy(tmp_path: Path) -> Path:
    """The repository's whole proto tree: agent.proto imports another of its protos."""
    root = tmp_path / "proto"
    shutil.copytree(paths.DEFAULT_PROTO_ROOT / "healbench", root / "healbench")
    return root


def test_generates_every_proto_s_messages_and_grpc_stubs_into_the_cache(proto_copy: Path, tmp_path: Path) -> None:
    before = sorted(proto_copy.rglob("*"))
    out = stubs.generate(proto_copy, tmp_path / "cache")
    assert out.parent == tmp_path / "cache" / "gen"
    generated = sorted(p.name for p in (out / "healbench" / "agent" / "v1").iterdir())
    assert {"agent_pb2.py", "agent_pb2.pyi", "agent_pb2_grpc.py"} <= set(generated)
    assert "class AgentGatewayServiceStub" in (out / "healbench/agent/v1/agent_pb2_grpc.py").read_text()
    # One call, one directory: bench.proto's import of decision.proto resolves beside it.
    for module in ("guard/v1/guard_pb2_grpc.py", "guard/v1/decision_pb2.py", "bench/v1/bench_pb2.py"):
        assert (out / "healbench" / module).is_file(), module
    # Nothing is written next to the protos (the repository).
    assert sorted(proto_copy.rglob("*")) == before


def test_unchanged_protos_reuse_the_directory_and_an_edit_to_any_of_them_gets_a_new_one(
        proto_copy: Path, tmp_path: Path) -> None:
    first = stubs.generate(proto_copy, tmp_path / "cache")
    marker = (first / ".complete").stat().st_mtime_ns
    assert stubs.generate(proto_copy, tmp_path / "cache") == first
    assert (first / ".complete").stat().st_mtime_ns == marker           # not generated again
    proto = proto_copy / paths.AGENT_PROTO
    proto.write_text(proto.read_text() + "\n// an edit\n")
    second = stubs.generate(proto_copy, tmp_path / "cache")
    assert second != first
    guard = proto_copy / "healbench" / "guard" / "v1" / "guard.proto"      # one agent.proto does not import
    guard.write_text(guard.read_text() + "\n// an edit\n")
    assert stubs.generate(proto_copy, tmp_path / "cache") not in (first, second)


def test_load_imports_the_named_proto_s_modules() -> None:
    # The default proto root and cache, as test_grpc_client's stubs: one process imports one copy.
    guard = stubs.load(proto=Path("healbench") / "guard" / "v1" / "guard.proto")
    assert guard.pb.AnalyzeHealRequest.DESCRIPTOR.full_name == "healbench.guard.v1.AnalyzeHealRequest"
    assert hasattr(guard.grpc, "GuardServiceStub") and hasattr(guard.grpc, "GuardServiceServicer")
    assert guard.directory == stubs.load().directory


def test_loading_a_proto_that_is_not_there_is_an_error() -> None:
    with pytest.raises(stubs.StubError, match="not among the protos"):
        stubs.load(proto=Path("healbench") / "nothing" / "v1" / "nothing.proto")


def test_a_missing_proto_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(stubs.StubError, match="HEALBENCH_PROTO_DIR"):
        stubs.generate(tmp_path / "nowhere", tmp_path / "cache")


def test_a_proto_that_does_not_compile_is_an_error(proto_copy: Path, tmp_path: Path) -> None:
    proto = proto_copy / paths.AGENT_PROTO
    proto.write_text(proto.read_text().replace("message Budget {", "message Budget { oops"))
    with pytest.raises(stubs.StubError, match="protoc failed"):
        stubs.generate(proto_copy, tmp_path / "cache")
    assert [p for p in (tmp_path / "cache" / "gen").iterdir()] == []      # no half-written directory left
