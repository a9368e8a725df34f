package io.healbench.sandbox.service.workspace;

/** Lines of one source file, with the file's total line count. */
public record FileExcerpt(String path, String content, int totalLines) {}
