package io.healbench.sandbox.service.session;

import io.healbench.sandbox.service.process.GroupProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Watches one session's process: reads the control channel, pumps stdout and stderr into the event log,
 * enforces the wall-clock limit, and records how the process ended. Nothing here may throw into the service.
 */
final class SessionSupervisor {

    private static final Logger LOG = Logger.getLogger(SessionSupervisor.class);
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(5);

    private final Session session;
    private final GroupProcess process;
    private final RuntimeChannel channel;
    private final Duration wallClockLimit;
    private final AtomicBoolean killedOnRequest = new AtomicBoolean();
    private final long started = System.nanoTime();

    SessionSupervisor(Session session, GroupProcess process, RuntimeChannel channel, Duration wallClockLimit) {
        this.session = session;
        this.process = process;
        this.channel = channel;
        this.wallClockLimit = wallClockLimit;
    }

    void start() {
        String id = session.name().substring(session.name().indexOf('/') + 1, Math.min(session.name().length(), 17));
        Thread reader = thread("healrt-control-" + id, this::readControl);
        Thread out = thread("healrt-stdout-" + id, () -> pump(process.stdout()));
        Thread err = thread("healrt-stderr-" + id, () -> pump(process.stderr()));
        thread("healrt-watch-" + id, () -> watch(List.of(reader, out, err)));
    }

    /** Kills the process group on request (session closed); the watcher then records the end as "killed". */
    void kill() {
        killedOnRequest.set(true);
        process.killGroup();
    }

    private void readControl() {
        try {
            BufferedReader lines = channel.accept();
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.isBlank()) {
                    handle(line);
                }
            }
        } catch (IOException e) {
            // The channel was closed because the process ended, or the runtime hung up.
        }
    }

    private void handle(String line) {
        try {
            session.onRuntimeMessage(RuntimeMessageDecoder.decode(line));
        } catch (RuntimeException e) {
            LOG.warnf(e, "%s: failed to handle a runtime message", session.name());
            session.output("[sandbox] could not handle a runtime message: " + e + "\n");
        }
    }

    private void pump(InputStream stream) {
        char[] buffer = new char[8192];
        try (Reader reader = new InputStreamReader(stream, StandardCharsets.UTF_8)) {
            int n;
            while ((n = reader.read(buffer)) >= 0) {
                if (n > 0) {
                    session.output(new String(buffer, 0, n));
                }
            }
        } catch (IOException e) {
            // The pipe closed with the process.
        }
    }

    private void watch(List<Thread> helpers) {
        boolean timedOut = false;
        try {
            if (!process.waitFor(wallClockLimit)) {
                timedOut = true;
                process.killGroup();
            }
            process.waitFor(Duration.ofDays(1));
            // Children the runtime forked (probes, dry runs) must not outlive the session.
            process.killGroup();
            for (Thread helper : helpers) {
                helper.join(DRAIN_WAIT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            channel.close();
            recordEnd(timedOut);
        }
    }

    private void recordEnd(boolean timedOut) {
        long wallMs = (System.nanoTime() - started) / 1_000_000;
        int exit = process.isAlive() ? -1 : process.exitValue();
        String cause;
        String detail;
        if (timedOut) {
            cause = "timeout";
            detail = "wall-clock limit of " + wallClockLimit.toSeconds() + " s reached; process group killed";
        } else if (killedOnRequest.get()) {
            cause = "killed";
            detail = "process group killed when the session was closed";
        } else if (exit > 128) {
            cause = "signal";
            detail = "terminated by signal " + (exit - 128) + " without reporting an outcome";
        } else {
            cause = "exited";
            detail = "exited with status " + exit + " without reporting an outcome";
        }
        session.onProcessEnded(cause, exit, wallMs, detail);
    }

    private static Thread thread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
