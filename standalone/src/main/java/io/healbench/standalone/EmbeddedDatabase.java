package io.healbench.standalone;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;

/**
 * The standalone mode's PostgreSQL. Its data directory lasts across runs (docs/runs.md, "Where runs are kept"), so
 * earlier runs can be listed, compared and re-graded; one healbench process at a time owns it.
 */
final class EmbeddedDatabase implements AutoCloseable {

    static final String USER = "postgres";

    /** Where the store lives unless {@code HEALBENCH_STORE} says otherwise: under the runs it keeps. */
    static final String DEFAULT_DIRECTORY = "runs/store";

    private final EmbeddedPostgres postgres;
    /** The store's lock, held for this process's life; null for a temporary store. */
    private final FileChannel lockChannel;

    private EmbeddedDatabase(EmbeddedPostgres postgres, FileChannel lockChannel) {
        this.postgres = postgres;
        this.lockChannel = lockChannel;
    }

    /** The store's directory: {@code HEALBENCH_STORE}, else {@value #DEFAULT_DIRECTORY} under the home. */
    static Path directory(Path home) {
        String configured = System.getenv("HEALBENCH_STORE");
        return configured == null || configured.isBlank() ? home.resolve(DEFAULT_DIRECTORY) : Path.of(configured).toAbsolutePath();
    }

    /**
     * Starts PostgreSQL on the store in {@code directory}, creating it on first use; a server left behind by a process
     * that died is stopped first. When another healbench process holds the store, a run ({@code temporaryIfBusy}) keeps
     * its records in a temporary store of its own, and says so on {@code notices}, since two runs at once on one machine
     * are fine; {@code runs} and {@code serve}, which are about the kept runs, fail with a plain message instead.
     */
    static EmbeddedDatabase start(Path directory, boolean temporaryIfBusy, PrintStream notices) throws IOException {
        Files.createDirectories(directory);
        FileChannel channel = FileChannel.open(directory.resolve("healbench.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
            channel.close();
            String busy = "another healbench process is using the run store " + directory;
            if (!temporaryIfBusy) {
                throw new IOException(busy + "; wait for it to end, or give this one a store of its own with HEALBENCH_STORE=DIR");
            }
            notices.println("healbench: " + busy + ": this run keeps its records in a temporary store, so `runs list` "
                    + "will not show it (its files under runs/ stay)");
            return new EmbeddedDatabase(EmbeddedPostgres.builder().setCleanDataDirectory(true).start(), null);
        }
        Path data = directory.resolve("postgres");
        try {
            stopOrphan(data);
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(data.toFile())
                    .setCleanDataDirectory(false)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
            return new EmbeddedDatabase(postgres, channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw new IOException("cannot start the run store's PostgreSQL in " + data + ": " + e.getMessage(), e);
        }
    }

    /**
     * A healbench process killed outright leaves its PostgreSQL running on the store (the server is a process of its
     * own). Nobody else can own it while we hold the lock, so it is stopped, as its own shutdown would have.
     */
    private static void stopOrphan(Path data) throws IOException {
        Path pidFile = data.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").strip();
        Optional<ProcessHandle> orphan;
        try {
            orphan = ProcessHandle.of(Long.parseLong(first));
        } catch (NumberFormatException e) {
            orphan = Optional.empty();
        }
        if (orphan.isPresent() && orphan.get().info().command().map(c -> c.contains("postgres")).orElse(false)) {
            orphan.get().destroy();
            try {
                orphan.get().onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IOException("a PostgreSQL left on the store (pid " + first + ") did not stop", e);
            }
        }
        Files.deleteIfExists(pidFile);
    }

    String reactiveUrl() {
        return "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            System.err.println("healbench: embedded PostgreSQL did not stop cleanly: " + e.getMessage());
        }
        if (lockChannel == null) {
            return;  // a temporary store: no lock was held
        }
        try {
            lockChannel.close();
        } catch (IOException e) {
            // the lock goes with the process anyway
        }
    }
}
