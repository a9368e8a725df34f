package io.healbench.agent.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.logging.Logger;
import reactor.core.publisher.Mono;

/**
 * MCP's streamable HTTP transport in its stateless form, on a Vert.x route: each POST carries one JSON-RPC message;
 * a request is answered in the POST's response ({@code application/json}), a notification with 202. The SDK's
 * {@link McpStatelessServerHandler} does the protocol; this class only moves its messages, as the SDK's
 * {@code HttpServletStatelessServerTransport} does over servlets (which Quarkus without Undertow does not serve).
 * Stateless means no MCP session: the HTTP layer authenticates every request and hands its caller in the
 * {@link McpTransportContext}.
 */
final class VertxStatelessTransport implements McpStatelessServerTransport {

    private static final Logger LOG = Logger.getLogger(VertxStatelessTransport.class);
    static final String APPLICATION_JSON = "application/json";

    private final McpJsonMapper json;
    private volatile McpStatelessServerHandler handler;
    private volatile boolean closing;

    VertxStatelessTransport(McpJsonMapper json) {
        this.json = json;
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler mcpHandler) {
        this.handler = mcpHandler;
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> closing = true);
    }

    /**
     * Answers one authenticated POST. It blocks until the MCP server answers (a tool call waits for the program), so
     * call it on a thread that may block, never on the event loop.
     */
    void post(RoutingContext rc, McpTransportContext context) {
        McpStatelessServerHandler mcp = handler;
        if (closing || mcp == null) {
            error(rc, 503, null, McpSchema.ErrorCodes.INTERNAL_ERROR, "the server is shutting down", null);
            return;
        }
        String accept = rc.request().getHeader("Accept");
        if (accept != null && !(accept.contains(APPLICATION_JSON) || accept.contains("*/*") || accept.contains("application/*"))) {
            error(rc, 406, null, McpSchema.ErrorCodes.INVALID_REQUEST, "this endpoint answers with application/json", null);
            return;
        }
        String body = rc.body() == null ? null : rc.body().asString();
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, body == null ? "" : body);
        } catch (IOException e) {
            error(rc, 400, null, McpSchema.ErrorCodes.PARSE_ERROR, "the body is not JSON: " + e.getMessage(), null);
            return;
        } catch (IllegalArgumentException e) {
            error(rc, 400, null, McpSchema.ErrorCodes.INVALID_REQUEST, "not a JSON-RPC message: " + e.getMessage(), null);
            return;
        }
        if (message instanceof McpSchema.JSONRPCRequest request) {
            McpSchema.JSONRPCResponse response;
            try {
                response = mcp.handleRequest(context, request)
                        .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context))
                        .block();
            } catch (RuntimeException e) {
                LOG.errorf(e, "MCP request %s failed", request.method());
                error(rc, 500, request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, "the request failed: " + e, null);
                return;
            }
            if (response == null) {
                error(rc, 500, request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, "the request had no answer", null);
                return;
            }
            send(rc, 200, response);
        } else if (message instanceof McpSchema.JSONRPCNotification notification) {
            try {
                mcp.handleNotification(context, notification)
                        .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context))
                        .block();
            } catch (RuntimeException e) {
                LOG.warnf(e, "MCP notification %s failed", notification.method());
            }
            HttpServerResponse out = rc.response();
            if (!out.ended() && !out.closed()) {
                out.setStatusCode(202).end();
            }
        } else {
            // This server sends no requests, so no response of a client answers one of it.
            error(rc, 400, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "this server takes requests and notifications only", null);
        }
    }

    /** A JSON-RPC error answer ({@code id} null when the request's is unknown). */
    void error(RoutingContext rc, int status, Object id, int code, String message, Object data) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        if (data != null) {
            error.put("data", data);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        body.put("id", id);
        body.put("error", error);
        send(rc, status, body);
    }

    private void send(RoutingContext rc, int status, Object body) {
        HttpServerResponse out = rc.response();
        if (out.ended() || out.closed()) {
            return;
        }
        String text;
        try {
            text = json.writeValueAsString(body);
        } catch (IOException e) {
            LOG.errorf(e, "could not write an MCP answer");
            out.setStatusCode(500).end();
            return;
        }
        out.setStatusCode(status).putHeader("Content-Type", APPLICATION_JSON + "; charset=utf-8").end(text);
    }
}
