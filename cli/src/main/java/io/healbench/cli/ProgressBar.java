package io.healbench.cli;

import java.io.PrintStream;

/**
 * Shows a run's progress on stderr: a redrawn bar on a terminal, one line per change otherwise
 * (CI logs), so stdout stays free for the table and the --json summary.
 */
final class ProgressBar {

    private static final int WIDTH = 30;

    private final PrintStream err;
    private final boolean terminal;
    private String lastLine = "";

    ProgressBar(PrintStream err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    void update(int done, int total, int proceeded, int passed) {
        int filled = total == 0 ? 0 : (int) Math.round((double) WIDTH * done / total);
        String line = String.format("[%s%s] %d/%d attempts  proceeded %d  passed %d",
                "#".repeat(filled), "-".repeat(WIDTH - filled), done, total, proceeded, passed);
        if (line.equals(lastLine)) {
            return;
        }
        lastLine = line;
        if (terminal) {
            err.print("\r" + line);
        } else {
            err.println(line);
        }
        err.flush();
    }

    void finish() {
        if (terminal && !lastLine.isEmpty()) {
            err.println();
        }
    }
}
