package io.healbench.common.dataset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code dataset/schema/instance.schema.json} (JSON Schema 2020-12), the same file hbdata checks
 * instance.yaml against. A dataset directory without that file (a test fixture) is checked against
 * the copy this build was made with, a resource of this module.
 */
final class InstanceSchema {

    /** One violation: the field as a dotted path ({@code expected_crash.line}) and what is wrong with it. */
    record Violation(String field, String problem) {}

    static final String RELATIVE_PATH = "schema/instance.schema.json";
    private static final String BUNDLED = "/healbench/dataset/instance.schema.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    /** Compiled schemas by file and modification time, so an edited schema is read again. */
    private static final Map<String, InstanceSchema> LOADED = new ConcurrentHashMap<>();

    private final JsonNode document;
    private final Schema schema;

    private InstanceSchema(JsonNode document) {
        this.document = document;
        this.schema = REGISTRY.getSchema(document);
    }

    /** The schema of the dataset at {@code datasetDir}, or the bundled one when it has none. */
    static InstanceSchema of(Path datasetDir) {
        Path file = datasetDir == null ? null : datasetDir.resolve(RELATIVE_PATH);
        try {
            if (file != null && Files.isRegularFile(file)) {
                String key = file.toAbsolutePath().normalize() + "@" + Files.getLastModifiedTime(file).toMillis();
                return LOADED.computeIfAbsent(key, k -> read(file));
            }
            return LOADED.computeIfAbsent(BUNDLED, k -> bundled());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the instance schema " + file, e);
        }
    }

