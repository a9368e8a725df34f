package io.healbench.sandbox.service.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;

/**
 * Deletes a directory tree that a sandboxed process may still be changing, without ever following a symlink: every
 * step is relative to an open directory descriptor ({@link SecureDirectoryStream}: unlinkat and openat with
 * O_NOFOLLOW on Linux). A directory swapped for a symlink between listing and descending makes the descent fail; it
 * never deletes what the link points to, as a walk by path names would (the service runs as root).
 */
final class TreeDeletion {

    private TreeDeletion() {}

    /** Deletes {@code dir} and everything under it; a missing {@code dir} is fine. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            try (SecureDirectoryStream<Path> secure = DescriptorAccess.open(dir)) {
                deleteContents(secure);
            }
        }
        Files.delete(dir);
    }

    private static void deleteContents(SecureDirectoryStream<Path> dir) throws IOException {
        for (Path entry : dir) {
            Path name = entry.getFileName();
            if (DescriptorAccess.attributes(dir, name).isDirectory()) {
                try (SecureDirectoryStream<Path> child = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    deleteContents(child);
                }
                dir.deleteDirectory(name);
            } else {
                dir.deleteFile(name);
            }
        }
    }
}
