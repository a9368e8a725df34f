package io.healbench.sandbox.service.process;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A started session process that leads its own process group, so the whole group can be killed at once. */
public final class GroupProcess {

    private final Process process;

    GroupProcess(Process process) {
        this.process = process;
    }

    public long pid() {
        return process.pid();
    }

    public InputStream stdout() {
        return process.getInputStream();
    }

    public InputStream stderr() {
        return process.getErrorStream();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits up to {@code limit}; true when the process ended in time. */
    public boolean waitFor(Duration limit) throws InterruptedException {
        return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Exit value as Java reports it: 128 + signal number when a signal ended the process. */
    public int exitValue() {
        return process.exitValue();
    }

    /**
     * SIGKILLs the process group (the runtime forks for probes and dry runs, and the program may spawn more),
     * then the leader itself in case the group kill could not be delivered.
     */
    public void killGroup() {
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // Fall through to killing the leader and its known descendants.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