    private static InstanceSchema read(Path file) {
        try {
            return new InstanceSchema(JSON.readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the instance schema " + file, e);
        }
    }

    private static InstanceSchema bundled() {
        try (InputStream in = InstanceSchema.class.getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new IllegalStateException("the build lacks the resource " + BUNDLED);
            }
            return new InstanceSchema(JSON.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the bundled instance schema", e);
        }
    }

    /**
     * Every violation, most specific first: a field's own problem, then a combination that failed (exactly one of
     * bug_patch or fix_patch), then what the combination's alternatives would have needed.
     */
    List<Violation> validate(JsonNode instance) {
        return schema.validate(instance).stream()
                .sorted(Comparator.comparingInt(InstanceSchema::rank))
                .map(this::describe)
                .toList();
    }

    private static int rank(Error error) {
        String keyword = error.getKeyword();
        if (keyword.equals("oneOf") || keyword.equals("anyOf") || keyword.equals("allOf") || keyword.equals("not")) {
            return 1;
        }
        NodePath location = error.getSchemaLocation().getFragment();
        for (int i = 0; i < location.getNameCount(); i++) {
            if ("oneOf".equals(location.getName(i)) || "anyOf".equals(location.getName(i))) {
                return 2;
            }
        }
        return 0;
    }

    private Violation describe(Error error) {
        String at = field(error.getInstanceLocation());
        JsonNode value = error.getInstanceNode();
        JsonNode rule = schemaNodeOf(error);
        String because = condition(error, at.equals("(document)") ? "" : at + ".");
        return switch (error.getKeyword()) {
            case "required" -> new Violation(join(at, error.getProperty()), "is required" + because);
            case "additionalProperties" -> new Violation(join(at, error.getProperty()), "is not a known field");
            case "propertyNames" -> new Violation(join(at, error.getProperty()), "is not a valid name here: names must match "
                    + rule.path("propertyNames").path("pattern").asText());
            case "type" -> new Violation(at, "must be " + article(rule.path("type").asText())
                    + (rule.has("minimum") ? " >= " + rule.get("minimum").asText() : "") + ", got " + show(value));
            case "minimum" -> new Violation(at, "must be >= " + rule.get("minimum").asText() + ", got " + show(value));
            case "pattern" -> new Violation(at, show(value) + " does not match the pattern " + rule.path("pattern").asText());
            case "enum" -> new Violation(at, "must be one of " + join(rule.path("enum")) + ", got " + show(value));
            case "oneOf" -> at.equals("(document)")
                    ? new Violation(alternatives(rule), "exactly one of them is required")
                    : new Violation(at, "must match exactly one of " + alternatives(rule));
            default -> new Violation(at, strip(error.getMessage()) + because);
        };
    }

    /** {@code expected_crash.line} for the instance location {@code $.expected_crash.line}; the document itself otherwise. */
    private static String field(NodePath location) {
        StringBuilder dotted = new StringBuilder();
        for (int i = 0; i < location.getNameCount(); i++) {
            Object element = location.getElement(i);
            if (element instanceof Integer index) {
                dotted.append('[').append(index).append(']');
            } else {
                dotted.append(dotted.isEmpty() ? "" : ".").append(element);
            }
        }
        return dotted.isEmpty() ? "(document)" : dotted.toString();
    }

    private static String join(String parent, String property) {
        if (property == null) {
            return parent;
        }
        return parent.equals("(document)") ? property : parent + "." + property;
    }

    /** The schema object that holds the failing keyword, e.g. {@code {"type": "integer", "minimum": 1}}. */
    private JsonNode schemaNodeOf(Error error) {
        NodePath keyword = error.getSchemaLocation().getFragment();
        return keyword.getNameCount() == 0 ? document : at(keyword.getParent());
    }

    private JsonNode at(NodePath path) {
        JsonNode node = document;
        for (int i = 0; i < path.getNameCount(); i++) {
            Object element = path.getElement(i);
            node = element instanceof Integer index ? node.path(index) : node.path(element.toString());
        }
        return node;
    }

    /**
     * For a keyword under {@code if}/{@code then}: {@code  (because provenance.kind is 'real-bug')}; {@code prefix} is the
     * dotted path of the object the condition tests.
     */
    private String condition(Error error, String prefix) {
        NodePath location = error.getSchemaLocation().getFragment();
        for (int i = location.getNameCount() - 1; i >= 0; i--) {
            if ("then".equals(location.getName(i))) {
                NodePath condition = location;
                while (condition.getNameCount() > i) {
                    condition = condition.getParent();
                }
                String described = constOf(at(condition.append("if")), prefix);
                return described.isEmpty() ? "" : " (because " + described + ")";
            }
        }
        return "";
    }

    /** The first {@code const} an {@code if} condition tests, as {@code provenance.kind is 'real-bug'}. */
    private static String constOf(JsonNode condition, String prefix) {
        Iterator<Map.Entry<String, JsonNode>> properties = condition.path("properties").fields();
        while (properties.hasNext()) {
            Map.Entry<String, JsonNode> property = properties.next();
            if (property.getValue().has("const")) {
                return prefix + property.getKey() + " is " + show(property.getValue().get("const"));
            }
            String nested = constOf(property.getValue(), prefix + property.getKey() + ".");
            if (!nested.isEmpty()) {
                return nested;
            }
        }
        return "";
    }

    /** {@code bug_patch or fix_patch} for a {@code oneOf} of bare {@code required} lists. */
    private static String alternatives(JsonNode oneOf) {
        List<String> names = new ArrayList<>();
        oneOf.path("oneOf").forEach(alternative -> names.add(join(alternative.path("required"))));
        return String.join(" or ", names);
    }

    private static String join(JsonNode array) {
        List<String> items = new ArrayList<>();
        array.forEach(item -> items.add(item.asText()));
        return String.join(", ", items);
    }

    private static String article(String type) {
        return switch (type) {
            case "object" -> "a mapping";
            case "array" -> "a list";
            case "string" -> "a string";
            case "integer" -> "an integer";
            case "number" -> "a number";
            case "boolean" -> "true or false";
            default -> type;
        };
    }

    private static String show(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "nothing";
        }
        if (value.isTextual()) {
            return "'" + value.asText() + "'";
        }
        String text = value.toString();
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    /** The library's message without its leading {@code $.path: }, which the field already says. */
    private static String strip(String message) {
        int colon = message.indexOf(": ");
        return message.startsWith("$") && colon > 0 ? message.substring(colon + 2) : message;
    }
}
