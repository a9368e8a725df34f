"""The error reasons of the agent contract (agent.proto's header; the MCP tools use the same names).

Clients branch on the reason, never on a message text or a gRPC code alone: several reasons share
a code (FAILED_PRECONDITION is NOT_CLAIMED, ALREADY_CLAIMED, TOOL_REFUSED and HEAL_REJECTED).
"""

from __future__ import annotations

DOMAIN = "agent.healbench.io"

# Per-message errors: the response carries them and the stream (or MCP session) goes on.
ARGUMENT_INVALID = "ARGUMENT_INVALID"
NOT_CLAIMED = "NOT_CLAIMED"
ALREADY_CLAIMED = "ALREADY_CLAIMED"
TOOL_REFUSED = "TOOL_REFUSED"
HEAL_REJECTED = "HEAL_REJECTED"
PROBE_BUDGET = "PROBE_BUDGET"
NOTHING_TO_CLAIM = "NOTHING_TO_CLAIM"
ATTEMPT_NOT_FOUND = "ATTEMPT_NOT_FOUND"

# Fatal: they end the stream (MCP: `fatal: true`).
TOKEN_REQUIRED = "TOKEN_REQUIRED"
TOKEN_INVALID = "TOKEN_INVALID"
ROLE_REQUIRED = "ROLE_REQUIRED"
CLAIM_LAPSED = "CLAIM_LAPSED"
ATTEMPT_FINISHED = "ATTEMPT_FINISHED"
BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
SANDBOX_UNAVAILABLE = "SANDBOX_UNAVAILABLE"

# Fatal conditions no later attempt can escape: the credentials are wrong for every claim, so the
# client stops instead of claiming attempt after attempt only to be refused.
ENDS_THE_RUN = frozenset({TOKEN_REQUIRED, TOKEN_INVALID, ROLE_REQUIRED, "HTTP_401", "HTTP_403"})

# Used by the clients when the server gave no reason (a transport failure, a status without an
# ErrorInfo, an HTTP refusal before any MCP message): never sent by HealBench.
UNKNOWN = "UNKNOWN"
TRANSPORT = "TRANSPORT"
HTTP_401 = "HTTP_401"
HTTP_403 = "HTTP_403"
