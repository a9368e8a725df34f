package io.healbench.agent.service.external;

/** A claimed attempt: its resource name, which instance and repeat it is, its lease, and where its program stands. */
public record ExternalClaim(String attempt, String instanceId, int repeat, int leaseSeconds, ExternalStep step,
        ExternalBudget budget) {
}
