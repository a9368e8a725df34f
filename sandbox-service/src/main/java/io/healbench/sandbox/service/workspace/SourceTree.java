package io.healbench.sandbox.service.workspace;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A workspace's source root as agents may see it: every path is relative to it, and nothing outside it can be
 * named, listed or read (no absolute paths, no {@code ..} out of it, no symlink leading out of it).
 */
final class SourceTree {

    /** Bytes looked at to decide whether a file is binary (a NUL byte among them). */
    private static final int BINARY_SNIFF_BYTES = 8192;

    private final Path root;
    private final Path realRoot;

    SourceTree(Workspace workspace) {
        this.root = workspace.sourceDir();
        if (!Files.isDirectory(root)) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "WORKSPACE_DELETED", "the workspace sources are gone (session closed?)");
        }
        try {
            this.realRoot = root.toRealPath();
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot resolve the workspace sources: " + e.getMessage(), e);
        }
    }

    /** A regular file inside the sources; NOT_FOUND if there is none. */
    Path file(String relative) {
        if (relative == null || relative.isBlank()) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PATH_REQUIRED", "path is required");
        }
        Path file = inside(relative);
        if (!Files.isRegularFile(file)) {
            throw new SandboxException(Kind.NOT_FOUND, "FILE_NOT_FOUND", "no file '" + relative + "' in the workspace sources");
        }
        return file;
    }

    /** A directory inside the sources; empty or blank means the root. */
    Path directory(String relative) {
        if (relative == null || relative.isBlank() || relative.equals(".")) {
            return root;
        }
        Path dir = inside(relative);
        if (!Files.isDirectory(dir)) {
            throw new SandboxException(Kind.NOT_FOUND, "DIRECTORY_NOT_FOUND", "no directory '" + relative + "' in the workspace sources");
        }
        return dir;
    }

    /** The path relative to the source root, '/'-separated. */
    String relative(Path path) {
        return root.relativize(path).toString().replace('\\', '/');
    }

    /**
     * Every file and directory under {@code start} (not {@code start} itself), sorted by relative path;
     * symlinks that lead out of the sources are left out.
     */
    List<Path> walk(Path start, boolean recursive) {
        try (Stream<Path> paths = Files.walk(start, recursive ? Integer.MAX_VALUE : 1)) {
            List<Path> found = new ArrayList<>();
            for (Path p : (Iterable<Path>) paths::iterator) {
                if (!p.equals(start) && staysInside(p)) {
                    found.add(p);
                }
            }
            found.sort(Comparator.comparing(this::relative));
            return found;
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot list " + relative(start) + ": " + e.getMessage(), e);
        }
    }

    /** A matcher for a glob on relative paths; null for a blank glob. */
    static PathMatcher glob(String glob) {
        if (glob == null || glob.isBlank()) {
            return null;
        }
        try {
            return FileSystems.getDefault().getPathMatcher("glob:" + glob);
        } catch (IllegalArgumentException e) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "GLOB_INVALID", "invalid glob '" + glob + "': " + e.getMessage());
        }
    }

    /** True when the glob is absent or matches the path relative to the source root. */
    boolean matches(PathMatcher glob, Path path) {
        return glob == null || glob.matches(Path.of(relative(path)));
    }

    /** A NUL byte in the first 8 KiB marks a file as binary. */
    static boolean binary(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(BINARY_SNIFF_BYTES);
            for (byte b : head) {
                if (b == 0) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return true; // unreadable files are skipped like binary ones
        }
    }

    private Path inside(String relative) {
        Path resolved;
        try {
            Path given = Path.of(relative);
            if (given.isAbsolute()) {
                throw escape(relative);
            }
            resolved = root.resolve(given).normalize();
        } catch (InvalidPathException e) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PATH_INVALID", "invalid path '" + relative + "': " + e.getMessage());
        }
        if (!resolved.startsWith(root) || (Files.exists(resolved) && !staysInside(resolved))) {
            throw escape(relative);
        }
        return resolved;
    }

    /** A symlink inside the sources must not lead outside them. */
    private boolean staysInside(Path path) {
        if (!Files.isSymbolicLink(path) && !Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try {
            return path.toRealPath().startsWith(realRoot);
        } catch (IOException e) {
            return false;
        }
    }

    private static SandboxException escape(String relative) {
        return new SandboxException(Kind.INVALID_ARGUMENT, "PATH_ESCAPES_WORKSPACE",
                "path '" + relative + "' leaves the workspace's source root; only relative paths inside it are visible");
    }
}
