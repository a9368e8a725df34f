package io.healbench.sandbox.service.workspace;

/** A line that matched a search: path relative to the source root, 1-based line number, the line (capped). */
public record CodeMatch(String path, int line, String text) {}
