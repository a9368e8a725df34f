package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** One tool call of a rendered reply; {@code arguments} is the JSON object the model "chose". */
record StubToolCall(String name, ObjectNode arguments) {
}
