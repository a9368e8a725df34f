package io.healbench.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long a run should take on this machine, said before it starts. Each completed run records its attempts' wall
 * times in {@code runs/attempt-times.json}; an instance never timed here counts as the median of the timed ones, or as
 * {@link #UNTIMED_ATTEMPT_MS} on a machine with no timings yet. Attempts share the cores, so the recorded times are those
 * of attempts running side by side, and the sum divides by the parallelism.
 */
final class RunEstimate {

    static final String FILE = "attempt-times.json";
    /**
     * One attempt of the rules agent, REFERENCE run included, with two at a time on a 2-core machine of this kind: the
     * mean of the full dataset's first run (README, "Timing").
     */
    static final long UNTIMED_ATTEMPT_MS = 8_000;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path file;
    private final Map<String, Long> wallMsByInstance;

    private RunEstimate(Path file, Map<String, Long> wallMsByInstance) {
        this.file = file;
        this.wallMsByInstance = wallMsByInstance;
    }

    /** The timings recorded under {@code runsDir}; none when the file is missing or unreadable (it is only a hint). */
    static RunEstimate load(Path runsDir) {
        Path file = runsDir.resolve(FILE);
        Map<String, Long> times = new TreeMap<>();
        if (Files.isRegularFile(file)) {
            try {
                times.putAll(JSON.readValue(file.toFile(), new TypeReference<Map<String, Long>>() { }));
            } catch (IOException | RuntimeException e) {
                System.err.println("healbench: ignoring unreadable attempt timings " + file + ": " + e.getMessage());
            }
        }
        return new RunEstimate(file, times);
    }

    /** One line for the user: the expected duration of {@code repeats} attempts of each instance, {@code parallel} at a time. */
    String describe(List<String> instanceIds, int repeats, int parallel) {
        if (instanceIds.isEmpty()) {
            return "expected duration: unknown (the server's dataset)";
        }
        long fallback = median();
        long totalMs = 0;
        int timed = 0;
        for (String id : instanceIds) {
            Long known = wallMsByInstance.get(id);
            timed += known == null ? 0 : 1;
            totalMs += known == null ? fallback : known;
        }
        long attempts = (long) instanceIds.size() * repeats;
        long expectedMs = totalMs * repeats / Math.max(1, parallel);
        String basis = timed == instanceIds.size() ? "from this machine's earlier runs"
                : timed == 0 ? "at " + Math.round(fallback / 1000.0) + " s per attempt; no run has timed them here yet"
                : "from this machine's earlier runs for " + timed + " of " + instanceIds.size() + " instances, "
                        + Math.round(fallback / 1000.0) + " s each for the rest";
        return "expected duration: about " + human(expectedMs) + " for " + attempts + " attempt" + (attempts == 1 ? "" : "s") + ", "
                + parallel + " at a time (" + basis + ")";
    }

    /** Records the wall times of a finished run's attempts; failing to write only loses the hint. */
    void record(Map<String, Long> wallMsByInstanceOfRun) {
        wallMsByInstance.putAll(wallMsByInstanceOfRun);
        try {
            Files.createDirectories(file.getParent());
            Path partial = Files.createTempFile(file.getParent(), FILE, ".partial");
            JSON.writeValue(partial.toFile(), wallMsByInstance);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            System.err.println("healbench: could not record attempt timings in " + file + ": " + e.getMessage());
        }
    }

    private long median() {
        if (wallMsByInstance.isEmpty()) {
            return UNTIMED_ATTEMPT_MS;
        }
        List<Long> sorted = wallMsByInstance.values().stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    static String human(long ms) {
        long seconds = Math.round(ms / 1000.0);
        if (seconds < 90) {
            return seconds + " s";
        }
        long minutes = Math.round(seconds / 60.0);
        return minutes < 90 ? minutes + " min" : String.format("%.1f h", minutes / 60.0);
    }
}
