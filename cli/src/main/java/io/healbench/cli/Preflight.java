package io.healbench.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The machine check before a standalone run: the dataset tooling's {@code hbdata preflight} (docs/dataset.md), the
 * same one {@code ./healbench test} and CI run, so there is one list of what a run needs. It installs what is missing
 * where it may and otherwise names what is missing and how to get it; its lines go straight to the user's stderr.
 */
public final class Preflight {

    private Preflight() {
    }

    /**
     * Checks the machine for a run of {@code instanceIds} (empty: the whole dataset).
     *
     * @return 0 when the machine is ready, else the exit status the command should end with
     */
    public static int check(Path home, List<String> instanceIds) {
        List<String> command = new ArrayList<>(List.of("python3", "-m", "hbdata", "preflight", "--for", "run",
                "--runs-dir", home.resolve("runs").toString()));
        if (!instanceIds.isEmpty()) {
            command.addAll(List.of("--instances", String.join(",", instanceIds)));
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(home.toFile()).inheritIO();
        Map<String, String> env = builder.environment();
        String tools = home.resolve("dataset").resolve("tools").toString();
        String inherited = env.get("PYTHONPATH");
        env.put("PYTHONPATH", inherited == null || inherited.isEmpty() ? tools : tools + ":" + inherited);
        try {
            int status = builder.start().waitFor();
            if (status == 0) {
                return 0;
            }
            System.err.println("healbench: this machine is not ready for the run (see above); no attempt was started");
            return status == ExitStatus.USAGE ? ExitStatus.USAGE : ExitStatus.NOT_READY;
        } catch (IOException e) {
            System.err.println("healbench: cannot run the preflight (" + String.join(" ", command) + "): " + e.getMessage()
                    + "; python3 must be on PATH");
            return ExitStatus.NOT_READY;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitStatus.NOT_READY;
        }
    }
}
