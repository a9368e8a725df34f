package io.healbench.agent.service;

/** A heal the sandbox did not apply at the current heal point, with why, so the agent can revise. */
public record RejectedHeal(String code, String reason) {
}
