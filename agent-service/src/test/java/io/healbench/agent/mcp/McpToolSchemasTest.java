package io.healbench.agent.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.ObservedStatement;
import io.healbench.agent.service.SessionTools;
import io.healbench.agent.service.external.ExternalBudget;
import io.healbench.agent.service.external.ExternalCaller;
import io.healbench.agent.service.external.ExternalClaim;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.agent.service.external.ExternalReply;
import io.healbench.agent.service.external.ExternalStep;
import io.healbench.agent.service.external.SelfReportedUsage;
import io.healbench.agent.service.llm.ActionCatalog;
import io.healbench.common.outcome.ExitCause;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The MCP tools as built from the ActionCatalog, the domain's answers as tool results, and both through the SDK. */
class McpToolSchemasTest {

    private static final ExternalCaller CALLER = new ExternalCaller("local", "local");
    private static final String ATTEMPT = "runs/r1/attempts/a1";
    private static final ExternalBudget BUDGET = new ExternalBudget(60_000, 40, 5, 3);
    private static final String WS = "/var/lib/healbench/workspaces/s1/w1/src/";

    // ---- the schemas -------------------------------------------------------------------------------------------------

    @Test
    void theNineToolsInOrder() {
        List<String> names = McpToolSchemas.tools().stream().map(McpSchema.Tool::name).toList();
        assertEquals(List.of("claim", "get_crash", "probe", "heal", "reraise", "read_file", "list_files", "search_code",
                "report_usage"), names);
    }

    @Test
    void everyToolButClaimRequiresTheAttempt() {
        for (McpSchema.Tool tool : McpToolSchemas.tools()) {
            Map<String, Object> properties = properties(tool);
            assertEquals("string", type(properties, "attempt"), tool.name());
            if (tool.name().equals("claim")) {
                // claim takes run or attempt (exactly one; the handler checks it).
                assertFalse(required(tool).contains("attempt"));
            } else {
                assertTrue(required(tool).contains("attempt"), tool.name() + " must require attempt");
                assertEquals("attempt", required(tool).get(0), tool.name());
            }
            assertEquals("object", tool.inputSchema().get("type"));
            assertEquals(false, tool.inputSchema().get("additionalProperties"));
        }
    }

    @Test
    void actionToolsComeFromTheCatalog() {
        for (ActionCatalog.Tool action : ActionCatalog.tools(ActionCatalog.allNames())) {
            McpSchema.Tool tool = tool(action.name());
            assertEquals(action.description(), tool.description());
            Map<String, Object> properties = properties(tool);
            assertEquals(action.parameters().size() + 1, properties.size(), action.name());
            for (ActionCatalog.Parameter parameter : action.parameters()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> property = (Map<String, Object>) properties.get(parameter.name());
                assertNotNull(property, action.name() + "." + parameter.name());
                assertEquals(parameter.description(), property.get("description"));
                assertEquals(parameter.required(), required(tool).contains(parameter.name()), parameter.name());
            }
        }
        assertEquals("number", type(properties(tool("probe")), "timeout_s"));
        assertEquals("integer", type(properties(tool("read_file")), "start"));
        assertEquals("integer", type(properties(tool("read_file")), "end"));
        assertEquals(List.of("attempt"), required(tool("get_crash")));
        assertEquals(List.of("attempt", "code", "resume"), required(tool("heal")));
        assertEquals(List.of("attempt", "path"), required(tool("read_file")));
        assertEquals(List.of("attempt"), required(tool("list_files")));
    }

    @Test
    void healResumeIsAnEnum() {
        @SuppressWarnings("unchecked")
        Map<String, Object> resume = (Map<String, Object>) properties(tool("heal")).get("resume");
        assertEquals("string", resume.get("type"));
        assertEquals(List.of("skip", "retry", "return"), resume.get("enum"));
        @SuppressWarnings("unchecked")
        Map<String, Object> code = (Map<String, Object>) properties(tool("heal")).get("code");
        assertNull(code.get("enum"));
    }

