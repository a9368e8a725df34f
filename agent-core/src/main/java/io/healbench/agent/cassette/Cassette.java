package io.healbench.agent.cassette;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A file of recorded LLM exchanges, and the bookkeeping of one session with it: which recorded exchange answers the
 * next request, what was recorded and replayed so far. The n-th time a session asks a request, it gets the n-th
 * exchange recorded for that request's key, so a conversation that asks the same thing twice replays both answers in
 * order. Exchanges are appended and flushed as they happen, so a crash loses at most the one in flight.
 *
 * <p>Models reach it through a {@link CassetteHttpClientBuilder}. Its methods are synchronized: a model uses its
 * cassette from one thread at a time, but nothing breaks if several do.
 */
public final class Cassette implements AutoCloseable {

    private final Path file;
    private final CassetteMode mode;
    /** The recorded exchanges not replayed yet, by key, in file order; a key whose last one was replayed keeps its empty queue. */
    private final Map<String, Deque<RecordedExchange>> unplayed = new HashMap<>();
    /** Where new exchanges go; {@code null} in the modes that never record. */
    private final Writer appender;
    private int nextSeq;
    private int requestsAsked;
    private int exchangesRecorded;
    private int exchangesReplayed;
    private boolean closed;

    private Cassette(Path file, CassetteMode mode, List<RecordedExchange> recorded, Writer appender) {
        this.file = file;
        this.mode = mode;
        this.appender = appender;
        for (RecordedExchange exchange : recorded) {
            unplayed.computeIfAbsent(exchange.key(), key -> new ArrayDeque<>()).add(exchange);
        }
        this.nextSeq = recorded.size();
    }

    /**
     * The cassette in {@code file}. {@link CassetteMode#OFF} leaves the file alone, {@link CassetteMode#RECORD} creates
     * or truncates it, {@link CassetteMode#REPLAY} needs it to exist and {@link CassetteMode#RECORD_MISSING} reads it
     * if it exists; the recording modes create its parent directories.
     *
     * @throws IllegalArgumentException if REPLAY finds no file, or a line of the file is malformed (naming its number)
     * @throws UncheckedIOException     if the file cannot be read, created or opened for writing
     */
    public static Cassette open(Path file, CassetteMode mode) {
        return switch (mode) {
            case OFF -> new Cassette(file, mode, List.of(), null);
            case RECORD -> new Cassette(file, mode, List.of(),
                    appender(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING));
            case REPLAY -> {
                if (!Files.exists(file)) {
                    throw new IllegalArgumentException("cannot replay cassette " + file + ": the file does not exist"
                            + " (record it first with cassette mode record or record-missing)");
                }
                yield new Cassette(file, mode, CassetteFormat.parse(file, read(file)), null);
            }
            case RECORD_MISSING -> {
                String content = Files.exists(file) ? read(file) : "";
                List<RecordedExchange> recorded = CassetteFormat.parse(file, content);
                Writer appender = appender(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                if (!content.isEmpty() && !content.endsWith("\n")) {
                    // an edited file may lack its last line break; the first appended line must not join that line
                    write(file, appender, "\n");
                }
                yield new Cassette(file, mode, recorded, appender);
            }
        };
    }

    public CassetteMode mode() {
        return mode;
    }

    /** The exchanges this session wrote to the file. */
    public synchronized int exchangesRecorded() {
        return exchangesRecorded;
    }

    /** The requests this session answered from the file. */
    public synchronized int exchangesReplayed() {
        return exchangesReplayed;
    }

    /**
     * The recorded exchange that answers {@code request}, if this mode answers from the file and one is left; in
     * {@link CassetteMode#REPLAY} a request without one is a divergence. Each call counts as one request asked.
     */
    synchronized Optional<RecordedExchange> nextRecorded(CassetteRequest request) {
        ensureOpen();
        int ordinal = ++requestsAsked;
        if (mode == CassetteMode.RECORD) {
            return Optional.empty();
        }
        Deque<RecordedExchange> queue = unplayed.get(request.key());
        RecordedExchange next = queue == null ? null : queue.poll();
        if (next != null) {
            exchangesReplayed++;
            return Optional.of(next);
        }
        if (mode == CassetteMode.REPLAY) {
            throw new CassetteDivergenceException("cassette " + file + " diverged at request " + ordinal + " ("
                    + request.describe() + "): no recorded exchange matches it"
                    + (queue == null ? "" : "; the exchanges recorded for this request were all replayed earlier in the session"),
                    ordinal);
        }
        return Optional.empty();
    }

    /** Appends the exchange {@code request} got from the network, and flushes it. */
    synchronized void record(CassetteRequest request, int status, String contentType, String response) {
        ensureOpen();
        if (appender == null) {
            throw new IllegalStateException("cassette " + file + " does not record in mode " + mode);
        }
        RecordedExchange exchange = new RecordedExchange(request.key(), nextSeq, request.method(), request.url().url(),
                request.body(), status, contentType, response);
        write(file, appender, CassetteFormat.line(exchange) + "\n");
        nextSeq++;
        exchangesRecorded++;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (appender != null) {
            try {
                appender.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close cassette " + file, e);
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("cassette " + file + " is closed");
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cassette " + file, e);
        }
    }

    private static Writer appender(Path file, OpenOption... options) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return Files.newBufferedWriter(file, StandardCharsets.UTF_8, options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open cassette " + file + " for writing", e);
        }
    }

    private static void write(Path file, Writer appender, String text) {
        try {
            appender.write(text);
            appender.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write cassette " + file, e);
        }
    }
}
