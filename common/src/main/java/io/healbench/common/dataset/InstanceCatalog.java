package io.healbench.common.dataset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The instances under {@code <dataset>/instances/<id>/instance.yaml}, loaded and checked once.
 * A malformed instance fails loading with an {@link InstanceFormatException} naming file and field.
 */
public final class InstanceCatalog {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String ID_PATTERN = "[a-z0-9][a-z0-9._-]{2,120}";

    private final Map<String, Instance> byId;

    private InstanceCatalog(Map<String, Instance> byId) {
        this.byId = Collections.unmodifiableMap(byId);
    }

    /** Loads every instance of the dataset directory. */
    public static InstanceCatalog load(Path datasetDir) {
        Path instancesDir = datasetDir.resolve("instances");
        Map<String, Instance> byId = new TreeMap<>();
        if (!Files.isDirectory(instancesDir)) {
            return new InstanceCatalog(byId);
        }
        try (Stream<Path> dirs = Files.list(instancesDir)) {
            for (Path dir : dirs.sorted().toList()) {
                Path yaml = dir.resolve("instance.yaml");
                if (Files.isRegularFile(yaml)) {
                    Instance instance = parse(yaml);
                    if (byId.putIfAbsent(instance.id(), instance) != null) {
                        throw new InstanceFormatException(yaml, "id", "duplicates another instance: " + instance.id());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + instancesDir, e);
        }
        return new InstanceCatalog(byId);
    }

    /** Parses and checks one {@code instance.yaml}. */
    public static Instance parse(Path yaml) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml.toFile());
        } catch (IOException e) {
            throw new InstanceFormatException(yaml, "(document)", "is not valid YAML: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new InstanceFormatException(yaml, "(document)", "must be a mapping");
        }
        Path dir = yaml.getParent().toAbsolutePath().normalize();
        String id = text(yaml, root, "id", true);
        if (!id.matches(ID_PATTERN)) {
            throw new InstanceFormatException(yaml, "id", "must match " + ID_PATTERN + ", got '" + id + "'");
        }
        if (!dir.getFileName().toString().equals(id)) {
            throw new InstanceFormatException(yaml, "id", "must equal the directory name '" + dir.getFileName() + "'");
        }
        Subject subject;
        try {
            subject = Subject.parse(text(yaml, root, "subject", true));
        } catch (IllegalArgumentException e) {
            throw new InstanceFormatException(yaml, "subject", e.getMessage());
        }
        String python = text(yaml, root, "python", true);
        if (!python.matches("3\\.\\d+\\.\\d+")) {
            throw new InstanceFormatException(yaml, "python", "must be an exact version like 3.11.7, got '" + python + "'");
        }
        List<String> roots = new ArrayList<>();
        JsonNode rootsNode = root.get("project_roots");
        if (rootsNode == null || !rootsNode.isArray() || rootsNode.isEmpty()) {
            throw new InstanceFormatException(yaml, "project_roots", "must be a non-empty list");
        }
        for (JsonNode r : rootsNode) {
            String rel = r.asText("");
            if (rel.isBlank() || rel.startsWith("/") || rel.contains("..")) {
                throw new InstanceFormatException(yaml, "project_roots", "entries must be relative paths inside the subject, got '" + rel + "'");
            }
            roots.add(rel);
        }
        String bugPatch = text(yaml, root, "bug_patch", false);
        String fixPatch = text(yaml, root, "fix_patch", false);
        for (String[] patch : new String[][] {{"bug_patch", bugPatch}, {"fix_patch", fixPatch}}) {
            if (patch[1] != null && !Files.isRegularFile(dir.resolve(patch[1]).normalize())) {
                throw new InstanceFormatException(yaml, patch[0], "names a missing file: " + patch[1]);
            }
        }
        if (bugPatch == null && fixPatch == null) {
            throw new InstanceFormatException(yaml, "bug_patch", "or fix_patch is required: BUGGY and REFERENCE would be the same code");
        }
        String targetTest = text(yaml, root, "target_test", true);
        if (!targetTest.contains("::")) {
            throw new InstanceFormatException(yaml, "target_test", "must be a pytest node id (path::name), got '" + targetTest + "'");
        }
        JsonNode crash = root.get("expected_crash");
        if (crash == null || !crash.isObject()) {
            throw new InstanceFormatException(yaml, "expected_crash", "must be a mapping with type, file, function, line");
        }
        Instance.ExpectedCrash expected = new Instance.ExpectedCrash(
                text(yaml, crash, "expected_crash.type", "type"),
                text(yaml, crash, "expected_crash.file", "file"),
                text(yaml, crash, "expected_crash.function", "function"),
                crash.path("line").asInt(0));
        if (expected.line() <= 0) {
            throw new InstanceFormatException(yaml, "expected_crash.line", "must be a positive line number");
        }
        String policy = Optional.ofNullable(text(yaml, root, "policy", false)).orElse("default");
        return new Instance(id, subject, python, List.copyOf(roots), bugPatch, fixPatch, targetTest, expected, policy,
                stringMap(yaml, root, "provenance"), stringMap(yaml, root, "determinism"), dir, digest(dir));
    }

    public Optional<Instance> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public List<Instance> all() {
        return List.copyOf(byId.values());
    }

    private static String text(Path yaml, JsonNode node, String field, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new InstanceFormatException(yaml, field, "is required");
            }
            return null;
        }
        if (!value.isValueNode() || value.asText().isBlank()) {
            throw new InstanceFormatException(yaml, field, "must be a non-empty scalar");
        }
        return value.asText();
    }

    private static String text(Path yaml, JsonNode node, String qualified, String key) {
        JsonNode value = node.get(key);
        if (value == null || !value.isValueNode() || value.asText().isBlank()) {
            throw new InstanceFormatException(yaml, qualified, "is required");
        }
        return value.asText();
    }

    private static Map<String, String> stringMap(Path yaml, JsonNode root, String field) {
        JsonNode node = root.get(field);
        Map<String, String> map = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return map;
        }
        if (!node.isObject()) {
            throw new InstanceFormatException(yaml, field, "must be a mapping");
        }
        node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        return Collections.unmodifiableMap(map);
    }

    /** SHA-256 over the instance directory's files (names and contents): keys cached reference runs. */
    static String digest(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                sha.update(dir.relativize(file).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(Files.readAllBytes(file));
                sha.update((byte) 0);
            }
            return "sha256:" + HexFormat.of().formatHex(sha.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot digest " + dir, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
