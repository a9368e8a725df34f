package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * deploy/k8s/policy-exceptions.yaml: the containers that may differ from a pod rule, the rule, and why. Records
 * which exceptions a check used, so that one nobody needs any more can be reported.
 */
public final class PolicyExceptions {

    public static final String RUN_AS_ROOT = "run-as-root";
    public static final String SECCOMP_UNCONFINED = "seccomp-unconfined";
    public static final String APPARMOR_UNCONFINED = "apparmor-unconfined";
    public static final String WRITABLE_ROOT_FILESYSTEM = "writable-root-filesystem";
    public static final String ADDED_CAPABILITIES = "added-capabilities";
    private static final Set<String> RULES =
            Set.of(RUN_AS_ROOT, SECCOMP_UNCONFINED, APPARMOR_UNCONFINED, WRITABLE_ROOT_FILESYSTEM, ADDED_CAPABILITIES);

    record Entry(String workload, String container, Set<String> rules, Set<String> capabilities, String why) {
        String key(String rule) {
            return workload + "/" + container + ":" + rule;
        }
    }

    private final List<Entry> exceptions;
    private final Set<String> used = new HashSet<>();

    private PolicyExceptions(List<Entry> exceptions) {
        this.exceptions = exceptions;
    }

    public static PolicyExceptions none() {
        return new PolicyExceptions(List.of());
    }

    public static PolicyExceptions read(Path file) {
        JsonNode root = Manifests.tree(file);
        List<Entry> exceptions = new ArrayList<>();
        for (JsonNode entry : PodTemplate.list(root.path("exceptions"))) {
            Set<String> rules = strings(entry.path("rules"));
            for (String rule : rules) {
                if (!RULES.contains(rule)) {
                    throw new IllegalArgumentException(file + ": unknown rule " + rule + "; the rules are " + RULES);
                }
            }
            String why = entry.path("why").asText("").strip();
            if (why.isEmpty()) {
                throw new IllegalArgumentException(file + ": the exception for " + entry.path("workload").asText()
                        + " says no why");
            }
            exceptions.add(new Entry(entry.path("workload").asText(), entry.path("container").asText(), rules,
                    strings(entry.path("capabilities")), why));
        }
        return new PolicyExceptions(exceptions);
    }

    /** Whether {@code container} of {@code workload} may break {@code rule}; remembers the use. */
    boolean allows(String workload, String container, String rule) {
        for (Entry exception : exceptions) {
            if (exception.workload().equals(workload) && exception.container().equals(container)
                    && exception.rules().contains(rule)) {
                used.add(exception.key(rule));
                return true;
            }
        }
        return false;
    }

    /** The capabilities {@code container} of {@code workload} may add (an empty set without an exception). */
    Set<String> capabilities(String workload, String container) {
        return allows(workload, container, ADDED_CAPABILITIES)
                ? exceptions.stream()
                        .filter(e -> e.workload().equals(workload) && e.container().equals(container))
                        .findFirst().orElseThrow().capabilities()
                : Set.of();
    }

    /** Exceptions (as {@code workload/container:rule}) that no check of this instance has needed. */
    public Set<String> unused() {
        Set<String> unused = new LinkedHashSet<>();
        for (Entry exception : exceptions) {
            for (String rule : exception.rules()) {
                if (!used.contains(exception.key(rule))) {
                    unused.add(exception.key(rule));
                }
            }
        }
        return unused;
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> values = new LinkedHashSet<>();
        PodTemplate.list(array).forEach(value -> values.add(value.asText()));
        return values;
    }
}
