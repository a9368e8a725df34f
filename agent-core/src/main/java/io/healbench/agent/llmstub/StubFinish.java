package io.healbench.agent.llmstub;

/** Why a scripted reply ends; each protocol spells it its own way. */
enum StubFinish {
    STOP,
    LENGTH,
    TOOL_CALLS
}
