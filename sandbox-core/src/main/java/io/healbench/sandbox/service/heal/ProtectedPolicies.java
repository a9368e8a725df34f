package io.healbench.sandbox.service.heal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protected-operation policies (dataset/policies/*.yaml, docs/dataset.md): a subject's policy merged onto
 * default.yaml (default's entries first, per category), as the JSON guard-service and healrt read.
 */
@ApplicationScoped
public class ProtectedPolicies {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String POLICY_NAME = "[a-z0-9][a-z0-9._-]{0,80}";

    private final Path directory;
    private final Map<String, String> merged = new ConcurrentHashMap<>();

    @Inject
    public ProtectedPolicies(SandboxConfig config, SandboxPaths paths) {
        this(config.policiesDir().orElse(paths.datasetDir().resolve("policies")));
    }

    ProtectedPolicies(Path directory) {
        this.directory = directory.toAbsolutePath().normalize();
    }

    /** The merged policy as JSON; throws FAILED_PRECONDITION when a policy file is missing or malformed. */
    public String mergedJson(String name) {
        String policy = name == null || name.isEmpty() ? "default" : name;
        if (!policy.matches(POLICY_NAME)) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "POLICY_INVALID", "policy name '" + policy + "' is not a policy file name");
        }
        return merged.computeIfAbsent(policy, this::merge);
    }

    private String merge(String name) {
        ObjectNode result = read("default").deepCopy();
        if (!name.equals("default")) {
            JsonNode subject = read(name);
            result.put("id", subject.path("id").asText(name));
            ObjectNode operations = (ObjectNode) result.get("operations");
            for (Iterator<Map.Entry<String, JsonNode>> it = subject.path("operations").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> category = it.next();
                if (!category.getValue().isArray()) {
                    throw invalid(name, "operations." + category.getKey() + " must be a list");
                }
                JsonNode existing = operations.get(category.getKey());
                ArrayNode entries = existing instanceof ArrayNode list ? list : operations.putArray(category.getKey());
                category.getValue().forEach(entries::add);
            }
        }
        try {
            return JSON.writeValueAsString(result);
        } catch (IOException e) {
            throw invalid(name, e.getMessage());
        }
    }

    private JsonNode read(String name) {
        Path file = directory.resolve(name + ".yaml");
        if (!Files.isRegularFile(file)) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "POLICY_MISSING", "no policy file " + file);
        }
        try {
            JsonNode policy = YAML.readTree(file.toFile());
            if (policy == null || !policy.path("operations").isObject()) {
                throw invalid(name, "'operations' must be a mapping of category -> list of entries");
            }
            return policy;
        } catch (IOException e) {
            throw invalid(name, e.getMessage());
        }
    }

    private SandboxException invalid(String name, String problem) {
        return new SandboxException(Kind.FAILED_PRECONDITION, "POLICY_INVALID", directory.resolve(name + ".yaml") + ": " + problem);
    }
}
