"""Reading HealBench's MCP tool results (the structuredContent contract) into the model.

Every HealBench tool result has a text item and a `structuredContent` object. Success:
  claim:          {"attempt", "instance_id", "repeat", "lease_seconds", "state", "heal_point",
                   "exception_type", "proceeded"}
  heal / reraise: {"state", "heal_point", "exception_type", "proceeded", "changed" (heal only)}
Error (`isError: true`): {"reason", "message", "fatal"}.

The parsers take the SDK's `CallToolResult` or the same thing as a plain dict (camelCase, as on the
wire), so they are tested without a server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from healbench_client import reasons
from healbench_client.model import Claimed, Crash, Failure, FatalError, Finished, Healed, Step
from healbench_client.status import ErrorReason


@dataclass(frozen=True)
class ToolResult:
    """The parts of a CallToolResult the clients read."""

    is_error: bool
    structured: Mapping[str, Any] | None
    text: str


def tool_result(result: Any) -> ToolResult:
    """From an SDK CallToolResult (`is_error`, `structured_content`, `content`) or a wire dict."""
    if isinstance(result, Mapping):
        is_error = bool(result.get("isError", result.get("is_error", False)))
        structured = result.get("structuredContent", result.get("structured_content"))
        content = result.get("content") or []
        texts = [item.get("text", "") for item in content if isinstance(item, Mapping) and item.get("type") == "text"]
    else:
        is_error = bool(getattr(result, "is_error", False))
        structured = getattr(result, "structured_content", None)
        texts = [getattr(item, "text", "") for item in getattr(result, "content", None) or []
                 if getattr(item, "type", None) == "text"]
    text = "\n".join(texts)
    if structured is None and text.lstrip().startswith("{"):
        # Servers on protocol versions without structuredContent put the same object in the text
        # item; reading it keeps such a server usable rather than every result an error.
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        structured = parsed if isinstance(parsed, Mapping) else None
    return ToolResult(is_error=is_error, structured=structured if isinstance(structured, Mapping) else None,
                      text=text)


def error_of(result: ToolResult) -> ErrorReason:
    """The error of an `isError` result. A result without the structured error still counts as an
    error (reason UNKNOWN, the text as message) rather than being mistaken for a success."""
    data = result.structured or {}
    reason = data.get("reason")
    return ErrorReason(reason=str(reason) if reason else reasons.UNKNOWN,
                       message=str(data.get("message") or result.text),
                       fatal=bool(data.get("fatal", False)))


def failure_or_raise(result: ToolResult) -> Failure:
    """An error result as a per-message Failure; a fatal one (`fatal: true`) raises FatalError."""
    error = error_of(result)
    if error.fatal:
        raise FatalError(error)
    return Failure(error)


def _require(data: Mapping[str, Any] | None, tool: str) -> Mapping[str, Any]:
    if data is None:
        raise FatalError(ErrorReason(reasons.UNKNOWN, f"{tool}: the result has no structuredContent", fatal=True))
    return data


def step_of(data: Mapping[str, Any], tool: str) -> Step:
    """`state` crashed → Crash(heal_point, exception_type); finished → Finished(proceeded)."""
    state = data.get("state")
    if state == "crashed":
        return Crash(heal_point=int(data.get("heal_point") or 0), exception_type=str(data.get("exception_type") or ""))
    if state == "finished":
        return Finished(proceeded=bool(data.get("proceeded", False)))
    raise FatalError(ErrorReason(reasons.UNKNOWN, f"{tool}: unknown state {state!r}", fatal=True))


def parse_claim(result: Any) -> Claimed | Failure:
    parsed = tool_result(result)
    if parsed.is_error:
        return failure_or_raise(parsed)
    data = _require(parsed.structured, "claim")
    attempt = data.get("attempt")
    if not attempt:
        raise FatalError(ErrorReason(reasons.UNKNOWN, "claim: the result names no attempt", fatal=True))
    return Claimed(attempt=str(attempt), instance_id=str(data.get("instance_id") or ""),
                   step=step_of(data, "claim"), repeat=int(data.get("repeat") or 0),
                   lease_seconds=int(data.get("lease_seconds") or 0))


def parse_heal(result: Any) -> Healed | Failure:
    parsed = tool_result(result)
    if parsed.is_error:
        return failure_or_raise(parsed)
    data = _require(parsed.structured, "heal")
    return Healed(step=step_of(data, "heal"), changed=tuple(str(c) for c in data.get("changed") or ()))


def parse_reraise(result: Any) -> Step | Failure:
    parsed = tool_result(result)
    if parsed.is_error:
        return failure_or_raise(parsed)
    return step_of(_require(parsed.structured, "reraise"), "reraise")


def parse_plain(result: Any) -> Failure | None:
    """Tools whose success the client does not read (report_usage): only the error matters."""
    parsed = tool_result(result)
    return failure_or_raise(parsed) if parsed.is_error else None