    @Test
    void claimAndUsageSchemas() {
        assertEquals(List.of("run", "attempt", "agent"), new ArrayList<>(properties(tool("claim")).keySet()));
        assertEquals(List.of(), required(tool("claim")));
        Map<String, Object> usage = properties(tool("report_usage"));
        assertEquals(List.of("attempt", "llm_calls", "input_tokens", "output_tokens", "cost_usd", "model"),
                new ArrayList<>(usage.keySet()));
        assertEquals("integer", type(usage, "llm_calls"));
        assertEquals("number", type(usage, "cost_usd"));
        assertEquals(List.of("attempt"), required(tool("report_usage")));
    }

    @Test
    void theSchemasAreValidJsonSchemas() {
        DefaultJsonSchemaValidator validator = new DefaultJsonSchemaValidator();
        for (McpSchema.Tool tool : McpToolSchemas.tools()) {
            assertTrue(validator.validateSchema(tool.inputSchema()).valid(), tool.name());
        }
        Map<String, Object> heal = Map.of("attempt", ATTEMPT, "code", "x = 1", "resume", "skip");
        assertTrue(validator.validate(tool("heal").inputSchema(), heal).valid());
        assertFalse(validator.validate(tool("heal").inputSchema(), Map.of("attempt", ATTEMPT, "code", "x = 1",
                "resume", "later")).valid());
    }

    // ---- arguments ---------------------------------------------------------------------------------------------------

    @Test
    void claimTakesExactlyOneTarget() {
        assertEquals("runs/r1", McpTools.claimTarget(Map.of("run", "runs/r1")));
        assertEquals(ATTEMPT, McpTools.claimTarget(Map.of("attempt", ATTEMPT, "agent", "a")));
        assertBadArgument(() -> McpTools.claimTarget(Map.of()));
        assertBadArgument(() -> McpTools.claimTarget(Map.of("run", "runs/r1", "attempt", ATTEMPT)));
        assertBadArgument(() -> McpTools.claimTarget(Map.of("run", 3)));
        assertBadArgument(() -> McpTools.claimTarget(Map.of("run", "runs/r1", "lease", 5)));
    }

    @Test
    void actionArgumentsPassThroughWithoutTheAttempt() {
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("attempt", ATTEMPT);
        given.put("code", "print(1)");
        given.put("timeout_s", 2.5);
        Map<String, Object> passed = McpTools.actionArguments(given);
        assertEquals(List.of("code", "timeout_s"), new ArrayList<>(passed.keySet()));
        assertEquals(2.5, passed.get("timeout_s"));
        assertEquals(ATTEMPT, McpTools.attempt(given));
        assertNull(McpTools.attempt(Map.of()));
        assertBadArgument(() -> McpTools.attempt(Map.of("attempt", 7)));
    }

    @Test
    void usageArguments() {
        SelfReportedUsage usage = McpTools.usage(Map.of("attempt", ATTEMPT, "llm_calls", 2, "input_tokens", 1200L,
                "output_tokens", 3.0, "cost_usd", 0.5, "model", "m"));
        assertEquals(new SelfReportedUsage(2, 1200, 3, 0.5, "m"), usage);
        assertEquals(new SelfReportedUsage(0, 0, 0, 0.0, ""), McpTools.usage(Map.of("attempt", ATTEMPT)));
        assertBadArgument(() -> McpTools.usage(Map.of("llm_calls", 1.5)));
        assertBadArgument(() -> McpTools.usage(Map.of("llm_calls", "2")));
        assertBadArgument(() -> McpTools.usage(Map.of("llm_calls", -1)));
        assertBadArgument(() -> McpTools.usage(Map.of("cost_usd", "free")));
        assertBadArgument(() -> McpTools.usage(Map.of("tokens", 1)));
    }

    // ---- results -----------------------------------------------------------------------------------------------------

