package io.healbench.sandbox.service.session;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads lines of at most {@code maxChars}; a longer line is skipped to its end and reported as such.
 * The control channel comes from the sandboxed process, which may be hostile: an endless line must not
 * grow the service's memory.
 */
final class BoundedLineReader {

    /** What a skipped line reads as. */
    static final String TOO_LONG = "\u0000line too long";

    private final Reader reader;
    private final int maxChars;
    private final char[] buffer = new char[8192];
    private int position;
    private int limit;

    BoundedLineReader(Reader reader, int maxChars) {
        this.reader = reader;
        this.maxChars = maxChars;
    }

    /** The next line without its terminator, {@link #TOO_LONG}, or null at the end of the stream. */
    String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        boolean tooLong = false;
        while (true) {
            if (position == limit) {
                limit = reader.read(buffer, 0, buffer.length);
                position = 0;
                if (limit < 0) {
                    limit = 0;
                    return line.isEmpty() && !tooLong ? null : tooLong ? TOO_LONG : line.toString();
                }
            }
            char c = buffer[position++];
            if (c == '\n') {
                return tooLong ? TOO_LONG : line.toString();
            }
            if (!tooLong) {
                line.append(c);
                if (line.length() > maxChars) {
                    tooLong = true;
                    line.setLength(0);
                }
            }
        }
    }
}
