package io.healbench.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Shows a run's progress on stderr, so stdout stays free for the table and the --json summary. On a terminal it is
 * one redrawn line with the rate, the time left and the failures so far; off a terminal (CI logs) it prints a line
 * when something changed, but at most one every {@link #LOG_INTERVAL}, and always the last one.
 */
final class ProgressBar {

    static final Duration LOG_INTERVAL = Duration.ofSeconds(5);
    private static final int WIDTH = 30;

    private final PrintStream err;
    private final boolean terminal;
    private final LongSupplier clock;
    private final long startNanos;
    private String lastState = "";
    private long lastPrintNanos;
    private String pending;

    ProgressBar(PrintStream err, boolean terminal) {
        this(err, terminal, System::nanoTime);
    }

    /** {@code clock} gives nanoseconds, like {@link System#nanoTime()}. */
    ProgressBar(PrintStream err, boolean terminal, LongSupplier clock) {
        this.err = err;
        this.terminal = terminal;
        this.clock = clock;
        this.startNanos = clock.getAsLong();
        this.lastPrintNanos = startNanos - LOG_INTERVAL.toNanos();
    }

    /** {@code failed} counts the attempts that failed for a reason outside the agent (infrastructure). */
    void update(int done, int total, int proceeded, int passed, int failed) {
        String state = done + "/" + total + "/" + proceeded + "/" + passed + "/" + failed;
        long now = clock.getAsLong();
        if (state.equals(lastState) && !terminal) {
            return;
        }
        lastState = state;
        String line = line(done, total, proceeded, passed, failed, now);
        if (terminal) {
            err.print("\r" + line + "\033[K");
            err.flush();
            return;
        }
        if (done < total && now - lastPrintNanos < LOG_INTERVAL.toNanos()) {
            pending = line;  // shown at the next print, or by finish()
            return;
        }
        print(line, now);
    }

    void finish() {
        if (terminal) {
            if (!lastState.isEmpty()) {
                err.println();
            }
        } else if (pending != null) {
            print(pending, clock.getAsLong());
        }
    }

    private void print(String line, long now) {
        err.println(line);
        err.flush();
        lastPrintNanos = now;
        pending = null;
    }

    private String line(int done, int total, int proceeded, int passed, int failed, long now) {
        int filled = total == 0 ? 0 : (int) Math.round((double) WIDTH * done / total);
        double elapsedS = (now - startNanos) / 1e9;
        StringBuilder line = new StringBuilder(String.format("[%s%s] %d/%d attempts  proceeded %d  passed %d  infra failures %d",
                "#".repeat(filled), "-".repeat(WIDTH - filled), done, total, proceeded, passed, failed));
        line.append("  ").append(RunEstimate.human((long) (elapsedS * 1000))).append(" elapsed");
        if (done > 0 && elapsedS > 0) {
            double perMinute = done / elapsedS * 60;
            line.append(String.format("  %.1f/min", perMinute));
            if (done < total) {
                line.append("  ETA ").append(RunEstimate.human((long) ((total - done) / (done / elapsedS) * 1000)));
            }
        }
        return line.toString();
    }
}
