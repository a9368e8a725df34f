"""gh-113214: TLS inside TLS, where the inner handshake fails and tears the outer layer down.

The inner SSL protocol's transport is the outer layer's app transport; its fatal-error path
force-closes that transport, which must report the handshake error, not crash.
"""
import asyncio
import socket
import ssl

import pytest

# A throwaway self-signed certificate and key for "localhost", generated for this test only.
CERT_AND_KEY = """\
-----BEGIN CERTIFICATE-----
MIIBlTCCATugAwIBAgIURPFL5Jp+npW+cjVYREYKr1X3mcYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEzMDEwMDYzMVoYDzIxMjYxMTA2
MTAwNjMxWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQYqRAVvHn/L78PnG8MkcXlR8isKOq8vaPT9AtpOTlmjXnWoZtaRbNM
ylg07Fs7LtgJQ+EWnB1rY4RUPiWoYrExo2kwZzAdBgNVHQ4EFgQUydvY5IRPDxS4
1byQVXF5xuipcI8wHwYDVR0jBBgwFoAUydvY5IRPDxS41byQVXF5xuipcI8wDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
SAAwRQIhAJtStyen2lzT5O/62tG+oGPHQcezykvqIa9oRPHq7d21AiAt5z9VQe99
jetthM8mCKbs9WAcjwMMcznseoLE+O7zJg==
-----END CERTIFICATE-----
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgGijpNPexiJ6A1cgf
7SmrKtyeA+obOxtMcBJJxJGH1IGhRANCAAQYqRAVvHn/L78PnG8MkcXlR8isKOq8
vaPT9AtpOTlmjXnWoZtaRbNMylg07Fs7LtgJQ+EWnB1rY4RUPiWoYrEx
-----END PRIVATE KEY-----
"""


class _Idle(asyncio.Protocol):
    pass


def _client_context(verify):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    # With verify=True nothing is trusted, so the handshake fails on the certificate.
    return context


async def _inner_handshake_over_tls(server_context):
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda loop, context: None)  # the teardown logs are not under test
    client_sock, server_sock = socket.socketpair()
    server_transport, server_protocol = await loop.connect_accepted_socket(_Idle, server_sock)

    async def serve():
        outer = await loop.start_tls(server_transport, server_protocol, server_context, server_side=True)
        await loop.start_tls(outer, server_protocol, server_context, server_side=True)

    server = asyncio.ensure_future(serve())
    transport, protocol = await loop.create_connection(_Idle, sock=client_sock)
    try:
        outer = await loop.start_tls(transport, protocol, _client_context(verify=False))
        await asyncio.wait_for(
            loop.start_tls(outer, protocol, _client_context(verify=True), server_hostname="localhost"),
            timeout=30)
    finally:
        transport.abort()
        server_transport.abort()
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)


@pytest.fixture
def server_context(tmp_path):
    pem = tmp_path / "localhost.pem"
    pem.write_text(CERT_AND_KEY)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(pem))
    return context


def test_failed_inner_handshake_reports_the_certificate_error(server_context):
    with pytest.raises(ssl.SSLCertVerificationError):
        asyncio.run(_inner_handshake_over_tls(server_context))
