package io.healbench.common.dataset;

import java.nio.file.Path;

/** A malformed instance: names the file, the field and the problem. */
public class InstanceFormatException extends RuntimeException {

    private final Path file;
    private final String field;

    public InstanceFormatException(Path file, String field, String problem) {
        super(file + ": field '" + field + "' " + problem);
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
