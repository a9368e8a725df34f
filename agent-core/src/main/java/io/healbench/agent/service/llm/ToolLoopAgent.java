package io.healbench.agent.service.llm;

import jakarta.inject.Singleton;

/** {@code toolloop}: the loop with native tool calls over the whole action surface. */
@Singleton
public class ToolLoopAgent extends LlmHealingAgent {

    public static final String NAME = "toolloop";

    public ToolLoopAgent(ConfiguredBackbones backbones, RunSpend runSpend) {
        super(Profile.loop(NAME, new NativeToolCalls()), backbones, runSpend);
    }
}
