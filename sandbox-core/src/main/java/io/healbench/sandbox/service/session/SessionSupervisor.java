package io.healbench.sandbox.service.session;

import io.healbench.common.outcome.ExitCause;
import io.healbench.sandbox.service.process.ProcessExit;
import io.healbench.sandbox.service.process.GroupProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Watches one session's process: reads the control channel, pumps stdout and stderr into the event log,
 * enforces the wall-clock limit, and records how the process ended. Nothing here may throw into the service,
 * and nothing the process sends may grow the service's memory beyond fixed caps.
 */
final class SessionSupervisor {

    private static final Logger LOG = Logger.getLogger(SessionSupervisor.class);
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(5);
    /** Longest control line accepted; crash contexts and outcomes (with their traces) stay far below it. */
    private static final int MAX_CONTROL_LINE = 16 * 1024 * 1024;
    /** Lines of the output's end quoted in the detail of an outcome the runtime did not report. */
    private static final int LAST_OUTPUT_LINES = 8;

    private final Session session;
    private final GroupProcess process;
    private final RuntimeChannel channel;
    private final Duration wallClockLimit;
    private final AtomicBoolean killedOnRequest = new AtomicBoolean();
    private final OutputTail tail = new OutputTail();
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
            BoundedLineReader lines = new BoundedLineReader(channel.accept(), MAX_CONTROL_LINE);
            String line;
            while ((line = lines.readLine()) != null) {
                if (line == BoundedLineReader.TOO_LONG) {
                    session.output("[sandbox] dropped a control line longer than " + MAX_CONTROL_LINE + " characters\n");
                } else if (!line.isBlank()) {
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

    /**
     * Copies a stream into the session's output until the cap is reached, then keeps reading and discards, so
     * the process never blocks on a full pipe and the service holds no more than the cap (plus the tail).
     */
    private void pump(InputStream stream) {
        char[] buffer = new char[8192];
        InputStream recorded = tail.recording(stream);
        try (Reader reader = new InputStreamReader(recorded, StandardCharsets.UTF_8)) {
            int n;
            while (!session.outputFull() && (n = reader.read(buffer)) >= 0) {
                if (n > 0) {
                    session.output(new String(buffer, 0, n));
                }
            }
            recorded.transferTo(OutputStream.nullOutputStream());
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
            // Children the runtime forked (probes, dry runs) and anything the program started must not outlive it.
            process.reap();
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
        ProcessExit cause;
        if (timedOut) {
            cause = new ProcessExit(ExitCause.TIMEOUT, "wall-clock limit of " + wallClockLimit.toSeconds() + " s reached; process group killed");
        } else if (killedOnRequest.get()) {
            cause = new ProcessExit(ExitCause.KILLED, "process group killed when the session was closed");
        } else if (exit < 0) {
            cause = new ProcessExit(ExitCause.KILLED, "the process could not be waited for");
        } else {
            cause = process.processExit(tail.text());
        }
        // Whoever reads this outcome (an attempt's report, a dataset check) must see why the program stopped.
        String lastOutput = killedOnRequest.get() ? "" : tail.lastLines(LAST_OUTPUT_LINES);
        session.onProcessEnded(cause.cause(), exit, wallMs,
                lastOutput.isEmpty() ? cause.detail() : cause.detail() + "; last output: " + lastOutput, process.resourceUse());
    }

    private static Thread thread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
