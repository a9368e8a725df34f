package io.healbench.sandbox.service.workspace;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/** The read-only view agents get of a workspace's sources: paths are confined to {@code <ws>/src}. */
@ApplicationScoped
public class WorkspaceFiles {

    /** Files larger than this are refused rather than loaded whole. */
    private static final long MAX_FILE_BYTES = 8L * 1024 * 1024;

    /**
     * Reads {@code relative} under the source root. Lines are 1-based and inclusive; 0 (or less) for
     * {@code startLine} means the first line, and for {@code endLine} the last.
     */
    public FileExcerpt read(Workspace workspace, String relative, int startLine, int endLine) {
        Path file = resolve(workspace.sourceDir(), relative);
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new SandboxException(Kind.FAILED_PRECONDITION, "FILE_TOO_LARGE", relative + " is larger than " + MAX_FILE_BYTES + " bytes");
            }
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
            List<String> lines = text.lines().toList();
            int from = Math.max(1, startLine);
            int to = endLine <= 0 ? lines.size() : Math.min(endLine, lines.size());
            if (startLine > 0 && endLine > 0 && endLine < startLine) {
                throw new SandboxException(Kind.INVALID_ARGUMENT, "BAD_LINE_RANGE", "end_line " + endLine + " is before start_line " + startLine);
            }
            String content = from > to ? "" : String.join("\n", lines.subList(from - 1, to)) + "\n";
            return new FileExcerpt(workspace.sourceDir().relativize(file).toString(), content, lines.size());
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot read " + relative + ": " + e.getMessage(), e);
        }
    }

    private static Path resolve(Path sourceDir, String relative) {
        if (relative == null || relative.isBlank()) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PATH_REQUIRED", "path is required");
        }
        Path file;
        try {
            Path given = Path.of(relative);
            if (given.isAbsolute()) {
                throw escape(relative);
            }
            file = sourceDir.resolve(given).normalize();
        } catch (InvalidPathException e) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PATH_INVALID", "invalid path '" + relative + "': " + e.getMessage());
        }
        if (!file.startsWith(sourceDir)) {
            throw escape(relative);
        }
        if (!Files.isRegularFile(file)) {
            throw new SandboxException(Kind.NOT_FOUND, "FILE_NOT_FOUND", "no file '" + relative + "' in the workspace sources");
        }
        try {
            // A symlink inside the sources must not lead outside them either.
            if (!file.toRealPath().startsWith(sourceDir.toRealPath())) {
                throw escape(relative);
            }
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot resolve " + relative + ": " + e.getMessage(), e);
        }
        return file;
    }

    private static SandboxException escape(String relative) {
        return new SandboxException(Kind.INVALID_ARGUMENT, "PATH_ESCAPES_WORKSPACE",
                "path '" + relative + "' leaves the workspace's source root; only relative paths inside it can be read");
    }
}
