"""Service tokens for the calls this package makes to guard-service: guard-service lets in only calls that carry one
(docs/sandbox-isolation.md, "The internal services"). The same compact HS256 JWT that the Java services make
(service-auth's ServiceTokens): issuer `healbench`, the caller, the gRPC service it is for as audience, two minutes of
life, signed with the deployment's shared key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
import uuid

KEY_ENV = "HEALBENCH_SERVICE_AUTH_KEY"
HEADER = "x-healbench-service-token"
LIFETIME_S = 120
_JWT_HEADER = {"alg": "HS256", "typ": "JWT"}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_key() -> str:
    """A fresh key for a guard-service this package starts itself (base64, as HEALBENCH_SERVICE_AUTH_KEY takes it)."""
    return base64.b64encode(os.urandom(32)).decode("ascii")


def environment_key() -> str:
    """The deployment's key from the environment, for a guard-service someone else runs; "" when unset."""
    return os.environ.get(KEY_ENV, "").strip()


def mint(key: str, caller: str, audience: str) -> str:
    secret = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4)) if ("-" in key or "_" in key) else base64.b64decode(key)
    now = int(time.time())
    claims = {"iss": "healbench", "sub": caller, "aud": audience, "iat": now, "exp": now + LIFETIME_S,
              "jti": str(uuid.uuid4())}
    # Compact separators: the header part must be byte-for-byte the one the Java side writes.
    body = _b64(json.dumps(_JWT_HEADER, separators=(",", ":")).encode()) + "." + _b64(
        json.dumps(claims, separators=(",", ":")).encode())
    return body + "." + _b64(hmac.new(secret, body.encode("ascii"), hashlib.sha256).digest())
