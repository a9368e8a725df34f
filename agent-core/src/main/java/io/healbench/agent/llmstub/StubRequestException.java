package io.healbench.agent.llmstub;

/** A request the stub cannot answer as sent (bad JSON, a missing or mistyped field); the handler answers 400 with the message. */
final class StubRequestException extends RuntimeException {

    StubRequestException(String message) {
        super(message);
    }
}
