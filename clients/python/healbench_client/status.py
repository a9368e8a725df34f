"""Reading the reason out of a google.rpc.Status (a per-message error, or a stream's end status).

Depends on the googleapis-common-protos message classes only, not on the generated agent stubs,
so it can be tested on hand-built statuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from healbench_client import reasons

# gRPC carries the full google.rpc.Status of a non-OK end in this binary trailer (the "rich error
# model"); grpcio exposes only code and message, so the details are parsed from the trailer.
STATUS_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True)
class ErrorReason:
    """The client's view of one error: the ErrorInfo reason and the status's code and message."""

    reason: str
    message: str
    code: int = 0
    fatal: bool = False

    def __str__(self) -> str:
        return f"{self.reason}: {self.message}" if self.message else self.reason


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    """The status's ErrorInfo: the one in HealBench's domain when there are several, else the first."""
    found: list[error_details_pb2.ErrorInfo] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            found.append(info)
    for info in found:
        if info.domain == reasons.DOMAIN:
            return info
    return found[0] if found else None


def reason_of(status: status_pb2.Status) -> str:
    """The ErrorInfo reason, or UNKNOWN when the status carries none (a server bug or a proxy's
    status): callers must still be able to count and print it."""
    info = error_info(status)
    return info.reason if info is not None and info.reason else reasons.UNKNOWN


def from_status(status: status_pb2.Status, *, fatal: bool = False) -> ErrorReason:
    return ErrorReason(reason=reason_of(status), message=status.message, code=status.code, fatal=fatal)


def from_trailers(code: int, message: str,
                  trailing_metadata: Iterable[tuple[str, str | bytes]] | None) -> ErrorReason:
    """The reason of a stream that ended with a non-OK status, from its trailing metadata.

    `trailing_metadata` is grpcio's sequence of (key, value) pairs; the status trailer, when
    present, wins over code and message (it is what the server built)."""
    for key, value in trailing_metadata or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            try:
                status = status_pb2.Status.FromString(value)
            except DecodeError:          # a malformed trailer: fall back to code and message
                break
            return from_status(status, fatal=True)
    return ErrorReason(reason=reasons.UNKNOWN, message=message, code=code, fatal=True)


# gRPC codes (grpc.StatusCode values) that mean the credentials are refused even when the status
# carries no ErrorInfo (a proxy or an interceptor answered before HealBench's own code).
_UNAUTHENTICATED, _PERMISSION_DENIED = 16, 7


def ends_the_run(error: ErrorReason) -> bool:
    """Whether no later attempt can succeed either: the token is missing, wrong or lacks the role."""
    return error.reason in reasons.ENDS_THE_RUN or (
        error.reason == reasons.UNKNOWN and error.code in (_UNAUTHENTICATED, _PERMISSION_DENIED))
