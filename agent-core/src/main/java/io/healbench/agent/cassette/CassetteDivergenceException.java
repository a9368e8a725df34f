package io.healbench.agent.cassette;

import dev.langchain4j.exception.NonRetriableException;

/**
 * A request that a replaying cassette holds no answer for: the run asked something it did not ask when the cassette was
 * recorded. It is a {@link NonRetriableException} because LangChain4j's retry loop rethrows those at once, where it
 * would otherwise ask the same unanswerable request again {@code maxRetries} times.
 */
public class CassetteDivergenceException extends NonRetriableException {

    private final int requestOrdinal;

    CassetteDivergenceException(String message, int requestOrdinal) {
        super(message);
        this.requestOrdinal = requestOrdinal;
    }

    /** Which request this cassette was asked in this session, counting from 1. */
    public int requestOrdinal() {
        return requestOrdinal;
    }
}