    @Test
    void claimResult() {
        ExternalStep step = ExternalStep.crashed(crash());
        McpSchema.CallToolResult result = McpResults.claim(new ExternalClaim(ATTEMPT, "inst-1", 2, 30, step, BUDGET));
        assertFalse(result.isError());
        assertEquals("attempt: " + ATTEMPT + "\ninstance: inst-1\nrepeat: 2\nlease_seconds: 30\n\n" + step.render(),
                text(result));
        Map<String, Object> out = structured(result);
        assertEquals(ATTEMPT, out.get("attempt"));
        assertEquals("inst-1", out.get("instance_id"));
        assertEquals(2, out.get("repeat"));
        assertEquals(30, out.get("lease_seconds"));
        assertEquals("crashed", out.get("state"));
        assertEquals(3, out.get("heal_point"));
        assertEquals("ZeroDivisionError", out.get("exception_type"));
        assertEquals(false, out.get("proceeded"));
        assertEquals("app.py", out.get("file"), "workspace paths are shown relative to the source root");
        assertEquals(40, ((Map<?, ?>) out.get("budget")).get("actions_left"));
    }

    @Test
    void healAndReraiseResults() {
        ExternalStep ended = new ExternalStep(null, new ExternalStep.Finished(true, ExitCause.EXITED, 2));
        McpSchema.CallToolResult healed = McpResults.reply(new ExternalReply(
                new ExternalReply.Healed(List.of(WS + "app.py:12"), ended), "applied; changed: app.py:12", BUDGET));
        Map<String, Object> out = structured(healed);
        assertEquals("finished", out.get("state"));
        assertEquals(true, out.get("proceeded"));
        assertEquals(0, out.get("heal_point"));
        assertEquals("", out.get("exception_type"));
        assertEquals(List.of("app.py:12"), out.get("changed"));
        assertEquals("applied; changed: app.py:12", text(healed));

        McpSchema.CallToolResult reraised = McpResults.reply(new ExternalReply(ExternalStep.crashed(crash()),
                "reraised", BUDGET));
        Map<String, Object> next = structured(reraised);
        assertEquals("crashed", next.get("state"));
        assertEquals(3, next.get("heal_point"));
        assertFalse(next.containsKey("changed"));
        assertTrue(next.containsKey("budget"));
    }

    @Test
    void lookResults() {
        Map<String, Object> probe = structured(McpResults.reply(new ExternalReply(
                new SessionTools.ProbeReply(true, "hi\n", "0", ""), "printed: hi", BUDGET)));
        assertEquals(true, probe.get("ok"));
        assertEquals("0", probe.get("value_repr"));
        assertEquals(Map.of("wall_ms_left", 60_000L, "actions_left", 40, "probes_left", 5, "heals_left", 3),
                probe.get("budget"));

        Map<String, Object> file = structured(McpResults.reply(new ExternalReply(
                new SessionTools.FileView(WS + "app.py", "x = 1\n", 10, 1, 1, false), "1: x = 1", BUDGET)));
        assertEquals("app.py", file.get("path"));
        assertEquals(10, file.get("total_lines"));

        Map<String, Object> crash = structured(McpResults.reply(new ExternalReply(crash(), "Heal point 3", BUDGET)));
        assertEquals("crashed", crash.get("state"));
        assertEquals(List.of(Map.of("name", "y", "type", "int", "repr", "0")), crash.get("locals"));

        Map<String, Object> none = structured(McpResults.reply(new ExternalReply(null, "nothing", null)));
        assertEquals(Map.of(), none);
    }

    @Test
    void failureResult() {
        McpSchema.CallToolResult result = McpResults.failure(ExternalFailure.recoverable(
                ExternalFailure.Kind.FAILED_PRECONDITION, "HEAL_REJECTED", "x is not defined"));
        assertTrue(result.isError());
        assertEquals("HEAL_REJECTED: x is not defined", text(result));
        assertEquals(Map.of("reason", "HEAL_REJECTED", "message", "x is not defined", "fatal", false), structured(result));
        assertEquals(true, structured(McpResults.failure(ExternalFailure.fatal(ExternalFailure.Kind.ABORTED,
                "CLAIM_LAPSED", "gone"))).get("fatal"));
    }

