package io.healbench.agent.llmstub;

import java.util.List;
import java.util.OptionalInt;

/**
 * The script's answer to one request, before a protocol puts it on the wire: text (null for none), tool
 * calls, finish reason and usage, or, when {@code errorStatus} is present, an HTTP error instead.
 */
record StubReply(String text, List<StubToolCall> toolCalls, StubFinish finish, StubUsage usage, OptionalInt errorStatus) {

    StubReply {
        toolCalls = List.copyOf(toolCalls);
    }
}
