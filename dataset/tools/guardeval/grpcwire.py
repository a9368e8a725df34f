"""A minimal unary gRPC client (plaintext HTTP/2 with prior knowledge) and the protobuf encoding of
guard.proto's AnalyzeHeal messages, in the standard library (the suite installs nothing).

Enough of HTTP/2 for one call per connection: the preface and SETTINGS, request HEADERS written as
HPACK literals without indexing (no Huffman coding), DATA split by the peer's frame size and flow
control windows, PING and SETTINGS acknowledged, WINDOW_UPDATE for what we receive. The response
message is read from DATA; response headers are not decoded (HPACK with Huffman coding is not worth
implementing here), so a call that ends without a message is reported as a gRPC error without its
status.
"""

from __future__ import annotations

import socket
import struct
from typing import Any, Sequence

_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_DATA, _HEADERS, _RST_STREAM, _SETTINGS, _PING, _GOAWAY, _WINDOW_UPDATE = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8
_END_STREAM, _ACK, _END_HEADERS, _PADDED = 0x1, 0x1, 0x4, 0x8
_SETTINGS_INITIAL_WINDOW, _SETTINGS_MAX_FRAME = 0x4, 0x5
_RECEIVE_WINDOW = 1 << 24


class GrpcError(RuntimeError):
    pass


# ---------------------------------------------------------------- protobuf

def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32/int64 are ten-byte two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(schema: dict[str, tuple[int, Any]], message: dict[str, Any]) -> bytes:
    """`schema`: field name -> (number, kind); kind is "string", "int", "bool", a nested schema, or
    a one-element list of either (repeated). Unset, empty, zero and false fields are omitted (proto3)."""
    out = bytearray()
    for name, (number, kind) in schema.items():
        value = message.get(name)
        values = value if isinstance(kind, list) else [value]
        item_kind = kind[0] if isinstance(kind, list) else kind
        for item in values or []:
            if item is None or item == "" or item is False or (item == 0 and item_kind == "int"):
                continue
            if item_kind == "int" or item_kind == "bool":
                out += _varint(number << 3) + _varint(int(item))
            else:
                payload = str(item).encode("utf-8") if item_kind == "string" else encode(item_kind, item)
                out += _varint(number << 3 | 2) + _varint(len(payload)) + payload
    return bytes(out)


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, position


def decode(schema: dict[str, tuple[int, Any]], data: bytes) -> dict[str, Any]:
    """The inverse of encode for the fields the schema names; unknown fields are skipped."""
    by_number = {number: (name, kind) for name, (number, kind) in schema.items()}
    out: dict[str, Any] = {name: [] for name, (_, kind) in schema.items() if isinstance(kind, list)}
    position = 0
    while position < len(data):
        key, position = _read_varint(data, position)
        number, wire = key >> 3, key & 7
        if wire == 0:
            raw: Any
            raw, position = _read_varint(data, position)
        elif wire == 2:
            length, position = _read_varint(data, position)
            raw, position = data[position:position + length], position + length
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            raw, position = data[position:position + size], position + size
        else:
            raise GrpcError(f"unsupported protobuf wire type {wire}")
        if number not in by_number:
            continue
        name, kind = by_number[number]
        item_kind = kind[0] if isinstance(kind, list) else kind
        if item_kind == "string":
            value = bytes(raw).decode("utf-8")
        elif item_kind == "int":
            value = raw - (1 << 64) if raw >= 1 << 63 else raw
        elif item_kind == "bool":
            value = bool(raw)
        else:
            value = decode(item_kind, bytes(raw))
        if isinstance(kind, list):
            out[name].append(value)
        else:
            out[name] = value
    return out


# ---------------------------------------------------------------- HTTP/2

def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def _hpack_int(value: int, prefix_bits: int, first: int = 0) -> bytes:
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def _hpack_literal(name: str, value: str) -> bytes:
    """A literal header field without indexing, new name, no Huffman coding (RFC 7541 §6.2.2)."""
    encoded_name, encoded_value = name.encode(), value.encode()
    return (b"\x00" + _hpack_int(len(encoded_name), 7) + encoded_name
            + _hpack_int(len(encoded_value), 7) + encoded_value)


