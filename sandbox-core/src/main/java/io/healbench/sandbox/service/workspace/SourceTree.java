package io.healbench.sandbox.service.workspace;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A workspace's source root as agents may see it: every path is relative to it, and nothing outside it can be
 * named, listed or read (no absolute paths, no {@code ..} out of it, no symlink leading out of it).
 *
 * <p>The service reads as root, and the session's processes may still be running and own the workspace: between a
 * check of a path and its use they can swap any component for a symlink (to {@code /etc}, to another session). So
 * nothing here opens a path by name. Every directory is opened relative to its parent's descriptor with no
 * symlink followed ({@link SecureDirectoryStream}: openat with O_NOFOLLOW), from the service's own directory down
 * (root's, which the session cannot change). A symlink inside the sources is honoured by resolving it to a path,
 * checking that the path stays inside, and then opening that path the same way: a link swapped in meanwhile makes
 * the open fail, it never leads out. What a walk meets is stat-ed the same way, through its directory's descriptor.
 */
final class SourceTree {

    /** Bytes looked at to decide whether a file is binary (a NUL byte among them). */
    private static final int BINARY_SNIFF_BYTES = 8192;

    /** One entry of the sources: its path as named (under the root), where it really is, what it is, its size. */
    record Entry(Path path, Path real, boolean directory, long size) {}

    /** The workspace's parent: the service's own directory, which only root may change. */
    private final Path trusted;
    /** {@code trusted/<workspace>/src}; the descent checks that no component of it is a symlink. */
    private final Path root;
    private final Entry rootEntry;

    SourceTree(Workspace workspace) {
        Path dir = workspace.dir().toAbsolutePath().normalize();
        try {
            this.trusted = dir.getParent().toRealPath();
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot resolve the workspace directory: " + e.getMessage(), e);
        }
        this.root = trusted.resolve(dir.getFileName()).resolve(workspace.sourceDir().getFileName());
        Entry found;
        try {
            found = stat(root, root);
        } catch (IOException e) {
            found = null;
        }
        if (found == null || !found.directory()) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "WORKSPACE_DELETED", "the workspace sources are gone (session closed?)");
        }
        this.rootEntry = found;
    }

    /** A regular file inside the sources; NOT_FOUND if there is none. */
    Entry file(String relative) {
        if (relative == null || relative.isBlank()) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PATH_REQUIRED", "path is required");
        }
        Entry file = inside(relative);
        if (file == null || file.directory()) {
            throw new SandboxException(Kind.NOT_FOUND, "FILE_NOT_FOUND", "no file '" + relative + "' in the workspace sources");
        }
        return file;
    }

    /** A directory inside the sources; empty or blank means the root. */
    Entry directory(String relative) {
        if (relative == null || relative.isBlank() || relative.equals(".")) {
            return rootEntry;
        }
        Entry dir = inside(relative);
        if (dir == null || !dir.directory()) {
            throw new SandboxException(Kind.NOT_FOUND, "DIRECTORY_NOT_FOUND", "no directory '" + relative + "' in the workspace sources");
        }
        return dir;
    }

    /** The path relative to the source root, '/'-separated. */
    String relative(Entry entry) {
        return root.relativize(entry.path()).toString().replace('\\', '/');
    }

    /**
     * Every file and directory under {@code start} (not {@code start} itself), sorted by relative path;
     * symlinks that lead out of the sources are left out, and those that stay inside are listed but not descended.
     */
    List<Entry> walk(Entry start, boolean recursive) {
        List<Entry> found = new ArrayList<>();
        try (SecureDirectoryStream<Path> dir = openDirectory(start.real())) {
            walk(dir, start.path(), start.real(), recursive, found);
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot list " + relative(start) + ": " + e.getMessage(), e);
        }
        found.sort(Comparator.comparing(this::relative));
        return found;
    }

    private void walk(SecureDirectoryStream<Path> dir, Path named, Path real, boolean recursive, List<Entry> found) throws IOException {
        for (Path child : dir) {
            Path name = child.getFileName();
            BasicFileAttributes attributes = DescriptorAccess.attributes(dir, name);
            if (attributes.isSymbolicLink()) {
                resolved(named.resolve(name)).ifPresent(found::add);
            } else if (attributes.isDirectory()) {
                found.add(new Entry(named.resolve(name), real.resolve(name), true, 0));
                if (recursive) {
                    try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                        walk(sub, named.resolve(name), real.resolve(name), true, found);
                    }
                }
            } else if (attributes.isRegularFile()) {
                found.add(new Entry(named.resolve(name), real.resolve(name), false, attributes.size()));
            }
            // Anything else (a FIFO, a socket, a device) is not source: left out, and never opened.
        }
    }

    /**
     * The file's bytes, or empty when it has more than {@code maxBytes}. Opened through its directory's descriptor
     * with O_NOFOLLOW, after a check, through the same descriptor, that it is a regular file.
     */
    Optional<byte[]> read(Entry file, long maxBytes) {
        try (SecureDirectoryStream<Path> dir = openDirectory(file.real().getParent())) {
            Path name = file.real().getFileName();
            if (!DescriptorAccess.attributes(dir, name).isRegularFile()) {
                throw changed(file);
            }
            try (SeekableByteChannel channel = dir.newByteChannel(name, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                // One byte more than allowed tells "too large" from "exactly the limit" without trusting the size.
                byte[] bytes = Channels.newInputStream(channel).readNBytes(Math.toIntExact(maxBytes + 1));
                return bytes.length > maxBytes ? Optional.empty() : Optional.of(bytes);
            }
        } catch (NoSuchFileException e) {
            throw new SandboxException(Kind.NOT_FOUND, "FILE_NOT_FOUND", "no file '" + relative(file) + "' in the workspace sources");
        } catch (IOException e) {
            throw changed(file);
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
    boolean matches(PathMatcher glob, Entry entry) {
        return glob == null || glob.matches(Path.of(relative(entry)));
    }

    /** A NUL byte in the first 8 KiB marks a file as binary. */
    static boolean binary(byte[] content) {
        for (int i = 0; i < Math.min(content.length, BINARY_SNIFF_BYTES); i++) {
            if (content[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** The entry a relative path names, or null if nothing is there; refused if it leads out of the sources. */
    private Entry inside(String relative) {
        Path named;
        try {
            Path given = Path.of(relative);
            if (given.isAbsolute()) {
                throw escape(relative);
            }
            named = root.resolve(given).normalize();
        } catch (InvalidPathException e) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PATH_INVALID", "invalid path '" + relative + "': " + e.getMessage());
        }
        if (!named.startsWith(root)) {
            throw escape(relative);
        }
        Path real;
        try {
            real = named.toRealPath();
        } catch (IOException e) {
            return null;
        }
        if (!real.startsWith(root)) {
            throw escape(relative);
        }
        try {
            return stat(named, real);
        } catch (IOException e) {
            return null;
        }
    }

    /** A symlink's target as an entry under the link's name, if the target stays inside the sources. */
    private Optional<Entry> resolved(Path link) {
        try {
            Path real = link.toRealPath();
            return real.startsWith(root) ? Optional.ofNullable(stat(link, real)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** What is at {@code real} (a path with no symlink in it), stat-ed through its directory; null if not a file or directory. */
    private Entry stat(Path named, Path real) throws IOException {
        if (real.equals(trusted)) {
            return null;
        }
        try (SecureDirectoryStream<Path> dir = openDirectory(real.getParent())) {
            BasicFileAttributes attributes = DescriptorAccess.attributes(dir, real.getFileName());
            if (attributes.isDirectory() || attributes.isRegularFile()) {
                return new Entry(named, real, attributes.isDirectory(), attributes.isDirectory() ? 0 : attributes.size());
            }
            return null;
        }
    }

    /** Opens {@code dir} (under the trusted directory) one component at a time, following no symlink. */
    private SecureDirectoryStream<Path> openDirectory(Path dir) throws IOException {
        if (!dir.startsWith(trusted)) {
            throw new IOException(dir + " is outside " + trusted);
        }
        SecureDirectoryStream<Path> current = DescriptorAccess.open(trusted);
        try {
            for (Path name : trusted.relativize(dir)) {
                if (name.toString().isEmpty()) {
                    break;
                }
                SecureDirectoryStream<Path> next = current.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
                current.close();
                current = next;
            }
            return current;
        } catch (IOException | RuntimeException e) {
            current.close();
            throw e;
        }
    }

    private SandboxException changed(Entry file) {
        return new SandboxException(Kind.FAILED_PRECONDITION, "FILE_CHANGED", "'" + relative(file)
                + "' changed while it was being read (the session's processes may still be writing the workspace); try again");
    }

    private static SandboxException escape(String relative) {
        return new SandboxException(Kind.INVALID_ARGUMENT, "PATH_ESCAPES_WORKSPACE",
                "path '" + relative + "' leaves the workspace's source root; only relative paths inside it are visible");
    }
}