    // ---- through the SDK's server ------------------------------------------------------------------------------------

    @Test
    void theSdkServesTheTools() throws Exception {
        FakeDomain domain = new FakeDomain();
        McpStatelessServerHandler server = server(domain);

        McpSchema.JSONRPCResponse init = request(server, "initialize", Map.of("protocolVersion", "2025-06-18",
                "capabilities", Map.of(), "clientInfo", Map.of("name", "test", "version", "0")));
        assertNull(init.error());
        Map<String, Object> initialized = json(init.result());
        assertEquals(Map.of("name", "healbench", "version", "1"), initialized.get("serverInfo"));
        assertEquals("2025-06-18", initialized.get("protocolVersion"));

        Map<String, Object> listed = json(request(server, "tools/list", Map.of()).result());
        assertEquals(9, ((List<?>) listed.get("tools")).size());

        // Arguments reach the domain as the JSON gave them, without the attempt; the SDK does not check them.
        Map<String, Object> probed = call(server, "probe", Map.of("attempt", ATTEMPT, "code", "x", "timeout_s", 5,
                "bogus", true));
        assertEquals(false, probed.get("isError"));
        assertEquals(List.of(CALLER, ATTEMPT, "probe"), domain.acted.subList(0, 3));
        assertEquals(Map.of("code", "x", "timeout_s", 5, "bogus", true), domain.acted.get(3));

        Map<String, Object> claimed = call(server, "claim", Map.of("run", "runs/r1"));
        assertEquals(ATTEMPT, structuredOf(claimed).get("attempt"));
        assertEquals(List.of(CALLER, "runs/r1", ""), domain.claimed);

        Map<String, Object> twoTargets = call(server, "claim", Map.of("run", "runs/r1", "attempt", ATTEMPT));
        assertEquals(true, twoTargets.get("isError"));
        assertEquals("ARGUMENT_INVALID", structuredOf(twoTargets).get("reason"));

        domain.failure = ExternalFailure.recoverable(ExternalFailure.Kind.NOT_FOUND, "ATTEMPT_NOT_FOUND", "not yours");
        Map<String, Object> refused = call(server, "heal", Map.of("attempt", ATTEMPT, "code", "x = 1", "resume", "skip"));
        assertEquals(true, refused.get("isError"));
        assertEquals(Map.of("reason", "ATTEMPT_NOT_FOUND", "message", "not yours", "fatal", false), structuredOf(refused));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> content = (List<Map<String, Object>>) refused.get("content");
        assertEquals(List.of(Map.of("type", "text", "text", "ATTEMPT_NOT_FOUND: not yours")), content);

        domain.failure = null;
        domain.bug = new IllegalStateException("boom");
        Map<String, Object> broken = call(server, "get_crash", Map.of("attempt", ATTEMPT));
        assertEquals("SANDBOX_UNAVAILABLE", structuredOf(broken).get("reason"));
        assertEquals(true, structuredOf(broken).get("fatal"));
    }

