package io.healbench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Where external agents reach a standalone platform (docs/agents.md, "The external API"): the gRPC gateway, the MCP
 * endpoint on the same port, and the local token they present.
 */
public record ExternalEndpoint(String grpc, String mcp, String token) {

    public static ExternalEndpoint onLoopback(int port, String token) {
        return new ExternalEndpoint("127.0.0.1:" + port, "http://127.0.0.1:" + port + "/mcp", token);
    }

    /** {@code $HEALBENCH_TOKEN} when set (a fixed token for scripts), else 32 random bytes. */
    public static String newToken() {
        String fixed = System.getenv("HEALBENCH_TOKEN");
        if (fixed != null && !fixed.isBlank()) {
            return fixed;
        }
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** One JSON line: {@code run} (when given) and the endpoints and token. */
    public String jsonLine(String run) {
        ObjectNode line = new ObjectMapper().createObjectNode();
        if (run != null) {
            line.put("run", run);
        }
        line.put("grpc", grpc);
        line.put("mcp", mcp);
        line.put("token", token);
        return line.toString();
    }
}
