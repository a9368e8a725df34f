package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressBarTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private List<String> lines() {
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private void at(double seconds) {
        nanos.set(1_000_000_000L + (long) (seconds * 1e9));
    }

    @Test
    void offATerminalItPrintsAtMostALineEveryFewSecondsAndAlwaysTheLast() {
        ProgressBar bar = new ProgressBar(err, false, nanos::get);
        bar.update(0, 10, 0, 0, 0);
        for (int done = 1; done <= 6; done++) {
            at(done * 0.5);  // six attempts within three seconds
            bar.update(done, 10, done, 0, 0);
        }
        assertEquals(1, lines().size(), "updates within the interval are held back: " + lines());
        at(6);
        bar.update(7, 10, 7, 0, 1);
        assertEquals(2, lines().size(), lines().toString());
        assertTrue(lines().get(1).contains("7/10 attempts") && lines().get(1).contains("infra failures 1"), lines().get(1));
        at(6.5);
        bar.update(10, 10, 9, 3, 1);
        assertEquals(3, lines().size(), "the last update is shown at once: " + lines());
        bar.finish();
        assertEquals(3, lines().size());
    }

    @Test
    void aHeldBackUpdateIsShownAtTheEnd() {
        ProgressBar bar = new ProgressBar(err, false, nanos::get);
        bar.update(0, 4, 0, 0, 0);
        at(1);
        bar.update(2, 4, 1, 0, 0);
        bar.finish();
        assertEquals(2, lines().size(), lines().toString());
        assertTrue(lines().get(1).contains("2/4 attempts"), lines().get(1));
    }

    @Test
    void itShowsTheRateAndTheTimeLeft() {
        ProgressBar bar = new ProgressBar(err, true, nanos::get);
        at(60);
        bar.update(30, 90, 20, 10, 2);  // 30 per minute: 60 left is two minutes
        String shown = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(shown.startsWith("\r"), "a terminal line is redrawn in place");
        assertTrue(shown.contains("30.0/min"), shown);
        assertTrue(shown.contains("ETA 2 min") || shown.contains("ETA 120 s"), shown);
        assertTrue(shown.contains("infra failures 2"), shown);
    }
}
