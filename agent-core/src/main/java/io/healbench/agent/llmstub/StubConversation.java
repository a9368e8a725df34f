package io.healbench.agent.llmstub;

import java.util.Optional;
import java.util.StringJoiner;

/**
 * What a script's conditions and templates see of one request, whatever the provider: the model asked for,
 * the request's whole text (system text, every message's text and every tool result, in order, one per line;
 * tool-call arguments the model sent earlier are not part of it), the turn (1 + the assistant messages so
 * far), the content of the last tool result, whether tools are offered, and the body's size in UTF-8 bytes.
 */
record StubConversation(String model, String text, int turn, Optional<String> lastToolResult,
                        boolean offersTools, int bodyBytes) {

    /** Collects a request's parts in the order a protocol reads them. */
    static final class Builder {

        private final StringJoiner text = new StringJoiner("\n");
        private int assistantMessages;
        private String lastToolResult;

        Builder text(String part) {
            if (!part.isEmpty()) {
                text.add(part);
            }
            return this;
        }

        Builder assistantMessage() {
            assistantMessages++;
            return this;
        }

        Builder toolResult(String content) {
            text(content);
            lastToolResult = content;
            return this;
        }

        StubConversation build(String model, boolean offersTools, int bodyBytes) {
            return new StubConversation(model, text.toString(), assistantMessages + 1,
                    Optional.ofNullable(lastToolResult), offersTools, bodyBytes);
        }
    }
}
