package io.healbench.sandbox.service.workspace;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/** Lists a workspace's sources for agents, page by page, in path order. */
@ApplicationScoped
public class WorkspaceListing {

    static final int DEFAULT_PAGE_SIZE = 200;
    static final int MAX_PAGE_SIZE = 1000;

    /**
     * Entries under {@code directory} (relative to the source root; blank for the root), only its direct children
     * unless {@code recursive}; with a glob, only entries whose root-relative path matches it.
     */
    public FileListing list(Workspace workspace, String directory, String glob, boolean recursive, int pageSize, String pageToken) {
        int size = PageToken.size(pageSize, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, "page_size");
        PageToken.Position after = PageToken.decode(pageToken);
        PathMatcher matcher = SourceTree.glob(glob);
        SourceTree tree = new SourceTree(workspace);
        List<FileEntry> page = new ArrayList<>();
        String next = "";
        for (Path path : tree.walk(tree.directory(directory), recursive)) {
            String relative = tree.relative(path);
            if ((after != null && !after.isAfter(relative, 0)) || !tree.matches(matcher, path)) {
                continue;
            }
            if (page.size() == size) {
                next = PageToken.after(page.get(page.size() - 1).path(), 0);
                break;
            }
            page.add(entry(relative, path));
        }
        return new FileListing(List.copyOf(page), next);
    }

    private static FileEntry entry(String relative, Path path) {
        boolean dir = Files.isDirectory(path);
        try {
            return new FileEntry(relative, dir ? 0 : Files.size(path), dir);
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "READ_FAILED", "cannot stat " + relative + ": " + e.getMessage(), e);
        }
    }
}
