package io.healbench.agent.service.llm;

import java.util.Locale;

/** How one heal point ended for an LLM or external agent (docs/agents.md, "Exit statuses"). */
public enum HealPointExit {
    /** A heal was applied and the program resumed. */
    HEALED,
    /** The agent (or the runner, after its refused heals) let the exception propagate. */
    RERAISED,
    /** A call, token, cost or probe budget ran out before the agent decided; it reraised. */
    LIMITS_EXCEEDED,
    /** A wall-time budget ran out; the agent reraised. */
    TIME_EXCEEDED,
    /** Too many malformed replies in a row; the agent reraised. */
    FORMAT_ERRORS,
    /** The cassette held no answer for a request: the replay is not the recorded run. */
    REPLAY_DIVERGENCE,
    /** The model call failed (after the client's retries); the agent reraised. */
    ERROR,
    /** An external agent's claim lapsed (it disconnected or went silent); the crash was reraised. */
    CLAIM_LAPSED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
