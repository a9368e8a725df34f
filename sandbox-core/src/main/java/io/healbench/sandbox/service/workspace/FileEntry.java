package io.healbench.sandbox.service.workspace;

/** One entry of a listing: path relative to the source root ('/'-separated), size in bytes (0 for directories). */
public record FileEntry(String path, long size, boolean directory) {}
