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

    /**
     * Prefix of a generated token. Without it, one token in 64 began with '-', and a command line such as
     * {@code --token <token>} then read the token as an option and failed.
     */
    static final String GENERATED_TOKEN_PREFIX = "hbl_";

    private static final SecureRandom RANDOM = new SecureRandom();

    /** {@code $HEALBENCH_TOKEN} when set (a fixed token for scripts), else {@link #randomToken()}. */
    public static String newToken() {
        String fixed = System.getenv("HEALBENCH_TOKEN");
        if (fixed != null && !fixed.isBlank()) {
            return fixed;
        }
        return randomToken();
    }

    /** 32 random bytes, base64url, after {@link #GENERATED_TOKEN_PREFIX}. */
    static String randomToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return GENERATED_TOKEN_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
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
