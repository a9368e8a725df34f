package io.healbench.agent.llmstub;

/** One entry of a script's {@code rules:}. */
record ScriptRule(RuleCondition when, ReplyTemplate reply) {
}
