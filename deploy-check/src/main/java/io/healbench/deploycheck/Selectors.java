package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Label selectors (matchLabels and matchExpressions) as the API evaluates them. */
final class Selectors {

    private Selectors() {
    }

    /** An empty selector matches everything; an absent one (a missing node) too, as podSelector: {} does. */
    static boolean matches(JsonNode selector, Map<String, String> labels) {
        for (Map.Entry<String, String> required : Manifest.strings(selector.path("matchLabels")).entrySet()) {
            if (!required.getValue().equals(labels.get(required.getKey()))) {
                return false;
            }
        }
        for (JsonNode expression : PodTemplate.list(selector.path("matchExpressions"))) {
            String key = expression.path("key").asText();
            Set<String> values = new HashSet<>();
            PodTemplate.list(expression.path("values")).forEach(value -> values.add(value.asText()));
            boolean matches = switch (expression.path("operator").asText()) {
                case "In" -> labels.containsKey(key) && values.contains(labels.get(key));
                case "NotIn" -> !labels.containsKey(key) || !values.contains(labels.get(key));
                case "Exists" -> labels.containsKey(key);
                case "DoesNotExist" -> !labels.containsKey(key);
                default -> throw new IllegalArgumentException("unknown selector operator " + expression.path("operator"));
            };
            if (!matches) {
                return false;
            }
        }
        return true;
    }
}
