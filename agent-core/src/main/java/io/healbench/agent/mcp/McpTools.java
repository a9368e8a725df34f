package io.healbench.agent.mcp;

import io.healbench.agent.service.external.ExternalAttempts;
import io.healbench.agent.service.external.ExternalBudget;
import io.healbench.agent.service.external.ExternalCaller;
import io.healbench.agent.service.external.ExternalClaim;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.agent.service.external.ExternalReply;
import io.healbench.agent.service.external.SelfReportedUsage;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The MCP tools' handlers, as thin as the gRPC adapter: each takes the caller the HTTP layer authenticated for its
 * request (from the {@link McpTransportContext}), hands the arguments to the domain ({@link ExternalAttempts}), and
 * maps its answer or {@link ExternalFailure} with {@link McpResults}. The action tools' arguments go through as the
 * JSON gave them (without {@code attempt}); {@code ActionCatalog.check} checks them, as for every agent.
 */
final class McpTools {

    /** The key of the authenticated {@link ExternalCaller} in a request's {@link McpTransportContext}. */
    static final String CALLER = "healbench.caller";
    static final String SERVER_NAME = "healbench";
    static final String SERVER_VERSION = "1";

    private static final Logger LOG = Logger.getLogger(McpTools.class);
    private static final Set<String> CLAIM_ARGUMENTS = Set.of("run", McpToolSchemas.ATTEMPT, "agent");
    private static final Set<String> USAGE_ARGUMENTS = Set.of(McpToolSchemas.ATTEMPT, "llm_calls", "input_tokens",
            "output_tokens", "cost_usd", "model");

    /** What the tools need of the domain: {@link ExternalAttempts} in the service, a fake in tests. */
    interface Domain {

        ExternalClaim claim(ExternalCaller caller, String target, String agentName);

        ExternalReply act(ExternalCaller caller, String attemptName, Map<String, Object> arguments, String tool);

        ExternalBudget reportUsage(ExternalCaller caller, String attemptName, SelfReportedUsage usage);

        /** The domain itself. No stream keeps an MCP claim alive: each tool call on the attempt renews it. */
        static Domain of(ExternalAttempts attempts) {
            return new Domain() {
                @Override
                public ExternalClaim claim(ExternalCaller caller, String target, String agentName) {
                    return attempts.claim(caller, target, agentName, false);
                }

                @Override
                public ExternalReply act(ExternalCaller caller, String attemptName, Map<String, Object> arguments,
                        String tool) {
                    return attempts.act(caller, attemptName, arguments, tool);
                }

                @Override
                public ExternalBudget reportUsage(ExternalCaller caller, String attemptName, SelfReportedUsage usage) {
                    return attempts.reportUsage(caller, attemptName, usage);
                }
            };
        }
    }

    private McpTools() {
    }

    /**
     * The MCP server of the external API on {@code transport}: server info {@code healbench} 1, the tools of
     * {@link McpToolSchemas}. Tool calls run on the thread that hands the request to the server (the transport's
     * blocking worker), and the SDK leaves argument checking to the domain.
     */
    static McpStatelessSyncServer server(McpStatelessServerTransport transport, McpJsonMapper json,
            JsonSchemaValidator validator, Domain domain) {
        return McpServer.sync(transport)
                .serverInfo(SERVER_NAME, SERVER_VERSION)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .jsonMapper(json)
                .jsonSchemaValidator(validator)
                .validateToolInputs(false)
                .immediateExecution(true)
                .tools(specifications(domain))
                .build();
    }

    static List<McpStatelessServerFeatures.SyncToolSpecification> specifications(Domain domain) {
        List<McpStatelessServerFeatures.SyncToolSpecification> specs = new ArrayList<>();
        for (McpSchema.Tool tool : McpToolSchemas.tools()) {
            specs.add(McpStatelessServerFeatures.SyncToolSpecification.builder()
                    .tool(tool)
                    .callHandler((context, request) -> call(domain, tool.name(), context, request))
                    .build());
        }
        return specs;
    }

