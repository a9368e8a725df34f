package io.healbench.sandbox.service.workspace;

import java.util.List;

/** One page of a listing; {@code nextPageToken} is empty on the last page. */
public record FileListing(List<FileEntry> entries, String nextPageToken) {}
