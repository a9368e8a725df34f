package io.healbench.sandbox.service.workspace;

import jakarta.enterprise.context.ApplicationScoped;
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
        for (SourceTree.Entry entry : tree.walk(tree.directory(directory), recursive)) {
            String relative = tree.relative(entry);
            if ((after != null && !after.isAfter(relative, 0)) || !tree.matches(matcher, entry)) {
                continue;
            }
            if (page.size() == size) {
                next = PageToken.after(page.get(page.size() - 1).path(), 0);
                break;
            }
            page.add(new FileEntry(relative, entry.size(), entry.directory()));
        }
        return new FileListing(List.copyOf(page), next);
    }
}
