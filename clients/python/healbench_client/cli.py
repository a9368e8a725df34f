"""`python -m healbench_client {grpc,mcp,gen-stubs} ...`.

Exit status: 0 when the run ended the expected way (nothing left to claim, or --max-attempts);
1 when a fatal error happened (a stream ended by the server mid-attempt, a claim refused, the
token, the transport); 2 for usage errors; 3 when the stubs cannot be generated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence

from healbench_client import stubs
from healbench_client.model import RunSummary
from healbench_client.output import Printer
from healbench_client.runner import Runner, RunOptions
from healbench_client.strategy import STRATEGIES

EXIT_OK, EXIT_FATAL, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 1, 2, 3
TOKEN_ENV = "HEALBENCH_TOKEN"


def _run_name(value: str) -> str:
    # `runs/RUN_ID` is the contract's form; a bare id is accepted for convenience.
    return value if value.startswith("runs/") else f"runs/{value}"


def _attempt_name(value: str) -> str:
    parts = value.split("/")
    if len(parts) != 4 or parts[0] != "runs" or parts[2] != "attempts" or not parts[1] or not parts[3]:
        raise argparse.ArgumentTypeError(f"{value!r} is not runs/RUN/attempts/ATTEMPT")
    return value


def _count(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return number


def _seconds(value: str) -> float:
    number = float(value)
    if not number >= 0:          # also refuses nan
        raise argparse.ArgumentTypeError(f"{value} is not a number of seconds >= 0")
    return number


def _common(parser: argparse.ArgumentParser, *, list_tools: bool = False) -> None:
    parser.add_argument("--token", default=os.environ.get(TOKEN_ENV),
                        help=f"bearer token (default: ${TOKEN_ENV}, which keeps it out of process listings)")
    parser.add_argument("--run", type=_run_name, required=False,
                        help="runs/RUN_ID: claim its queued attempts one after another (required unless "
                             + ("--attempt or --list-tools)" if list_tools else "--attempt)"))
    parser.add_argument("--attempt", type=_attempt_name,
                        help="runs/R/attempts/A: claim this attempt first (e.g. to take back a lapsed claim)")
    parser.add_argument("--agent", metavar="NAME",
                        help="the agent name to claim as (a run made for external:NAME is claimed only by NAME)")
    parser.add_argument("--max-attempts", type=_count, default=0, metavar="N",
                        help="stop after N attempts (0: no limit)")
    parser.add_argument("--wait-seconds", type=_seconds, default=0.0, metavar="S",
                        help="keep polling (every 1 s) for S seconds while the run has nothing to claim")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), default="simple")
    parser.add_argument("--json", action="store_true", help="print JSON lines, the last one the summary")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m healbench_client",
                                  description="HealBench's reference external agents (simple strategy).")
    commands = top.add_subparsers(dest="command", required=True)

    grpc_command = commands.add_parser("grpc", help="heal through the AgentGatewayService gRPC stream")
    grpc_command.add_argument("--endpoint", required=True, metavar="HOST:PORT")
    _common(grpc_command)

    mcp_command = commands.add_parser("mcp", help="heal through the MCP tools (streamable HTTP)")
    mcp_command.add_argument("--url", required=True, help="e.g. http://127.0.0.1:PORT/mcp")
    mcp_command.add_argument("--list-tools", action="store_true", help="print the server's tool names first")
    mcp_command.add_argument("--protocol", choices=["auto", "legacy"], default="auto",
                             help="MCP version negotiation: auto probes server/discover and falls back "
                                  "to the initialize handshake; legacy goes straight to initialize")
    _common(mcp_command, list_tools=True)

    gen = commands.add_parser("gen-stubs", help="generate the gRPC stubs into the cache; print their directory")
    gen.add_argument("--quiet", action="store_true")
    return top


def _exit_status(summary: RunSummary) -> int:
    return EXIT_FATAL if summary.fatal else EXIT_OK


def _options(args: argparse.Namespace) -> RunOptions:
    return RunOptions(run=args.run, attempt=args.attempt, agent=args.agent, max_attempts=args.max_attempts,
                      wait_seconds=args.wait_seconds)


async def _grpc(args: argparse.Namespace, printer: Printer) -> int:
    from healbench_client.grpc_gateway import GrpcGateway  # imports grpc and the generated stubs

    gateway = GrpcGateway(stubs.load(), args.endpoint, args.token)
    try:
        runner = Runner(gateway, STRATEGIES[args.strategy](), _options(args),
                        on_attempt=printer.attempt, on_error=printer.error)
        summary = await runner.run()
    finally:
        gateway.close()
    printer.summary(summary)
    return _exit_status(summary)


async def _mcp(args: argparse.Namespace, printer: Printer) -> int:
    from healbench_client import mcp_gateway  # imports the MCP SDK only when used

    try:
        async with mcp_gateway.connect(args.url, args.token, args.protocol) as gateway:
            names = await gateway.tool_names()
            if args.list_tools:
                print(json.dumps({"tools": names}) if args.json else "\n".join(names), flush=True)
            missing = [name for name in mcp_gateway.REQUIRED_TOOLS if name not in names]
            if missing:
                printer.error(f"{args.url} lacks the tools {', '.join(missing)} "
                              f"(it lists {', '.join(names) or 'none'})")
                return EXIT_FATAL
            if not args.run and not args.attempt:
                return EXIT_OK                               # --list-tools alone
            runner = Runner(gateway, STRATEGIES[args.strategy](), _options(args),
                            on_attempt=printer.attempt, on_error=printer.error)
            summary = await runner.run()
    except mcp_gateway.McpConnectError as error:
        printer.error(f"cannot open an MCP session with {args.url}: {error}")
        return EXIT_FATAL
    except Exception as error:
        # The session broke outside a tool call (listing the tools, closing): the runner handles
        # failures of the calls themselves.
        printer.error(f"the MCP session with {args.url} failed: {mcp_gateway.describe(error)}")
        return EXIT_FATAL
    printer.summary(summary)
    return _exit_status(summary)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "gen-stubs":
        try:
            directory = stubs.generate()
        except stubs.StubError as error:
            print(f"healbench-client: {error}", file=sys.stderr)
            return EXIT_ENVIRONMENT
        if not args.quiet:
            print(directory)
        return EXIT_OK
    printer = Printer(args.json)
    if args.command == "grpc" and not args.run and not args.attempt:
        printer.error("grpc: --run (or --attempt) is required")
        return EXIT_USAGE
    if args.command == "mcp" and not (args.run or args.attempt or args.list_tools):
        printer.error("mcp: --run (or --attempt, or --list-tools) is required")
        return EXIT_USAGE
    try:
        return asyncio.run(_grpc(args, printer) if args.command == "grpc" else _mcp(args, printer))
    except stubs.StubError as error:
        printer.error(str(error))
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        return 130
