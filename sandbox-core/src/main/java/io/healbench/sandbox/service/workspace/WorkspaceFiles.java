package io.healbench.sandbox.service.workspace;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Reads source files of a workspace for agents: line ranges, capped, confined to {@code <ws>/src}. */
@ApplicationScoped
public class WorkspaceFiles {

    /** Files larger than this are refused rather than loaded whole. */
    static final long MAX_FILE_BYTES = 8L * 1024 * 1024;
    /** At most this many lines are returned at once. */
    static final int MAX_LINES = 2000;
    /** At most this many characters are returned at once (long lines are not cut, the range is). */
    static final int MAX_CHARS = 256 * 1024;

    /**
     * Reads {@code relative} under the source root. Lines are 1-based and inclusive; 0 for {@code startLine}
     * means the first line and for {@code endLine} the last. The range is cut short at {@link #MAX_LINES} lines
     * or {@link #MAX_CHARS} characters (always at least one line), and the excerpt says so.
     */
    public FileExcerpt read(Workspace workspace, String relative, int startLine, int endLine) {
        if (startLine < 0 || endLine < 0) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "LINE_RANGE_INVALID", "start_line and end_line are 1-based; 0 means 'from the start' / 'to the end'");
        }
        if (startLine > 0 && endLine > 0 && endLine < startLine) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "LINE_RANGE_INVALID", "end_line " + endLine + " is before start_line " + startLine);
        }
        SourceTree tree = new SourceTree(workspace);
        SourceTree.Entry file = tree.file(relative);
        byte[] bytes = tree.read(file, MAX_FILE_BYTES).orElseThrow(() -> new SandboxException(Kind.FAILED_PRECONDITION,
                "FILE_TOO_LARGE", relative + " is larger than " + MAX_FILE_BYTES + " bytes"));
        if (SourceTree.binary(bytes)) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "BINARY_FILE", relative + " is a binary file");
        }
        List<String> lines = decode(bytes).lines().toList();
        int total = lines.size();
        int from = Math.max(1, startLine);
        if (from > total && !(total == 0 && from == 1)) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "LINE_OUT_OF_RANGE",
                    "start_line " + startLine + " is past the end of " + relative + " (" + total + " lines)");
        }
        int to = endLine == 0 ? total : Math.min(endLine, total);
        StringBuilder content = new StringBuilder();
        int last = from - 1;
        boolean truncated = false;
        for (int n = from; n <= to; n++) {
            String line = lines.get(n - 1);
            boolean full = n - from >= MAX_LINES || (n > from && content.length() + line.length() + 1 > MAX_CHARS);
            if (full) {
                truncated = true;
                break;
            }
            content.append(line).append('\n');
            last = n;
        }
        boolean none = last < from;
        return new FileExcerpt(tree.relative(file), content.toString(), total, none ? 0 : from, none ? 0 : last, truncated);
    }

    /** UTF-8 with malformed bytes replaced: a Latin-1 comment must not make a whole file unreadable. */
    static String decode(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
