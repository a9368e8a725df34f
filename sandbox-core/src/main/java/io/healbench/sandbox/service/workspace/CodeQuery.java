package io.healbench.sandbox.service.workspace;

/** A search over the workspace sources: a literal or a java.util.regex pattern, optionally limited by a path glob. */
public record CodeQuery(String query, boolean regex, boolean caseSensitive, String pathGlob, int pageSize, String pageToken) {}
