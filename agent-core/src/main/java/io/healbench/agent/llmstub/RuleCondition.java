package io.healbench.agent.llmstub;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's {@code when:}; every condition given must hold, and an absent one (null) holds always.
 * {@code lastToolResultMatches} fails a request that carries no tool result.
 */
record RuleCondition(String contains, Pattern matches, Integer turn, Pattern lastToolResultMatches, Boolean tools) {

    static final RuleCondition ALWAYS = new RuleCondition(null, null, null, null, null);

    /** The regex whose groups {@code {{match:N}}} refers to: {@code matches} when given, else {@code last_tool_result_matches}. */
    Pattern groupSource() {
        return matches != null ? matches : lastToolResultMatches;
    }

    /** Empty when the condition does not hold; otherwise the groups of {@link #groupSource()} (group 0 first), none without a regex. */
    Optional<List<String>> holds(StubConversation conversation) {
        if (contains != null && !conversation.text().contains(contains)) {
            return Optional.empty();
        }
        if (turn != null && conversation.turn() != turn) {
            return Optional.empty();
        }
        if (tools != null && conversation.offersTools() != tools) {
            return Optional.empty();
        }
        List<String> groups = List.of();
        if (matches != null) {
            Matcher found = matches.matcher(conversation.text());
            if (!found.find()) {
                return Optional.empty();
            }
            groups = groups(found);
        }
        if (lastToolResultMatches != null) {
            Optional<String> result = conversation.lastToolResult();
            if (result.isEmpty()) {
                return Optional.empty();
            }
            Matcher found = lastToolResultMatches.matcher(result.get());
            if (!found.find()) {
                return Optional.empty();
            }
            if (matches == null) {
                groups = groups(found);
            }
        }
        return Optional.of(groups);
    }

    /** A group that took no part in the match reads as the empty string. */
    private static List<String> groups(Matcher found) {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i <= found.groupCount(); i++) {
            String group = found.group(i);
            groups.add(group == null ? "" : group);
        }
        return groups;
    }
}
