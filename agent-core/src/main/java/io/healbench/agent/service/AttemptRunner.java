package io.healbench.agent.service;

import io.healbench.agent.config.AgentSettings;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.AgentSandbox.HealReply;
import io.healbench.agent.service.AgentSandbox.Signal;
import io.healbench.common.outcome.ExitCause;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Drives one attempt: a BUGGY session with crashes intercepted; at each crash the agent decides,
 * and a heal the sandbox refuses is put back to the agent up to {@code max-heal-tries} times before
 * the crash is reraised; at FINISHED the result is built. The session is always closed.
 */
@ApplicationScoped
public class AttemptRunner {

    private static final Logger LOG = Logger.getLogger(AttemptRunner.class);

    private final AgentSandbox sandbox;
    private final HealingAgents agents;
    private final AgentSettings settings;

    public AttemptRunner(AgentSandbox sandbox, HealingAgents agents, AgentSettings settings) {
        this.sandbox = sandbox;
        this.agents = agents;
        this.settings = settings;
    }

    /** Runs the attempt; {@code sessionStarted} is told the session's name once it exists. */
    public AttemptResult run(AttemptSpec spec, Consumer<String> sessionStarted) {
        long start = System.nanoTime();
        AttemptTally tally = new AttemptTally();
        Optional<HealingAgent> agent = agents.byName(spec.agent());
        if (agent.isEmpty()) {
            tally.agentFailed("unknown agent '" + spec.agent() + "'; this worker runs: " + agents.names());
            return tally.unfinished(ExitCause.NOT_STARTED, 0, "");
        }
        try {
            agent.get().attemptStarted(spec);
        } catch (RuntimeException e) {
            tally.agentFailed("agent '" + spec.agent() + "' cannot run this attempt: " + e.getMessage());
            return tally.unfinished(ExitCause.NOT_STARTED, elapsedMs(start), "");
        }
        HealingAgent attemptAgent = agent.get().forAttempt(spec);
        AgentEnding ending = new AgentEnding(attemptAgent, spec.attemptId(), tally);
        String session;
        try {
            session = sandbox.create(spec);
        } catch (AgentSandboxFailure failure) {
            ending.end();  // the agent was told the attempt started
            tally.infrastructureFailed("cannot create a session: " + failure.getMessage(), failure.isTransient());
            return tally.unfinished(ExitCause.NOT_STARTED, elapsedMs(start), "");
        }
        tally.sessionStarted(session);
        try {
            sessionStarted.accept(session);
            return drive(spec, attemptAgent, session, tally, ending, start);
        } catch (AgentSandboxFailure failure) {
            ending.end();
            tally.infrastructureFailed("the sandbox failed during " + session + ": " + failure.getMessage(),
                    failure.isTransient());
            return tally.unfinished(ExitCause.ERROR, elapsedMs(start), "");
        } finally {
            closeQuietly(session);
            ending.end();
        }
    }

    /** Every result is built after the agent handed back its record, so the result carries its usage. */
    private AttemptResult drive(AttemptSpec spec, HealingAgent agent, String session, AttemptTally tally,
            AgentEnding ending, long start) {
        long deadline = start + settings.attemptTimeout().toNanos();
        try (AgentSandbox.Watch watch = sandbox.watch(session)) {
            while (true) {
                long remaining = deadline - System.nanoTime();
                Optional<Signal> signal = remaining > 0 ? watch.next(Duration.ofNanos(remaining)) : Optional.empty();
                if (signal.isEmpty()) {
                    ending.end();
                    return tally.timedOut(elapsedMs(start));
                }
                if (signal.get() instanceof Signal.Crashed crashed) {
                    tally.crashed(crashed.crash());
                    boolean healed = answer(spec, agent, session, crashed.crash(), tally, deadline);
                    agent.healPointEnded(spec.attemptId(), crashed.crash().healPoint(), healed);
                } else if (signal.get() instanceof Signal.Finished finished) {
                    ending.end();
                    return tally.finished(finished.outcome());
                } else if (signal.get() instanceof Signal.Ended ended) {
                    ending.end();
                    String why = ended.failure() == null ? "completed" : "failed: " + ended.failure().getMessage();
                    tally.infrastructureFailed("the session's event stream " + why + " before FINISHED",
                            ended.failure() != null && ended.failure().isTransient());
                    return tally.unfinished(ExitCause.ERROR, elapsedMs(start), "");
                }
            }
        }
    }

    /** Settles one heal point: an applied heal (true), or a reraise (false). */
    private boolean answer(AttemptSpec spec, HealingAgent agent, String session, CrashObservation crash,
            AttemptTally tally, long deadline) {
        List<RejectedHeal> rejected = new ArrayList<>();
        SessionTools tools = sandbox.tools(session);
        int maxTries = agent.healTries(spec, settings.maxHealTries());
        int tries = 0;
        while (true) {
            AgentDecision decision;
            try {
                decision = agent.decide(new HealPoint(spec.attemptId(), crash, rejected, tools));
            } catch (RuntimeException e) {
                LOG.warnf(e, "agent %s failed at heal point %d of %s", agent.name(), crash.healPoint(), session);
                decision = null;
            }
            if (decision == null) {
                tally.agentFailed("agent '" + agent.name() + "' produced no decision at heal point " + crash.healPoint());
                sandbox.reraise(session);
                return false;
            }
            if (System.nanoTime() > deadline) {
                tally.agentFailed("agent '" + agent.name() + "' decided after the attempt's budget ran out");
                sandbox.reraise(session);
                return false;
            }
            if (decision instanceof Reraise reraise) {
                LOG.debugf("heal point %d of %s reraised: %s", crash.healPoint(), session, reraise.reason());
                sandbox.reraise(session);
                return false;
            }
            Heal heal = (Heal) decision;
            HealReply reply = sandbox.heal(session, heal.code(), heal.resume());
            tries++;
            if (reply.applied()) {
                tally.healApplied();
                agent.healApplied(spec.attemptId(), reply.changed());
                return true;
            }
            tally.healRejected();
            rejected.add(new RejectedHeal(heal.code(), reply.reason()));
            if ((maxTries > 0 && tries >= maxTries) || System.nanoTime() > deadline) {
                sandbox.reraise(session);
                return false;
            }
        }
    }

    private void closeQuietly(String session) {
        try {
            sandbox.close(session);
        } catch (AgentSandboxFailure failure) {
            // The sandbox reaps sessions by its own wall-clock limit; the attempt's result stands.
            LOG.warnf("could not close %s: %s", session, failure.getMessage());
        }
    }

    /** Tells the agent its attempt ended, once, and keeps what it hands back in the tally. */
    private static final class AgentEnding {
        private final HealingAgent agent;
        private final String attemptId;
        private final AttemptTally tally;
        private boolean ended;

        AgentEnding(HealingAgent agent, String attemptId, AttemptTally tally) {
            this.agent = agent;
            this.attemptId = attemptId;
            this.tally = tally;
        }

        void end() {
            if (ended) {
                return;
            }
            ended = true;
            try {
                tally.agentRecorded(agent.attemptEnded(attemptId));
            } catch (RuntimeException e) {
                LOG.warnf(e, "agent %s failed to end attempt %s", agent.name(), attemptId);
            }
        }
    }

    private static long elapsedMs(long start) {
        return Duration.ofNanos(System.nanoTime() - start).toMillis();
    }
}
