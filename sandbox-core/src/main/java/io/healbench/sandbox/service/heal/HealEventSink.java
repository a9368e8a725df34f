package io.healbench.sandbox.service.heal;

import io.healbench.common.heal.Resume;
import io.healbench.common.guard.GuardDecision;
import io.healbench.sandbox.service.model.SessionView;

/**
 * Where the sandbox reports heals and guard decisions for the bench (attributed through the session's labels). Each
 * event comes with its {@code ordinal}, its place among the events its session reported (1, 2, ...): with the
 * session's attempt it names the event, so an attempt run again after a redelivery reports the same events under the
 * same ids, and the bench keeps each once.
 */
public interface HealEventSink {

    void healApplied(SessionView session, int ordinal, int healPoint, String code, Resume resume, String exceptionType);

    void guardDecision(SessionView session, int ordinal, GuardDecision decision);
}
