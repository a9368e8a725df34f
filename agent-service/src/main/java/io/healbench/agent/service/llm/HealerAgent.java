package io.healbench.agent.service.llm;

import jakarta.inject.Singleton;
import java.util.List;

/**
 * {@code healer}: the reference's dedicated single-shot method. One prompt carries the whole crash context; the model
 * answers with a heal or a reraise (no probing, no exploring), with one repair retry on a malformed answer
 * ({@link Limits#forAgent}).
 */
@Singleton
public class HealerAgent extends LlmHealingAgent {

    public static final String NAME = "healer";

    public HealerAgent(ConfiguredBackbones backbones, RunSpend runSpend) {
        super(new Profile(NAME, List.of(ActionCatalog.HEAL, ActionCatalog.RERAISE), new FencedTextActions(),
                "system-healer"), backbones::catalog, runSpend, System::getenv);
    }
}
