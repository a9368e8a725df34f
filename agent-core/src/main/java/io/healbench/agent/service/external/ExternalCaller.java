package io.healbench.agent.service.external;

/** Who an external agent is: its tenant (every claim and action is scoped to it) and its token's subject. */
public record ExternalCaller(String tenant, String subject) {
}
