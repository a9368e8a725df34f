package io.healbench.sandbox.service.workspace;

import java.util.List;

/** One page of matches; {@code filesSkipped} counts binary or oversized files that were not searched. */
public record CodeSearchResult(List<CodeMatch> matches, String nextPageToken, int filesSkipped) {}
