package io.healbench.sandbox.service.workspace;

/**
 * Lines of one source file: the lines {@code startLine..endLine} (1-based, inclusive; both 0 when none were
 * returned), the file's total line count, and whether the output cap cut the range short.
 */
public record FileExcerpt(String path, String content, int totalLines, int startLine, int endLine, boolean truncated) {}
