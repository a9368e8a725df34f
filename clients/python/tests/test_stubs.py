"""Stub generation: into the cache, once per proto content, never beside the proto."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from healbench_client import paths, stubs


@pytest.fixture
def proto_copy(tmp_path: Path) -> Path:
    root = tmp_path / "proto"
    target = root / paths.AGENT_PROTO
    target.parent.mkdir(parents=True)
    shutil.copy(paths.DEFAULT_PROTO_ROOT / paths.AGENT_PROTO, target)
    return root


def test_generates_messages_and_grpc_stubs_into_the_cache(proto_copy: Path, tmp_path: Path) -> None:
    out = stubs.generate(proto_copy, tmp_path / "cache")
    assert out.parent == tmp_path / "cache" / "gen"
    generated = sorted(p.name for p in (out / "healbench" / "agent" / "v1").iterdir())
    assert generated == ["agent_pb2.py", "agent_pb2.pyi", "agent_pb2_grpc.py"]
    assert "class AgentGatewayServiceStub" in (out / "healbench/agent/v1/agent_pb2_grpc.py").read_text()
    # Nothing is written next to the proto (the repository).
    assert sorted(str(p.relative_to(proto_copy)) for p in proto_copy.rglob("*")) == [
        "healbench", "healbench/agent", "healbench/agent/v1", "healbench/agent/v1/agent.proto"]


def test_an_unchanged_proto_reuses_the_directory_and_an_edited_one_gets_a_new_one(
        proto_copy: Path, tmp_path: Path) -> None:
    first = stubs.generate(proto_copy, tmp_path / "cache")
    marker = (first / ".complete").stat().st_mtime_ns
    assert stubs.generate(proto_copy, tmp_path / "cache") == first
    assert (first / ".complete").stat().st_mtime_ns == marker           # not generated again
    proto = proto_copy / paths.AGENT_PROTO
    proto.write_text(proto.read_text() + "\n// an edit\n")
    assert stubs.generate(proto_copy, tmp_path / "cache") != first


def test_a_missing_proto_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(stubs.StubError, match="HEALBENCH_PROTO_DIR"):
        stubs.generate(tmp_path / "nowhere", tmp_path / "cache")


def test_a_proto_that_does_not_compile_is_an_error(proto_copy: Path, tmp_path: Path) -> None:
    proto = proto_copy / paths.AGENT_PROTO
    proto.write_text(proto.read_text().replace("message Budget {", "message Budget { oops"))
    with pytest.raises(stubs.StubError, match="protoc failed"):
        stubs.generate(proto_copy, tmp_path / "cache")
    assert [p for p in (tmp_path / "cache" / "gen").iterdir()] == []      # no half-written directory left
