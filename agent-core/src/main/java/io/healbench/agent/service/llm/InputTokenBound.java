package io.healbench.agent.service.llm;

import java.nio.charset.StandardCharsets;

/**
 * An upper bound on the input tokens of an attempt's next model call, for budgets that must never be passed. The
 * providers' tokenizers are byte-level: a token covers at least one byte of text. So the next request costs at most
 * what the provider reported for the last one (which covers what the provider adds unseen, such as its tool-use
 * scaffolding) plus one token per UTF-8 byte of what the conversation gained since; before any report, one token per
 * byte of everything sent (the conversation and the tools offered). Each message counts by its full text form, a
 * little more than its content, which leaves room for the provider's per-message markers.
 */
final class InputTokenBound {

    private final long fixedBytes;
    private long conversationBytes;
    /** The input tokens the provider reported for the last request, and the conversation's bytes then; -1: none yet. */
    private long reportedTokens = -1;
    private long bytesAtReport;

    /** {@code fixed}: what every request carries besides the conversation (the tools offered). */
    InputTokenBound(String fixed) {
        this.fixedBytes = bytes(fixed);
    }

    void added(String messageText) {
        conversationBytes += bytes(messageText);
    }

    /** The provider's count for the request just answered, whose conversation is the one added so far. */
    void reported(long inputTokens) {
        if (inputTokens > 0) {
            reportedTokens = inputTokens;
            bytesAtReport = conversationBytes;
        }
    }

    long next() {
        return reportedTokens < 0 ? fixedBytes + conversationBytes + 1 : reportedTokens + (conversationBytes - bytesAtReport) + 1;
    }

    private static long bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
