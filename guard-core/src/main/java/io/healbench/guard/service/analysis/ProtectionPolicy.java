package io.healbench.guard.service.analysis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The protected operations (dataset/policies/*.yaml as JSON, default merged with the subject's): which calls are
 * sinks, their key input, also-checked inputs and `when` filter, and the declared check conditions.
 */
final class ProtectionPolicy {

    /** One protected operation; {@code index} is an Integer, "receiver", "last", or null. */
    record Operation(String op, String category, String arg, Object index, List<String> alsoCheck, When when) {

        boolean hasKeyInput() {
            return arg != null || index != null;
        }

        String methodName() {
            return op.substring(op.lastIndexOf('.') + 1);
        }

        String owner() {
            int dot = op.lastIndexOf('.');
            return dot < 0 ? "" : op.substring(0, dot);
        }
    }

    /**
     * An operation's filter: {@code <param> contains any of <tokens>} or {@code <param> & (<FLAG> | ...)};
     * {@code understood} false for any other form, which then applies to every call.
     */
    record When(String param, List<String> tokens, Set<String> flags, boolean understood) {}

    /** A declared check condition: what it reads ({@link CheckText}'s canonical form), optionally per module. */
    record Check(String check, String module, String category) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CONTAINS = Pattern.compile("\\s*(\\w+)\\s+contains\\s+any\\s+of\\s+(.+?)\\s*");
    private static final Pattern FLAGS = Pattern.compile("\\s*(\\w+)\\s*&\\s*\\(\\s*([\\w\\s|]+?)\\s*\\)\\s*");
    /** Modules the policy's stdlib operations live in: an op under one of these is a function, else a method. */
    private static final Set<String> MODULES = Set.of("os", "os.path", "shutil", "subprocess", "io", "socket", "urllib.request",
            "sqlite3", "pathlib", "http.client", "gzip", "plistlib", "zipapp", "fileinput", "timeit", "configparser",
            "tempfile", "json", "pickle", "builtins", "posix", "ftplib", "smtplib", "telnetlib", "urllib", "asyncio");
    private static final Map<String, List<String>> SIGNATURES = loadSignatures();

    private final List<Operation> operations;
    private final Map<String, List<Operation>> byOp = new HashMap<>();
    private final List<Check> checks;

    private ProtectionPolicy(List<Operation> operations, List<Check> checks) {
        this.operations = List.copyOf(operations);
        this.checks = List.copyOf(checks);
        for (Operation operation : operations) {
            byOp.computeIfAbsent(normalized(operation.op()), k -> new ArrayList<>()).add(operation);
        }
    }

    static ProtectionPolicy parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json == null || json.isBlank() ? "{}" : json);
        } catch (JsonProcessingException e) {
            throw new AnalysisInputException("policy: not JSON: " + e.getOriginalMessage());
        }
        JsonNode categories = root.path("operations");
        if (!categories.isObject()) {
            throw new AnalysisInputException("policy: 'operations' must be a mapping of category -> list of entries");
        }
        List<Operation> operations = new ArrayList<>();
        List<Check> checks = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = categories.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> category = it.next();
            if (!category.getValue().isArray()) {
                throw new AnalysisInputException("policy: operations." + category.getKey() + " must be a list");
            }
            int position = 0;
            for (JsonNode entry : category.getValue()) {
                String where = "policy: operations." + category.getKey() + "[" + position++ + "]";
                if (entry.hasNonNull("check")) {
                    checks.add(new Check(CheckText.ofPolicy(entry.get("check").asText(), where), entry.path("module").asText(null),
                            category.getKey()));
                } else if (entry.hasNonNull("op")) {
                    operations.add(operation(entry, category.getKey(), where));
                } else {
                    throw new AnalysisInputException(where + ": needs 'op' or 'check'");
                }
            }
        }
        return new ProtectionPolicy(operations, checks);
    }

    private static Operation operation(JsonNode entry, String category, String where) {
        JsonNode index = entry.get("index");
        Object key;
        if (index == null || index.isNull()) {
            key = null;
        } else if (index.isInt()) {
            key = index.asInt();
        } else if (index.isTextual() && (index.asText().equals("receiver") || index.asText().equals("last"))) {
            key = index.asText();
        } else {
            throw new AnalysisInputException(where + ": index must be an integer, receiver, last or null, got " + index);
        }
        List<String> also = new ArrayList<>();
        JsonNode alsoCheck = entry.get("also_check");
        if (alsoCheck != null && alsoCheck.isTextual()) {
            also.add(alsoCheck.asText());
        } else if (alsoCheck != null && alsoCheck.isArray()) {
            alsoCheck.forEach(n -> also.add(n.asText()));
        }
        JsonNode arg = entry.get("arg");
        return new Operation(entry.get("op").asText(), category, arg == null || arg.isNull() ? null : arg.asText(), key,
                List.copyOf(also), when(entry.path("when").asText(null)));
    }

    private static When when(String text) {
        if (text == null) {
            return null;
        }
        Matcher contains = CONTAINS.matcher(text);
        if (contains.matches()) {
            return new When(contains.group(1), List.of(contains.group(2).trim().split("\\s+")), Set.of(), true);
        }
        Matcher flags = FLAGS.matcher(text);
        if (flags.matches()) {
            Set<String> names = new LinkedHashSet<>();
            for (String name : flags.group(2).split("\\|")) {
                names.add(name.trim());
            }
            return new When(flags.group(1), List.of(), Set.copyOf(names), true);
        }
        return new When("", List.of(), Set.of(), false);
    }

    /** {@code io.open} is the builtin {@code open}. */
    private static String normalized(String op) {
        return op.equals("io.open") || op.equals("builtins.open") ? "open" : op;
    }

    List<Operation> operations() {
        return operations;
    }

    List<Check> checks() {
        return checks;
    }

    /** The operations named exactly so (a function, or {@code Class.method} of a known receiver type). */
    List<Operation> named(String qualified) {
        return byOp.getOrDefault(normalized(qualified), List.of());
    }

    /** Method operations outside the project with this method name: what a call on an unknown receiver may be. */
    List<Operation> methodsNamed(String method, ProjectIndex index) {
        List<Operation> found = new ArrayList<>();
        for (Operation operation : operations) {
            String owner = operation.owner();
            if (operation.methodName().equals(method) && !method.startsWith("__") && !owner.isEmpty()
                    && !MODULES.contains(owner) && !index.isProject(owner)) {
                found.add(operation);
            }
        }
        return found;
    }

    /** Positional parameter names (not counting self) of a stdlib operation, or null when not known. */
    static List<String> signature(String op) {
        return SIGNATURES.get(normalized(op));
    }

    private static Map<String, List<String>> loadSignatures() {
        Map<String, List<String>> table = new HashMap<>();
        InputStream in = ProtectionPolicy.class.getResourceAsStream("/analysis/operation-signatures.txt");
        if (in == null) {
            throw new IllegalStateException("analysis/operation-signatures.txt is missing from the classpath");
        }
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.trim().split("\\s+");
                table.put(normalized(parts[0]), List.of(Arrays.copyOfRange(parts, 1, parts.length)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.copyOf(table);
    }
}
