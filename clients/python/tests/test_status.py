"""The ErrorInfo reason of a google.rpc.Status, as a per-message error and as a stream's end."""

from __future__ import annotations

from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from healbench_client import reasons
from healbench_client.status import (
    STATUS_DETAILS_KEY,
    ErrorReason,
    ends_the_run,
    error_info,
    from_status,
    from_trailers,
    reason_of,
)


def packed(message: object) -> any_pb2.Any:
    detail = any_pb2.Any()
    detail.Pack(message)
    return detail


def status(code: int, message: str, *details: object) -> status_pb2.Status:
    return status_pb2.Status(code=code, message=message, details=[packed(d) for d in details])


def info(reason: str, domain: str = reasons.DOMAIN) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo(reason=reason, domain=domain, metadata={"heal_point": "2"})


def test_the_reason_is_read_from_the_error_info() -> None:
    heal_rejected = status(9, "the gate refused: dunder", info(reasons.HEAL_REJECTED))
    assert reason_of(heal_rejected) == "HEAL_REJECTED"
    assert from_status(heal_rejected) == ErrorReason("HEAL_REJECTED", "the gate refused: dunder", 9, False)


def test_other_details_before_the_error_info_are_skipped() -> None:
    detailed = status(3, "bad", error_details_pb2.BadRequest(), error_details_pb2.RetryInfo(),
                      info(reasons.ARGUMENT_INVALID))
    assert reason_of(detailed) == "ARGUMENT_INVALID"


def test_healbench_s_domain_wins_over_another_error_info() -> None:
    two = status(5, "x", info("SOMETHING_ELSE", domain="googleapis.com"), info(reasons.NOTHING_TO_CLAIM))
    assert reason_of(two) == "NOTHING_TO_CLAIM"
    assert error_info(two).metadata["heal_point"] == "2"


def test_a_status_without_error_info_has_an_unknown_reason() -> None:
    assert reason_of(status(13, "internal")) == reasons.UNKNOWN
    assert reason_of(status_pb2.Status()) == reasons.UNKNOWN


def test_a_stream_end_is_read_from_the_status_trailer() -> None:
    trailer = status(10, "claim lapsed after 60 s", info(reasons.CLAIM_LAPSED)).SerializeToString()
    found = from_trailers(10, "ignored when the trailer is there",
                          [("some-other", "x"), (STATUS_DETAILS_KEY, trailer)])
    assert found == ErrorReason("CLAIM_LAPSED", "claim lapsed after 60 s", 10, True)


def test_a_stream_end_without_a_trailer_keeps_code_and_message() -> None:
    assert from_trailers(14, "connection refused", ()) == ErrorReason(reasons.UNKNOWN, "connection refused", 14, True)
    assert from_trailers(14, "m", [(STATUS_DETAILS_KEY, b"\xff\xff not a status")]).reason == reasons.UNKNOWN


def test_only_credential_failures_end_the_run() -> None:
    assert ends_the_run(ErrorReason(reasons.TOKEN_INVALID, "", 16))
    assert ends_the_run(ErrorReason(reasons.ROLE_REQUIRED, "", 7))
    assert ends_the_run(ErrorReason(reasons.UNKNOWN, "from a proxy", 16))
    assert not ends_the_run(ErrorReason(reasons.CLAIM_LAPSED, "", 10))
    assert not ends_the_run(ErrorReason(reasons.UNKNOWN, "unavailable", 14))
