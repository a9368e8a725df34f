package io.healbench.sandbox.service.workspace;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Directory access relative to open descriptors (openat, fstatat with AT_SYMLINK_NOFOLLOW on Linux): what the service
 * uses wherever a session's processes may change a tree while it reads or deletes it as root.
 */
final class DescriptorAccess {

    private DescriptorAccess() {}

    /** {@code dir} as a descriptor-relative stream; IOException where the platform has none (never a by-name fallback). */
    static SecureDirectoryStream<Path> open(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
            stream.close();
            throw new IOException("this platform has no descriptor-relative directory access: " + dir);
        }
        return secure;
    }

    /** The attributes of {@code name} in {@code dir}, of a symlink itself rather than what it points to. */
    static BasicFileAttributes attributes(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        return dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
    }
}