    @Test
    void aCallWithoutAnAuthenticatedCallerIsRefused() throws Exception {
        McpStatelessServerHandler server = server(new FakeDomain());
        McpSchema.JSONRPCResponse response = server.handleRequest(io.modelcontextprotocol.common.McpTransportContext.EMPTY,
                new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, "tools/call", 1,
                        Map.of("name", "get_crash", "arguments", Map.of("attempt", ATTEMPT)))).block();
        assertEquals("TOKEN_REQUIRED", structuredOf(json(response.result())).get("reason"));
    }

    // ---- helpers -----------------------------------------------------------------------------------------------------

    static final McpJsonMapper JSON = new JacksonMcpJsonMapper(new ObjectMapper());

    static McpStatelessServerHandler server(McpTools.Domain domain) {
        McpStatelessServerHandler[] handler = new McpStatelessServerHandler[1];
        McpStatelessServerTransport transport = new McpStatelessServerTransport() {
            @Override
            public void setMcpHandler(McpStatelessServerHandler mcpHandler) {
                handler[0] = mcpHandler;
            }

            @Override
            public Mono<Void> closeGracefully() {
                return Mono.empty();
            }
        };
        McpTools.server(transport, JSON, new DefaultJsonSchemaValidator(), domain);
        assertNotNull(handler[0]);
        return handler[0];
    }

    private static int ids;

    private static McpSchema.JSONRPCResponse request(McpStatelessServerHandler server, String method, Object params) {
        return server.handleRequest(McpTools.context(CALLER),
                new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method, ++ids, params)).block();
    }

    private static Map<String, Object> call(McpStatelessServerHandler server, String tool, Map<String, Object> args)
            throws Exception {
        McpSchema.JSONRPCResponse response = request(server, "tools/call", Map.of("name", tool, "arguments", args));
        assertNull(response.error(), () -> String.valueOf(response.error()));
        return json(response.result());
    }

    /** As the wire carries it. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(Object value) throws Exception {
        return JSON.readValue(JSON.writeValueAsString(value), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> structuredOf(Map<String, Object> result) {
        return (Map<String, Object>) result.get("structuredContent");
    }

    static final class FakeDomain implements McpTools.Domain {
        final List<Object> acted = new ArrayList<>();
        final List<Object> claimed = new ArrayList<>();
        ExternalFailure failure;
        RuntimeException bug;

        @Override
        public ExternalClaim claim(ExternalCaller caller, String target, String agentName) {
            claimed.addAll(List.of(caller, target, agentName));
            return new ExternalClaim(ATTEMPT, "inst-1", 0, 30, ExternalStep.crashed(crash()), BUDGET);
        }

        @Override
        public ExternalReply act(ExternalCaller caller, String attemptName, Map<String, Object> arguments, String tool) {
            if (failure != null) {
                throw failure;
            }
            if (bug != null) {
                throw bug;
            }
            acted.addAll(List.of(caller, attemptName, tool, arguments));
            return new ExternalReply(new SessionTools.ProbeReply(true, "", "1", ""), "1", BUDGET);
        }

        @Override
        public ExternalBudget reportUsage(ExternalCaller caller, String attemptName, SelfReportedUsage usage) {
            return BUDGET;
        }
    }

    static CrashObservation crash() {
        return new CrashObservation(3, "ZeroDivisionError", "division by zero",
                new ObservedStatement("x = 1 / y", "assign", List.of("x"), 12, WS + "app.py"),
                List.of(new ObservedLocal("y", "int", "0")), true);
    }

    private static McpSchema.Tool tool(String name) {
        return McpToolSchemas.tools().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(McpSchema.Tool tool) {
        return (Map<String, Object>) tool.inputSchema().get("properties");
    }

    @SuppressWarnings("unchecked")
    private static List<String> required(McpSchema.Tool tool) {
        Object required = tool.inputSchema().get("required");
        return required == null ? List.of() : (List<String>) required;
    }

    @SuppressWarnings("unchecked")
    private static String type(Map<String, Object> properties, String name) {
        return (String) ((Map<String, Object>) properties.get(name)).get("type");
    }

    private static String text(McpSchema.CallToolResult result) {
        assertEquals(1, result.content().size());
        return assertInstanceOf(McpSchema.TextContent.class, result.content().get(0)).text();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> structured(McpSchema.CallToolResult result) {
        return (Map<String, Object>) result.structuredContent();
    }

    private static void assertBadArgument(Runnable call) {
        try {
            call.run();
        } catch (ExternalFailure failure) {
            assertEquals("ARGUMENT_INVALID", failure.reason());
            assertFalse(failure.fatal());
            return;
        }
        throw new AssertionError("expected ARGUMENT_INVALID");
    }
}
