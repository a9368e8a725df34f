"""GatewaySession: one `AgentGatewayService.Connect` stream as request/response calls.

The stream is bidirectional, but the contract answers every request with exactly one response, in
order; `call(request)` sends one request and waits for its response. It sends whatever it is given
(no validation), so tests can send deliberately bad requests: no action, a second claim, an empty
or repeated request_id, a heal before the claim.

grpcio's streaming call takes an iterator of requests and yields responses; a queue feeds the
iterator and a reader thread drains the responses into another queue, so that `call` can wait
with a timeout and a stream end is seen as soon as it happens.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Iterator
from typing import Any

import grpc

from healbench_client import reasons
from healbench_client.status import ErrorReason, from_trailers
from healbench_client.stubs import Stubs

_CLOSE = object()   # the request iterator's end: half-closes the stream


class StreamClosed(Exception):
    """The stream ended. `error` is its status's reason (None when it ended OK)."""

    def __init__(self, error: ErrorReason | None) -> None:
        super().__init__(str(error) if error else "the stream ended without an error")
        self.error = error

    @property
    def reason(self) -> str | None:
        return self.error.reason if self.error else None


class ResponseMismatch(Exception):
    """The response does not echo the request's id: the one-response-per-request order broke."""

    def __init__(self, request_id: str, response: Any) -> None:
        super().__init__(f"sent request_id {request_id!r}, got a response for {response.request_id!r}")
        self.response = response


class _Ended:
    def __init__(self, error: ErrorReason | None) -> None:
        self.error = error


def bearer_metadata(token: str | None) -> list[tuple[str, str]]:
    """`authorization: Bearer TOKEN` (gRPC metadata keys are lower case); none without a token, so
    that tests can check TOKEN_REQUIRED."""
    return [("authorization", f"Bearer {token}")] if token else []


def open_channel(endpoint: str) -> grpc.Channel:
    """A plaintext channel: HealBench's gateway serves plain HTTP/2 on a local or cluster address."""
    return grpc.insecure_channel(endpoint)


class GatewaySession:
    """One Connect stream. Use as a context manager, or call `close()`."""

    def __init__(self, stubs: Stubs, channel: grpc.Channel, token: str | None, *,
                 metadata: list[tuple[str, str]] | None = None, id_prefix: str = "r") -> None:
        self.pb = stubs.pb
        self._requests: queue.Queue[Any] = queue.Queue()
        self._responses: queue.Queue[Any] = queue.Queue()
        self._ids = (f"{id_prefix}{n}" for n in itertools.count(1))
        self._ended: _Ended | None = None
        self._lock = threading.Lock()     # one call at a time keeps request and response paired
        stub = stubs.grpc.AgentGatewayServiceStub(channel)
        self._call = stub.Connect(self._request_iterator(),
                                  metadata=bearer_metadata(token) + list(metadata or []))
        self._reader = threading.Thread(target=self._read, name="healbench-gateway-reader", daemon=True)
        self._reader.start()

    # -- the stream's two ends ---------------------------------------------------------------------

    def _request_iterator(self) -> Iterator[Any]:
        while True:
            item = self._requests.get()
            if item is _CLOSE:
                return
            yield item

    def _read(self) -> None:
        try:
            for response in self._call:
                self._responses.put(response)
            self._responses.put(_Ended(None))
        except grpc.RpcError as error:
            self._responses.put(_Ended(_rpc_error_reason(error)))

    # -- requests -----------------------------------------------------------------------------------

    def request(self, action: str | None = None, *, request_id: str | None = None, **fields: Any) -> Any:
        """A ConnectRequest with the oneof `action` (`claim`, `heal`, ...) built from `fields`;
        e.g. `request("heal", code="pass", resume=pb.RESUME_SKIP)`. A fresh id unless given."""
        built = self.pb.ConnectRequest(request_id=next(self._ids) if request_id is None else request_id)
        if action is not None:
            getattr(built, action).SetInParent()     # an empty message (get_crash) still selects the oneof
            getattr(built, action).MergeFrom(type(getattr(built, action))(**fields))
        return built

    def send(self, request: Any) -> None:
        """Sends without waiting (pair with `receive`); `call` is the usual way."""
        if self._ended is not None:
            raise StreamClosed(self._ended.error)
        self._requests.put(request)

    def receive(self, timeout: float | None = None) -> Any:
        """The next response; raises StreamClosed when the stream has ended, TimeoutError when none
        came within `timeout` seconds (None waits for ever: a claim waits for the first crash)."""
        if self._ended is not None:
            raise StreamClosed(self._ended.error)
        try:
            item = self._responses.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no response within {timeout} s") from None
        if isinstance(item, _Ended):
            self._ended = item
            raise StreamClosed(item.error)
        return item

    def call(self, request: Any, timeout: float | None = None) -> Any:
        """Sends one request and returns its response (which may carry `error`). Raises StreamClosed
        when the stream ends instead, ResponseMismatch when the response echoes another id."""
        with self._lock:
            self.send(request)
            response = self.receive(timeout)
        if response.request_id != request.request_id:
            raise ResponseMismatch(request.request_id, response)
        return response

    def action(self, action: str, timeout: float | None = None, **fields: Any) -> Any:
        """`call(request(action, **fields))`."""
        return self.call(self.request(action, **fields), timeout)

    # -- the end ------------------------------------------------------------------------------------

    @property
    def ended(self) -> StreamClosed | None:
        """How the stream ended, once a receive has seen it end."""
        return StreamClosed(self._ended.error) if self._ended is not None else None

    def close(self, grace_seconds: float = 2.0) -> None:
        """Half-closes (the server sees the end of the requests and may finish cleanly), then
        cancels the call if it has not ended within `grace_seconds`."""
        self._requests.put(_CLOSE)
        self._reader.join(grace_seconds)
        if self._reader.is_alive():
            self._call.cancel()
            self._reader.join(grace_seconds)

    def __enter__(self) -> GatewaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rpc_error_reason(error: grpc.RpcError) -> ErrorReason:
    """The reason of a stream's end status, from the status trailer when the server sent one.

    Without an ErrorInfo (nothing listening, a cancellation, a proxy's answer) the reason is
    UNKNOWN and the message names the gRPC code, which is all there is to say."""
    code = error.code() if hasattr(error, "code") else None
    message = (error.details() if hasattr(error, "details") else None) or ""
    trailers = error.trailing_metadata() if hasattr(error, "trailing_metadata") else ()
    found = from_trailers(code.value[0] if code else 2, message, trailers)
    if found.reason == reasons.UNKNOWN and code is not None:
        return ErrorReason(reason=found.reason, message=f"{code.name}: {message}", code=code.value[0],
                           fatal=True)
    return found
