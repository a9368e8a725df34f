package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunEstimateTest {

    @Test
    void anEstimateScalesEarlierProgramTimesByTheLastRunsCostAndDividesByTheParallelism() throws Exception {
        Path runs = Files.createTempDirectory("runs");
        String untimed = RunEstimate.load(runs).describe(List.of("a", "b"), 1, 2);
        assertEquals("expected duration: about 3 s for 2 attempts, 2 at a time (3.4 s per attempt; no run has been timed on this"
                + " machine yet)", untimed);
        // A small run records its program times but is mostly start-up: it does not calibrate.
        RunEstimate.load(runs).record(Map.of("a", 60_000L), 600_000, 1);
        assertEquals(untimed, RunEstimate.load(runs).describe(List.of("a", "b"), 1, 2));
        // 20 attempts: "a" to "s" at 10 s and "t" at 100 s, 290 s of program; the run took 435 s two at a time,
        // so 3 ms of slot per ms of program.
        Map<String, Long> times = new java.util.TreeMap<>();
        for (char id = 'a'; id < 't'; id++) {
            times.put(String.valueOf(id), 10_000L);
        }
        times.put("t", 100_000L);
        RunEstimate.load(runs).record(times, 435_000, 2);
        String line = RunEstimate.load(runs).describe(List.of("a", "t", "new"), 1, 4);
        // The unknown one counts at the median (10 s): 120 s of program, times 3, over 4 at a time: 90 s, shown as 2 min.
        assertEquals("expected duration: about 2 min for 3 attempts, 4 at a time (from this machine's earlier runs, which timed 2"
                + " of these 3 instances)", line);
    }
}
