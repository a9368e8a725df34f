package io.healbench.agent.llmstub;

/** A script that cannot be used: unreadable, not YAML, or not a valid script. The message names the file and the problem. */
public class LlmStubScriptException extends RuntimeException {

    public LlmStubScriptException(String message) {
        super(message);
    }

    public LlmStubScriptException(String message, Throwable cause) {
        super(message, cause);
    }
}
