package io.healbench.agent.service;

import io.healbench.common.heal.Resume;
import java.util.Objects;

/** What an agent decides at a heal point: heal the live state, or give up and let the exception propagate. */
public sealed interface AgentDecision {

    /** HealCore code to run in the paused frame, and how to resume afterwards. */
    record Heal(String code, Resume resume) implements AgentDecision {
        public Heal {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(resume, "resume");
        }
    }

    /** Give up on this crash; the reason is recorded. */
    record Reraise(String reason) implements AgentDecision {
        public Reraise {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
