package io.healbench.guard.fuzz;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The outcome of a fuzz run: counts overall, per class and per origin, and sample failures. */
public final class FuzzReport {

    /** Ways a program can fail the fuzz; every count must be zero for the run to pass. */
    public enum Failure {
        ESCAPE("escapes", "outside HealCore, accepted by the gate"),
        FALSE_REJECTION("false_rejections", "inside HealCore, rejected by the gate"),
        HEALRT_DISAGREEMENT("healrt_disagreements", "healrt's re-check decides otherwise than the gate"),
        INVALID_PYTHON("invalid_python", "not valid Python (a generator bug: it would be rejected for the wrong reason)"),
        UNLOCATED("unlocated", "rejected, but no diagnostic points into the injected construct"),
        MISNAMED("misnamed", "the diagnostic at the construct names something else"),
        INCOMPLETE_DIAGNOSTIC("incomplete_diagnostics", "a diagnostic lacks line, column, construct or reason"),
        STRAY_DIAGNOSTIC("stray_diagnostics", "a diagnostic blames code outside the injected construct"),
        GATE_ERROR("gate_errors", "the gate threw instead of answering");

        private final String key;
        private final String meaning;

        Failure(String key, String meaning) {
            this.key = key;
            this.meaning = meaning;
        }

        public String key() {
            return key;
        }
    }

    /** One failing program, kept as a sample: enough to read it and regenerate it (seed and index). */
    public record Sample(Failure failure, int index, String label, String origin, String code, String detail) {
    }

    private final long seed;
    private final int sampleLimit;
    private final Map<Failure, Integer> failures = new EnumMap<>(Failure.class);
    private final Map<String, Map<String, Integer>> byClass = new LinkedHashMap<>();
    private final Map<String, Integer> byOrigin = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private int programs;
    private int inside;
    private String pythonVersion = "";
    private String gateVersion = "";
    private double seconds;

    FuzzReport(long seed, int sampleLimit, List<Exclusion> classes) {
        this.seed = seed;
        this.sampleLimit = sampleLimit;
        for (Failure failure : Failure.values()) {
            failures.put(failure, 0);
        }
        byClass.put("inside", new LinkedHashMap<>());
        for (Exclusion exclusion : classes) {
            byClass.put(exclusion.label(), new LinkedHashMap<>());
        }
    }

    void count(FuzzProgram program) {
        programs++;
        if (program.inside()) {
            inside++;
        }
        byOrigin.merge(program.origin(), 1, Integer::sum);
        classCounts(program.label()).merge("programs", 1, Integer::sum);
    }

    /** The gate rejected the program (right for an outside one, a false rejection for an inside one). */
    void rejected(FuzzProgram program) {
        classCounts(program.label()).merge("rejected", 1, Integer::sum);
    }

    void fail(Failure failure, FuzzProgram program, String detail) {
        failures.merge(failure, 1, Integer::sum);
        classCounts(program.label()).merge(failure.key(), 1, Integer::sum);
        long ofKind = samples.stream().filter(s -> s.failure() == failure).count();
        if (ofKind < sampleLimit) {
            samples.add(new Sample(failure, program.index(), program.label(), program.origin(), program.code(), detail));
        }
    }

    private Map<String, Integer> classCounts(String label) {
        return byClass.computeIfAbsent(label, k -> new LinkedHashMap<>());
    }

    void finish(String pythonVersion, String gateVersion, double seconds) {
        this.pythonVersion = pythonVersion;
        this.gateVersion = gateVersion;
        this.seconds = seconds;
    }

    public int count(Failure failure) {
        return failures.get(failure);
    }

    public boolean passed() {
        return failures.values().stream().allMatch(n -> n == 0);
    }

    public int programs() {
        return programs;
    }

    public int inside() {
        return inside;
    }

    public int outside() {
        return programs - inside;
    }

    /** Per class ("inside" and every exclusion class): programs generated and failures by kind. */
    public Map<String, Map<String, Integer>> byClass() {
        return byClass;
    }

    public Map<String, Integer> byOrigin() {
        return byOrigin;
    }

    public List<Sample> samples() {
        return List.copyOf(samples);
    }

    public ObjectNode toJson() {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("programs", programs);
        root.put("inside", inside);
        root.put("outside", outside());
        for (Failure failure : Failure.values()) {
            root.put(failure.key(), failures.get(failure));
        }
        ObjectNode classes = root.putObject("by_class");
        byClass.forEach((label, counts) -> {
            ObjectNode node = classes.putObject(label);
            node.put("programs", counts.getOrDefault("programs", 0));
            node.put("rejected", counts.getOrDefault("rejected", 0));
            counts.forEach((key, n) -> {
                if (!key.equals("programs") && !key.equals("rejected")) {
                    node.put(key, n);
                }
            });
        });
        ObjectNode origins = root.putObject("by_origin");
        byOrigin.forEach(origins::put);
        root.put("seed", seed);
        root.put("gate_version", gateVersion);
        root.put("python", pythonVersion);
        root.put("passed", passed());
        root.put("seconds", Math.round(seconds * 10) / 10.0);
        return root;
    }

    /** A human-readable account: totals, the per-class table, then the failure samples. */
    public String summary() {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "HealCore gate fuzz: %d programs (seed %d): %d inside, %d outside; by origin %s%n",
                programs, seed, inside, outside(), byOrigin));
        for (Failure failure : Failure.values()) {
            s.append(String.format(Locale.ROOT, "  %-24s %7d  (%s)%n", failure.key(), failures.get(failure), failure.meaning));
        }
        s.append(String.format(Locale.ROOT, "  %-32s %9s %9s %8s%n", "class", "programs", "rejected", "failures"));
        byClass.forEach((label, counts) -> s.append(String.format(Locale.ROOT, "  %-32s %9d %9d %8d%n", label,
                counts.getOrDefault("programs", 0), counts.getOrDefault("rejected", 0),
                counts.entrySet().stream().filter(e -> !e.getKey().equals("programs") && !e.getKey().equals("rejected"))
                        .mapToInt(Map.Entry::getValue).sum())));
        for (Sample sample : samples) {
            s.append(String.format(Locale.ROOT, "%n--- %s: program %d (%s, %s): %s%n%s%n", sample.failure().key(),
                    sample.index(), sample.label(), sample.origin(), sample.detail(), sample.code()));
        }
        s.append(String.format(Locale.ROOT, "%s in %.1f s (gate %s, python %s)%n", passed() ? "PASS" : "FAIL", seconds,
                gateVersion, pythonVersion));
        return s.toString();
    }
}
