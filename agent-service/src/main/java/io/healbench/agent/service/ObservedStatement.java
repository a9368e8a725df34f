package io.healbench.agent.service;

import java.util.List;

/**
 * The statement that raised: its source text, the lower-cased AST node kind ({@code assign},
 * {@code return}, {@code expr}, ...) and the plain names it binds.
 */
public record ObservedStatement(String source, String kind, List<String> targets, int line) {

    public ObservedStatement {
        source = source == null ? "" : source;
        kind = kind == null ? "" : kind;
        targets = List.copyOf(targets);
    }
}
