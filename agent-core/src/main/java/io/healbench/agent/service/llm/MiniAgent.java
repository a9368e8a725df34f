package io.healbench.agent.service.llm;

import jakarta.inject.Singleton;

/**
 * {@code mini}: the same loop with text actions, one fenced block per reply, for models without tool calling (the
 * analogue of mini-SWE-agent's bash-only baseline).
 */
@Singleton
public class MiniAgent extends LlmHealingAgent {

    public static final String NAME = "mini";

    public MiniAgent(ConfiguredBackbones backbones, RunSpend runSpend) {
        super(Profile.loop(NAME, new FencedTextActions()), backbones, runSpend);
    }
}
