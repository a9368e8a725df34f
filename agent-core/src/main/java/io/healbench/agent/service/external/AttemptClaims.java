package io.healbench.agent.service.external;

import io.healbench.agent.service.AttemptSpec;
import java.time.Duration;

/**
 * bench-service's ledger of claims on external attempts, as the gateway needs it. Every method throws
 * {@link ExternalFailure} with the ledger's reason (NOTHING_TO_CLAIM, ATTEMPT_NOT_FOUND, CLAIM_LAPSED, TARGET_INVALID) or
 * UNAVAILABLE when bench-service cannot answer.
 */
public interface AttemptClaims {

    /** Claims {@code target} ({@code runs/R} or {@code runs/R/attempts/A}) for the tenant's agent {@code agentName}. */
    Claim claim(String tenant, String target, String agentName, String holder, Duration lease);

    /** Extends the claim's lease; CLAIM_LAPSED when it is no longer this claim. */
    void renew(String tenant, String attemptId, String claimId, Duration lease);

    /** Gives the claim back: the attempt is queued again. */
    void release(String tenant, String attemptId, String claimId, String reason);

    /** A claim: its id, the attempt as workers receive theirs, and how many claims on it lapsed before. */
    record Claim(String claimId, AttemptSpec spec, int lapses) {
    }
}
