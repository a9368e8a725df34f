"""HealBench's reference external-agent clients.

External agents heal crashed Python programs that HealBench pauses at their crash. This package
talks to HealBench's two agent endpoints with one deliberately dumb strategy
(`healbench_client.strategy`), so that the endpoints can be exercised end to end without a model:

- `grpc`: the `healbench.agent.v1.AgentGatewayService` bidirectional stream (`grpc_session`,
  `grpc_gateway`); message classes are generated from the repository's proto at run time
  (`stubs`), never committed.
- `mcp`: the MCP tools over streamable HTTP with the official MCP Python SDK (`mcp_gateway`).

Both drive the same loop (`runner`) through a small transport-neutral interface (`gateway`).
"""

__version__ = "0.1.0"
