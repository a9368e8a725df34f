package io.healbench.agent.service;

import java.util.List;

/**
 * The statement that raised: its source text, the lower-cased AST node kind ({@code assign},
 * {@code return}, {@code expr}, ...), the plain names it binds, its line and its file.
 */
public record ObservedStatement(String source, String kind, List<String> targets, int line, String file) {

    public ObservedStatement {
        source = source == null ? "" : source;
        kind = kind == null ? "" : kind;
        targets = List.copyOf(targets);
        file = file == null ? "" : file;
    }

    /** A statement whose file is not known. */
    public ObservedStatement(String source, String kind, List<String> targets, int line) {
        this(source, kind, targets, line, "");
    }
}
