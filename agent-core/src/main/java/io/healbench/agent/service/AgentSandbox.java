package io.healbench.agent.service;

import io.healbench.common.heal.Resume;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The sandbox as the attempt runner needs it: sessions of the BUGGY variant with crashes
 * intercepted. Every method throws {@link AgentSandboxFailure} when the sandbox cannot serve it.
 */
public interface AgentSandbox {

    /** Starts a session for the attempt; returns its resource name. */
    String create(AttemptSpec spec);

    /** Watches a session's crashes and its end, from its start. */
    Watch watch(String session);

    /** Submits a heal at the current crash. The sandbox gates it through guard-service itself. */
    HealReply heal(String session, String code, Resume resume);

    /** The session's probes and read-only views, for agents that look before they decide. */
    SessionTools tools(String session);

    /** Lets the current crash's exception propagate. */
    void reraise(String session);

    /** Kills the session's process and deletes its workspace. */
    void close(String session);

    /** A session's signals in order. */
    interface Watch extends AutoCloseable {
        /** The next signal, or empty when none came within {@code timeout}; ended streams yield {@link Signal.Ended}. */
        Optional<Signal> next(Duration timeout);

        @Override
        void close();
    }

    /** What the runner reacts to on a session's stream. */
    sealed interface Signal {
        record Crashed(CrashObservation crash) implements Signal {
        }

        record Finished(AgentSessionOutcome outcome) implements Signal {
        }

        /** The stream ended without FINISHED (with the failure, if it failed). */
        record Ended(AgentSandboxFailure failure) implements Signal {
        }
    }

    /** The sandbox's answer to a heal: applied, or refused with a reason the agent can act on. */
    record HealReply(boolean applied, String reason, List<String> changed) {
        public HealReply {
            reason = reason == null ? "" : reason;
            changed = List.copyOf(changed);
        }
    }
}
