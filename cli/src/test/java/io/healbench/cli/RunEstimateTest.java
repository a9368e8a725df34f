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
        // 60 + 120 + 180 s of program time; the run took 540 s two at a time: 3 ms of slot per ms of program.
        RunEstimate.load(runs).record(Map.of("a", 60_000L, "b", 120_000L, "c", 180_000L), 540_000, 2);
        String line = RunEstimate.load(runs).describe(List.of("a", "b", "c", "new"), 1, 4);
        // The unknown one counts at the median (120 s): 480 s of program, times 3, over 4 at a time.
        assertEquals("expected duration: about 6 min for 4 attempts, 4 at a time (from this machine's earlier runs, which timed 3"
                + " of these 4 instances)", line);
    }
}
