package io.healbench.sandbox.service.heal;

import io.healbench.sandbox.service.model.GuardDecision;
import io.healbench.sandbox.service.model.SessionView;

/** Where the sandbox reports heals and guard decisions for the bench (attributed through the session's labels). */
public interface HealEventSink {

    void healApplied(SessionView session, int healPoint, String code, String resume, String exceptionType);

    void guardDecision(SessionView session, GuardDecision decision);
}
