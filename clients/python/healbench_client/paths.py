"""Where the clients keep what they generate, and where they find the proto they generate it from."""

from __future__ import annotations

import os
from pathlib import Path

# The package lives at <repo>/clients/python/healbench_client: the repository's proto tree is three
# levels up. An override exists for installs outside a checkout (and for tests).
_REPO = Path(__file__).resolve().parents[3]
DEFAULT_PROTO_ROOT = _REPO / "proto" / "src" / "main" / "proto"
AGENT_PROTO = Path("healbench") / "agent" / "v1" / "agent.proto"


def cache_dir() -> Path:
    """`$HEALBENCH_CLIENT_CACHE`, else `~/.cache/healbench/clients`; shared with env.sh, which keeps
    the venv there. Generated code goes here and never into the repository."""
    configured = os.environ.get("HEALBENCH_CLIENT_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "healbench" / "clients"


def proto_root() -> Path:
    """The directory the proto imports are relative to (`healbench/agent/v1/agent.proto` below it)."""
    configured = os.environ.get("HEALBENCH_PROTO_DIR")
    return Path(configured).expanduser() if configured else DEFAULT_PROTO_ROOT
