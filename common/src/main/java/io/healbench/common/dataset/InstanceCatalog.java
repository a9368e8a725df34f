package io.healbench.common.dataset;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The instances under {@code <dataset>/instances/<id>/instance.yaml}, loaded and checked once: against
 * {@code <dataset>/schema/instance.schema.json}, then for what a schema cannot say (names that must agree
 * with each other or with files on disk). A malformed instance fails loading with an
 * {@link InstanceFormatException} naming file, field and problem.
 */
public final class InstanceCatalog {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    /** What a test run or an editor may leave in an instance directory; not part of the instance (as in hbdata). */
    private static final Set<String> DIGEST_IGNORED_DIRS = Set.of("__pycache__", ".pytest_cache");
    private static final List<String> DIGEST_IGNORED_SUFFIXES = List.of(".pyc", "~", ".swp");

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
        InstanceSchema schema = InstanceSchema.of(datasetDir);
        Map<String, String> codebases = declaredCodebases(datasetDir);
        try (Stream<Path> dirs = Files.list(instancesDir)) {
            for (Path dir : dirs.sorted().toList()) {
                Path yaml = dir.resolve("instance.yaml");
                if (Files.isRegularFile(yaml)) {
                    Instance instance = parse(yaml, schema, codebases);
                    byId.put(instance.id(), instance);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + instancesDir, e);
        }
        return new InstanceCatalog(byId);
    }

    /** Parses and checks one {@code instance.yaml}; its dataset is the directory above {@code instances/}. */
    public static Instance parse(Path yaml) {
        Path datasetDir = datasetOf(yaml);
        return parse(yaml, InstanceSchema.of(datasetDir), declaredCodebases(datasetDir));
    }

