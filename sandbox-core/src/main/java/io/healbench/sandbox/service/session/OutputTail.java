package io.healbench.sandbox.service.session;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The last few KiB a process wrote to stdout and stderr, kept even after the output cap dropped the rest,
 * so the end of a process can be explained (e.g. a MemoryError traceback).
 */
final class OutputTail {

    private static final int SIZE = 4096;

    private final byte[] ring = new byte[SIZE];
    private long written;

    /** {@code stream}, recording everything read from it here. */
    InputStream recording(InputStream stream) {
        return new FilterInputStream(stream) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    append(new byte[] {(byte) b}, 0, 1);
                }
                return b;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                int n = super.read(buffer, offset, length);
                if (n > 0) {
                    append(buffer, offset, n);
                }
                return n;
            }
        };
    }

    synchronized void append(byte[] bytes, int offset, int length) {
        int from = Math.max(offset, offset + length - SIZE);
        for (int i = from; i < offset + length; i++) {
            ring[(int) (written++ % SIZE)] = bytes[i];
        }
    }

    /**
     * The last {@code maxLines} non-blank lines of {@link #text()}, joined with " | " so they fit in a one-line detail;
     * empty when the process wrote nothing.
     */
    String lastLines(int maxLines) {
        List<String> lines = text().lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - maxLines), lines.size()));
    }

    synchronized String text() {
        int size = (int) Math.min(written, SIZE);
        byte[] ordered = new byte[size];
        for (int i = 0; i < size; i++) {
            ordered[i] = ring[(int) ((written - size + i) % SIZE)];
        }
        return new String(ordered, StandardCharsets.UTF_8);
    }
}
