package io.healbench.agent.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.agent.service.external.ExternalAttempts;
import io.healbench.agent.service.external.ExternalCallerAuth;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The external API over MCP (docs/agents.md, "The external API"): the SDK's stateless MCP server on streamable HTTP
 * at {@value #PATH}, on the Quarkus HTTP server (the port gRPC shares). Its tools act on {@link ExternalAttempts}, as
 * the gRPC gateway does; every request is authenticated on its own ({@link McpHttpHandler}).
 */
@ApplicationScoped
public class McpEndpoint {

    public static final String PATH = "/mcp";
    /** Heal and probe code is small; nothing else an agent sends is large. */
    static final long MAX_BODY_BYTES = 4L * 1024 * 1024;

    private static final Logger LOG = Logger.getLogger(McpEndpoint.class);

    private final ExternalAttempts attempts;
    private final ExternalCallerAuth auth;
    private final List<String> allowedOrigins;
    /** A tool call blocks until the program answers (a claim until its first crash): one thread per call. */
    private final ExecutorService requests = Executors.newCachedThreadPool(new ThreadFactory() {
        private final AtomicInteger numbers = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "mcp-request-" + numbers.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    });
    private volatile McpStatelessSyncServer server;

    public McpEndpoint(ExternalAttempts attempts, ExternalCallerAuth auth,
            @ConfigProperty(name = "healbench.agent.mcp.allowed-origins") Optional<List<String>> allowedOrigins) {
        this.attempts = attempts;
        this.auth = auth;
        this.allowedOrigins = allowedOrigins.orElse(List.of());
    }

    void routes(@Observes Router router) {
        McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        VertxStatelessTransport transport = new VertxStatelessTransport(json);
        server = McpTools.server(transport, json, new DefaultJsonSchemaValidator(), McpTools.Domain.of(attempts));
        McpHttpHandler handler = new McpHttpHandler(auth, rc -> QuarkusHttpUser.getSecurityIdentity(rc, null),
                McpHttpHandler.origins(allowedOrigins), transport, requests);
        mount(router, handler);
        LOG.infof("MCP endpoint at %s (%d tools)", PATH, McpToolSchemas.tools().size());
    }

    /** The route: the body read (up to {@link #MAX_BODY_BYTES}), then {@code handler}. */
    static void mount(Router router, McpHttpHandler handler) {
        router.route(PATH).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));
        router.route(PATH).handler(handler);
    }

    @PreDestroy
    void stop() {
        McpStatelessSyncServer running = server;
        if (running != null) {
            running.closeGracefully();
        }
        requests.shutdownNow();
    }
}