    private static Instance parse(Path yaml, InstanceSchema schema, Map<String, String> codebases) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml.toFile());
        } catch (IOException e) {
            throw new InstanceFormatException(yaml, "(document)", "is not valid YAML: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new InstanceFormatException(yaml, "(document)", "must be a mapping");
        }
        List<InstanceSchema.Violation> violations = schema.validate(root);
        if (!violations.isEmpty()) {
            InstanceSchema.Violation first = violations.get(0);
            String more = violations.size() > 1 ? " (and " + (violations.size() - 1) + " more problem(s))" : "";
            throw new InstanceFormatException(yaml, first.field(), first.problem() + more);
        }
        Path dir = yaml.toAbsolutePath().getParent().normalize();
        Instance instance = build(root, dir, codebases);
        checkAgreement(yaml, instance);
        return instance;
    }

    /** Reads a schema-valid document: every field has the type the schema demands. */
    private static Instance build(JsonNode root, Path dir, Map<String, String> codebases) {
        String subjectText = root.get("subject").asText();
        Subject subject = Subject.parse(subjectText);
        JsonNode crash = root.get("expected_crash");
        return new Instance(
                root.get("id").asText(),
                subject,
                codebases.getOrDefault(subjectText, subject.derivedCodebase()),
                root.get("python").asText(),
                List.copyOf(strings(root.get("project_roots"))),
                optional(root, "bug_patch"),
                optional(root, "fix_patch"),
                root.get("target_test").asText(),
                Optional.ofNullable(optional(root, "target_test_origin")).orElse(Instance.ORIGIN_SUBJECT),
                new Instance.ExpectedCrash(crash.get("type").asText(), crash.get("file").asText(),
                        crash.get("function").asText(), crash.get("line").asInt()),
                root.get("policy").asText(),
                stringMap(root.get("provenance")),
                stringMap(root.get("determinism")),
                dir,
                digest(dir));
    }

    /** What the schema cannot say; hbdata's instances.py checks the same. */
    private static void checkAgreement(Path yaml, Instance instance) {
        Path dir = instance.directory();
        if (!dir.getFileName().toString().equals(instance.id())) {
            throw new InstanceFormatException(yaml, "id", "must equal the directory name '" + dir.getFileName() + "', got '" + instance.id() + "'");
        }
        for (String[] patch : new String[][] {{"bug_patch", instance.bugPatch()}, {"fix_patch", instance.fixPatch()}}) {
            if (patch[1] != null && !Files.isRegularFile(instance.file(patch[1]))) {
                throw new InstanceFormatException(yaml, patch[0], "no such file '" + patch[1] + "' in the instance directory");
            }
        }
        String testFile = instance.targetTest().substring(0, instance.targetTest().indexOf("::"));
        if (instance.targetTestOrigin().equals(Instance.ORIGIN_INSTANCE) && !Files.isRegularFile(instance.file(testFile))) {
            throw new InstanceFormatException(yaml, "target_test", "no such file '" + testFile + "' in the instance directory");
        }
        Subject subject = instance.subject();
        if (subject.kind().equals(Subject.CPYTHON_STDLIB) && !subject.version().equals(instance.python())) {
            throw new InstanceFormatException(yaml, "python", "a " + Subject.CPYTHON_STDLIB + " subject runs on its own interpreter "
                    + subject.version() + ", got '" + instance.python() + "'");
        }
        String crashFile = instance.expectedCrash().file();
        if (instance.projectRoots().stream().noneMatch(root -> inside(crashFile, root))) {
            throw new InstanceFormatException(yaml, "expected_crash.file", "'" + crashFile + "' lies in none of the project_roots "
                    + instance.projectRoots());
        }
    }

    private static boolean inside(String path, String root) {
        String trimmed = root.replaceAll("/+$", "");
        return path.equals(trimmed) || path.startsWith(trimmed + "/");
    }

    public Optional<Instance> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public List<Instance> all() {
        return List.copyOf(byId.values());
    }

    /**
     * The catalog of just these instances, in the given order without duplicates.
     *
     * @throws IllegalArgumentException naming an id that is not in the dataset
     */
    public InstanceCatalog restrictTo(Collection<String> ids) {
        Map<String, Instance> kept = new LinkedHashMap<>();
        for (String id : new LinkedHashSet<>(ids)) {
            kept.put(id, find(id).orElseThrow(() -> new IllegalArgumentException("unknown instance id '" + id + "': it is not in the dataset")));
        }
        return new InstanceCatalog(kept);
    }

    /**
     * A slice of the dataset: the instances of {@code subject} (a subject string such as
     * {@code debian-source:toolz@0.12.0}, or a code base such as {@code toolz} or {@code cpython-stdlib}; null for
     * every subject) and {@code tier} (null for both), then, when more than {@code limit} match ({@code limit <= 0}:
     * no limit), a sample of {@code limit} of them that depends only on {@code seed} and the ids: the instances with
     * the smallest sha256 of {@code "<seed>:<id>"}. Adding instances to the dataset never pushes a sampled instance
     * out for one that ranks lower. The result keeps the catalog's order.
     */
    public List<Instance> select(String subject, Tier tier, int limit, long seed) {
        List<Instance> matching = byId.values().stream()
                .filter(i -> subject == null || subject.equals(i.subject().toString()) || subject.equals(i.codebase()))
                .filter(i -> tier == null || tier == i.tier())
                .toList();
        if (limit <= 0 || matching.size() <= limit) {
            return matching;
        }
        Set<String> sampled = new LinkedHashSet<>();
        matching.stream().map(Instance::id)
                .sorted(Comparator.comparing((String id) -> sha256Hex((seed + ":" + id).getBytes(StandardCharsets.UTF_8))))
                .limit(limit)
                .forEach(sampled::add);
        return matching.stream().filter(i -> sampled.contains(i.id())).toList();
    }

    /** Subject strings mapped to the {@code codebase} that {@code <dataset>/subjects/*.yaml} declares for them. */
    private static Map<String, String> declaredCodebases(Path datasetDir) {
        Path subjectsDir = datasetDir == null ? null : datasetDir.resolve("subjects");
        Map<String, String> declared = new TreeMap<>();
        if (subjectsDir == null || !Files.isDirectory(subjectsDir)) {
            return declared;
        }
        try (Stream<Path> files = Files.list(subjectsDir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".yaml")).sorted().toList()) {
                JsonNode config;
                try {
                    config = YAML.readTree(file.toFile());
                } catch (IOException e) {
                    continue; // a broken subject file is the subjects tooling's to report, not the instances'
                }
                if (config != null && config.path("subject").isTextual() && config.path("codebase").isTextual()) {
                    declared.put(config.get("subject").asText(), config.get("codebase").asText());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + subjectsDir, e);
        }
        return declared;
    }

    /** {@code <dataset>} for {@code <dataset>/instances/<id>/instance.yaml}; null when the file lies elsewhere. */
    private static Path datasetOf(Path yaml) {
        Path instancesDir = yaml.toAbsolutePath().normalize().getParent().getParent();
        return instancesDir != null && instancesDir.getFileName() != null && instancesDir.getFileName().toString().equals("instances")
                ? instancesDir.getParent() : null;
    }

    private static String optional(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(item -> values.add(item.asText()));
        return values;
    }

    private static Map<String, String> stringMap(JsonNode node) {
        Map<String, String> map = new LinkedHashMap<>();
        if (node != null && node.isObject()) {
            node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * sha256 (hex) over the instance directory, exactly as hbdata's {@code instances.digest}: for each file in
     * the order of its '/'-separated relative path (by code point), the path in UTF-8, a NUL, the content's
     * length in decimal, a NUL, the content. Bytecode and editor leftovers are not part of the instance.
     */
    static String digest(Path dir) {
        Map<String, Path> files = new TreeMap<>(InstanceCatalog::byCodePoint);
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                    return !d.equals(dir) && DIGEST_IGNORED_DIRS.contains(d.getFileName().toString())
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    String name = file.getFileName().toString();
                    // A symbolic link counts as the file it names, as os.walk sees it; one to a directory is not entered.
                    if (Files.isRegularFile(file) && DIGEST_IGNORED_SUFFIXES.stream().noneMatch(name::endsWith)) {
                        files.put(dir.relativize(file).toString().replace(File.separatorChar, '/'), file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Map.Entry<String, Path> entry : files.entrySet()) {
                byte[] content = Files.readAllBytes(entry.getValue());
                sha.update(entry.getKey().getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(Integer.toString(content.length).getBytes(StandardCharsets.US_ASCII));
                sha.update((byte) 0);
                sha.update(content);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot digest " + dir, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Python's str order: by code point, which is the order of the UTF-8 bytes. */
    private static int byCodePoint(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