class _Connection:
    def __init__(self, host: str, port: int, timeout: float) -> None:
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._buffer = b""
        self.max_frame = 16384
        self.connection_window = 65535
        self.stream_window = 65535
        self._initial_window = 65535

    def close(self) -> None:
        self._sock.close()

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def _read_exact(self, size: int) -> bytes:
        while len(self._buffer) < size:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise GrpcError("the server closed the connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def read_frame(self) -> tuple[int, int, int, bytes]:
        header = self._read_exact(9)
        length = int.from_bytes(header[:3], "big")
        kind, flags, stream = header[3], header[4], int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
        payload = self._read_exact(length)
        if kind == _SETTINGS and not flags & _ACK:
            for offset in range(0, len(payload) - 5, 6):
                identifier, value = struct.unpack(">HI", payload[offset:offset + 6])
                if identifier == _SETTINGS_MAX_FRAME:
                    self.max_frame = value
                elif identifier == _SETTINGS_INITIAL_WINDOW:
                    self.stream_window += value - self._initial_window
                    self._initial_window = value
            self.send(_frame(_SETTINGS, _ACK, 0))
        elif kind == _PING and not flags & _ACK:
            self.send(_frame(_PING, _ACK, 0, payload))
        elif kind == _WINDOW_UPDATE:
            increment = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            if stream == 0:
                self.connection_window += increment
            else:
                self.stream_window += increment
        elif kind == _GOAWAY:
            raise GrpcError(f"the server sent GOAWAY: {payload[8:].decode('utf-8', 'replace')}")
        return kind, flags, stream, payload


def unary_call(address: str, path: str, request: bytes, timeout: float,
               metadata: Sequence[tuple[str, str]] = ()) -> bytes:
    """Calls `path` (e.g. /healbench.guard.v1.GuardService/AnalyzeHeal) at host:port with the given request headers
    (lower-case ASCII names, such as the service token's); returns the response message's bytes, or raises GrpcError."""
    host, _, port = address.rpartition(":")
    try:
        connection = _Connection(host, int(port), timeout)
    except (OSError, ValueError) as error:
        raise GrpcError(f"cannot connect to {address}: {error}") from None
    try:
        # Our receive window is made large at once, so the response never waits for an update.
        connection.send(_PREFACE + _frame(_SETTINGS, 0, 0, struct.pack(">HI", _SETTINGS_INITIAL_WINDOW, _RECEIVE_WINDOW))
                        + _frame(_WINDOW_UPDATE, 0, 0, struct.pack(">I", _RECEIVE_WINDOW - 65535)))
        # The server's own SETTINGS come first on its side: wait for them, so that DATA respects its
        # windows and frame size from the first byte.
        while connection.read_frame()[:2] != (_SETTINGS, 0):
            pass
        headers = b"".join(_hpack_literal(name, value) for name, value in (
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", address),
            ("content-type", "application/grpc"), ("te", "trailers"), *metadata))
        connection.send(_frame(_HEADERS, _END_HEADERS, 1, headers))
        body = b"\x00" + struct.pack(">I", len(request)) + request
        _send_body(connection, body)
        return _read_response(connection)
    except (OSError, struct.error) as error:
        raise GrpcError(f"{type(error).__name__}: {error}") from None
    finally:
        connection.close()


def _send_body(connection: _Connection, body: bytes) -> None:
    offset = 0
    while offset < len(body):
        room = min(connection.max_frame, connection.connection_window, connection.stream_window, len(body) - offset)
        if room <= 0:
            kind, _, stream, payload = connection.read_frame()  # wait for WINDOW_UPDATE
            if kind == _RST_STREAM and stream == 1:
                raise GrpcError(f"the server reset the stream (code {int.from_bytes(payload[:4], 'big')})")
            continue
        chunk = body[offset:offset + room]
        offset += room
        connection.connection_window -= room
        connection.stream_window -= room
        connection.send(_frame(_DATA, _END_STREAM if offset == len(body) else 0, 1, chunk))


def _read_response(connection: _Connection) -> bytes:
    data = b""
    while True:
        kind, flags, stream, payload = connection.read_frame()
        if stream != 1:
            continue
        if kind == _RST_STREAM:
            raise GrpcError(f"the server reset the stream (code {int.from_bytes(payload[:4], 'big')})")
        if kind == _DATA:
            data += payload[1:len(payload) - payload[0]] if flags & _PADDED else payload
        if kind in (_DATA, _HEADERS) and flags & _END_STREAM:
            break
    if len(data) < 5:
        raise GrpcError("the call ended without a response message (a gRPC error status)")
    length = int.from_bytes(data[1:5], "big")
    return data[5:5 + length]
