package io.healbench.common.dataset;

import java.nio.file.Path;

/**
 * A malformed instance: names the file, the field and the problem, as docs/dataset.md §2 shows it
 * ({@code dataset/instances/x/instance.yaml: expected_crash.line: must be an integer >= 1, got 'abc'}).
 */
public class InstanceFormatException extends RuntimeException {

    private final Path file;
    private final String field;

    public InstanceFormatException(Path file, String field, String problem) {
        super(file + ": " + field + ": " + problem);
        this.file = file;
        this.field = field;
    }

    public Path file() {
        return file;
    }

    public String field() {
        return field;
    }
}
