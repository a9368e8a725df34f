package io.healbench.agent.llmstub;

import java.util.List;

/** What templates are filled from: the last tool result (trimmed, empty when there is none), the turn, the rule's regex groups. */
record TemplateValues(String lastToolResult, int turn, List<String> groups) {

    TemplateValues {
        groups = List.copyOf(groups);
    }
}
