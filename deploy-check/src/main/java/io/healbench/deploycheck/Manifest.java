package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** One object of a rendering, as the YAML tree kustomize wrote. */
public record Manifest(JsonNode node) {

    public String apiVersion() {
        return node.path("apiVersion").asText("");
    }

    /** The API group: {@code apps} for {@code apps/v1}, empty for the core group's {@code v1}. */
    public String group() {
        String apiVersion = apiVersion();
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    public String kind() {
        return node.path("kind").asText("");
    }

    public String name() {
        return node.path("metadata").path("name").asText("");
    }

    /** The namespace kustomize set, or empty for a cluster-scoped object or a rendering without one. */
    public String namespace() {
        return node.path("metadata").path("namespace").asText("");
    }

    public Map<String, String> labels() {
        return strings(node.path("metadata").path("labels"));
    }

    public JsonNode spec() {
        return node.path("spec");
    }

    public boolean is(String group, String kind) {
        return group().equals(group) && kind().equals(kind);
    }

    /** How findings name the object: {@code Deployment/bench-service}. */
    public String id() {
        return kind() + "/" + name();
    }

    @Override
    public String toString() {
        return id();
    }

    /** A YAML mapping of strings (labels, selectors) as a map; anything else as an empty one. */
    static Map<String, String> strings(JsonNode mapping) {
        Map<String, String> values = new LinkedHashMap<>();
        if (mapping != null && mapping.isObject()) {
            mapping.properties().forEach(entry -> values.put(entry.getKey(), entry.getValue().asText()));
        }
        return values;
    }
}