    static McpSchema.CallToolResult call(Domain domain, String tool, McpTransportContext context,
            McpSchema.CallToolRequest request) {
        Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
        try {
            ExternalCaller caller = caller(context);
            return switch (tool) {
                case McpToolSchemas.CLAIM -> McpResults.claim(
                        domain.claim(caller, claimTarget(arguments), text(arguments, "agent", "")));
                case McpToolSchemas.REPORT_USAGE -> McpResults.usageReported(
                        domain.reportUsage(caller, attempt(arguments), usage(arguments)));
                default -> McpResults.reply(
                        domain.act(caller, attempt(arguments), actionArguments(arguments), tool));
            };
        } catch (ExternalFailure failure) {
            return McpResults.failure(failure);
        } catch (RuntimeException bug) {
            LOG.errorf(bug, "the MCP gateway failed a %s call", tool);
            return McpResults.failure(ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE",
                    "the gateway failed: " + bug.getClass().getSimpleName()));
        }
    }

    private static ExternalCaller caller(McpTransportContext context) {
        Object caller = context == null ? null : context.get(CALLER);
        if (caller instanceof ExternalCaller known) {
            return known;
        }
        // The HTTP layer authenticates every request before the MCP server sees it; this is a wiring bug.
        throw ExternalFailure.fatal(ExternalFailure.Kind.UNAUTHENTICATED, "TOKEN_REQUIRED", "the request was not authenticated");
    }

    /** {@code claim}'s target: exactly one of {@code run} ({@code runs/R}) or {@code attempt}. */
    static String claimTarget(Map<String, Object> arguments) {
        unknown(McpToolSchemas.CLAIM, arguments, CLAIM_ARGUMENTS);
        String run = text(arguments, "run", null);
        String attempt = text(arguments, McpToolSchemas.ATTEMPT, null);
        if ((run == null) == (attempt == null)) {
            throw badArgument("claim takes exactly one of run (runs/{run}) or attempt (runs/{run}/attempts/{attempt})");
        }
        return run != null ? run : attempt;
    }

    /** The attempt a tool acts on; null when not given (the domain answers that it is required). */
    static String attempt(Map<String, Object> arguments) {
        return text(arguments, McpToolSchemas.ATTEMPT, null);
    }

    /** An action's arguments as the JSON gave them, in its order, without {@code attempt}. */
    static Map<String, Object> actionArguments(Map<String, Object> arguments) {
        Map<String, Object> out = new LinkedHashMap<>(arguments);
        out.remove(McpToolSchemas.ATTEMPT);
        return out;
    }

    /** {@code report_usage}'s counts; a count not given is zero. */
    static SelfReportedUsage usage(Map<String, Object> arguments) {
        unknown(McpToolSchemas.REPORT_USAGE, arguments, USAGE_ARGUMENTS);
        long calls = whole(arguments, "llm_calls");
        if (calls > Integer.MAX_VALUE) {
            throw badArgument("report_usage: llm_calls is too large");
        }
        Object cost = arguments.get("cost_usd");
        if (cost != null && !(cost instanceof Number)) {
            throw badArgument("report_usage: argument 'cost_usd' must be number, got " + cost);
        }
        return new SelfReportedUsage((int) calls, whole(arguments, "input_tokens"), whole(arguments, "output_tokens"),
                cost == null ? 0.0 : ((Number) cost).doubleValue(), text(arguments, "model", ""));
    }

    private static long whole(Map<String, Object> arguments, String name) {
        Object value = arguments.get(name);
        if (value == null) {
            return 0;
        }
        if (value instanceof Number n) {
            double d = n.doubleValue();
            if (d == Math.rint(d) && Math.abs(d) < 9.0e15) {
                return n.longValue();
            }
        }
        throw badArgument("report_usage: argument '" + name + "' must be integer, got " + value);
    }

    private static String text(Map<String, Object> arguments, String name, String absent) {
        Object value = arguments.get(name);
        if (value == null) {
            return absent;
        }
        if (value instanceof String text) {
            return text;
        }
        throw badArgument("argument '" + name + "' must be string, got " + value);
    }

    private static void unknown(String tool, Map<String, Object> arguments, Set<String> known) {
        for (String name : arguments.keySet()) {
            if (!known.contains(name)) {
                throw badArgument(tool + ": unknown argument '" + name + "' (it takes: "
                        + String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
    }

    private static ExternalFailure badArgument(String message) {
        return ExternalFailure.recoverable(ExternalFailure.Kind.INVALID_ARGUMENT, "ARGUMENT_INVALID", message);
    }

    /** The context of one request of {@code caller}, as the tools read it. */
    static McpTransportContext context(ExternalCaller caller) {
        return McpTransportContext.create(Map.of(CALLER, caller));
    }
}
