package io.healbench.agent.llmstub;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Token counts of one reply. Estimated from sizes (4 UTF-8 bytes a token) so that the same request always costs the same. */
record StubUsage(int inputTokens, int outputTokens, int cachedInputTokens) {

    private static final int BYTES_PER_TOKEN = 4;

    /** Input: the request body; output: the reply's text plus each tool call's arguments as sent, at least 1. */
    static StubUsage estimate(int requestBytes, String text, List<StubToolCall> toolCalls) {
        int outputBytes = text == null ? 0 : utf8Length(text);
        for (StubToolCall call : toolCalls) {
            outputBytes += utf8Length(call.arguments().toString());
        }
        return new StubUsage(tokens(requestBytes), Math.max(1, tokens(outputBytes)), 0);
    }

    int totalTokens() {
        return inputTokens + outputTokens;
    }

    private static int tokens(int bytes) {
        return (bytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN;
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
