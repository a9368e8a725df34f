package io.healbench.agent.service.external;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentRecord;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealingAgent;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * The agent of runs made for external agents ({@code external} or {@code external:NAME}): it decides nothing itself
 * but hands each heal point to the agent that claimed the attempt through the API ({@link ExternalAttempt}). A worker
 * that receives such an attempt from the queue cannot run it: only a claim starts one.
 */
@Singleton
public class ExternalAgent implements HealingAgent {

    public static final String NAME = "external";

    private final ExternalAttemptRegistry registry;

    public ExternalAgent(ExternalAttemptRegistry registry) {
        this.registry = registry;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attemptStarted(AttemptSpec spec) {
        attempt(spec.attemptId());
    }

    @Override
    public AgentDecision decide(HealPoint point) {
        return attempt(point.attemptId()).decide(point);
    }

    /** The attempt keeps its own heals-per-heal-point budget, and says why when it is spent. */
    @Override
    public int healTries(AttemptSpec spec, int offlineDefault) {
        return 0;
    }

    @Override
    public void healApplied(String attemptId, List<String> changed) {
        registry.byId(attemptId).ifPresent(attempt -> attempt.healApplied(changed));
    }

    @Override
    public void healPointEnded(String attemptId, int healPoint, boolean healed) {
        registry.byId(attemptId).ifPresent(attempt -> attempt.healPointEnded(healPoint, healed));
    }

    @Override
    public AgentRecord attemptEnded(String attemptId) {
        return registry.byId(attemptId).map(ExternalAttempt::record).orElse(AgentRecord.NONE);
    }

    private ExternalAttempt attempt(String attemptId) {
        return registry.byId(attemptId).orElseThrow(() -> new IllegalStateException(
                "attempt " + attemptId + " is for an external agent: it starts when an agent claims it through the API"));
    }
}
