package io.healbench.cli;

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
 * How long a run should take on this machine, said before it starts. Each completed run records in
 * {@code runs/attempt-times.json} its instances' program times and its own cost per attempt: its wall time times its
 * parallelism, over the sum of its program times (attempts also spend time outside the program: the workspace, the
 * REFERENCE run, the agent). A new run's expected duration is the sum of its instances' program times (an instance
 * never timed here counts as the median of those that were), scaled by the last large run's cost, over its parallelism.
 * A machine with no large run yet uses {@link #UNTIMED_ATTEMPT_MS} per attempt.
 */
public final class RunEstimate {

    static final String FILE = "attempt-times.json";
    /**
     * One attempt of the rules agent, its REFERENCE run included, as two at a time on a 2-core machine of this kind
     * spend it: the full dataset's first run took 12 minutes for 424 attempts (README, "Timing").
     */
    static final long UNTIMED_ATTEMPT_MS = 3_400;

    /** Runs with fewer timed attempts keep the earlier cost per attempt. */
    static final int MIN_CALIBRATING_ATTEMPTS = 20;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** What the file holds: each instance's program time, and the last run's slot time per millisecond of program. */
    record Timings(Map<String, Long> programMs, double slotMsPerProgramMs) {
    }

    private final Path file;
    private final Map<String, Long> programMs;
    private final double slotMsPerProgramMs;

    private RunEstimate(Path file, Timings timings) {
        this.file = file;
        this.programMs = new TreeMap<>(timings.programMs() == null ? Map.of() : timings.programMs());
        this.slotMsPerProgramMs = timings.slotMsPerProgramMs();
    }

    /** The timings recorded under {@code runsDir}; none when the file is missing or unreadable (it is only a hint). */
    public static RunEstimate load(Path runsDir) {
        Path file = runsDir.resolve(FILE);
        Timings timings = new Timings(Map.of(), 0);
        if (Files.isRegularFile(file)) {
            try {
                timings = JSON.readValue(file.toFile(), Timings.class);
            } catch (IOException | RuntimeException e) {
                System.err.println("healbench: ignoring unreadable attempt timings " + file + ": " + e.getMessage());
            }
        }
        return new RunEstimate(file, timings);
    }

    /** One line for the user: the expected duration of {@code repeats} attempts of each instance, {@code parallel} at a time. */
    public String describe(List<String> instanceIds, int repeats, int parallel) {
        if (instanceIds.isEmpty()) {
            return "expected duration: unknown (the server's dataset)";
        }
        long attempts = (long) instanceIds.size() * repeats;
        if (slotMsPerProgramMs <= 0) {
            return "expected duration: about " + human(attempts * UNTIMED_ATTEMPT_MS / parallel) + " for " + plural(attempts) + ", "
                    + parallel + " at a time (" + Math.round(UNTIMED_ATTEMPT_MS / 100.0) / 10.0
                    + " s per attempt; no run has been timed on this machine yet)";
        }
        long fallback = median();
        long totalMs = 0;
        int timed = 0;
        for (String id : instanceIds) {
            Long known = programMs.get(id);
            timed += known == null ? 0 : 1;
            totalMs += known == null ? fallback : known;
        }
        long expectedMs = (long) (totalMs * repeats * slotMsPerProgramMs / parallel);
        String basis = timed == instanceIds.size() ? "from this machine's earlier runs"
                : "from this machine's earlier runs, which timed " + timed + " of these " + instanceIds.size() + " instances";
        return "expected duration: about " + human(expectedMs) + " for " + plural(attempts) + ", " + parallel + " at a time (" + basis + ")";
    }

    /**
     * Records a finished run: its instances' program times, and its cost per attempt from its wall time and parallelism.
     * Failing to write only loses the hint.
     */
    void record(Map<String, Long> programMsOfRun, long runWallMs, int parallel) {
        long programTotal = programMsOfRun.values().stream().mapToLong(Long::longValue).sum();
        programMs.putAll(programMsOfRun);
        // A small run's wall time is mostly start-up (JVM, database, services): it would overstate the cost per attempt.
        boolean calibrates = programMsOfRun.size() >= MIN_CALIBRATING_ATTEMPTS && programTotal > 0;
        double cost = calibrates ? (double) runWallMs * parallel / programTotal : slotMsPerProgramMs;
        try {
            Files.createDirectories(file.getParent());
            Path partial = Files.createTempFile(file.getParent(), FILE, ".partial");
            JSON.writeValue(partial.toFile(), new Timings(programMs, cost));
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            System.err.println("healbench: could not record attempt timings in " + file + ": " + e.getMessage());
        }
    }

    private long median() {
        List<Long> sorted = programMs.values().stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static String plural(long attempts) {
        return attempts + " attempt" + (attempts == 1 ? "" : "s");
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
