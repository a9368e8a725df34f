package io.healbench.sandbox.service.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.Subject;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.model.Variant;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListFiles, ReadFile and SearchCode on a small real directory tree: ranges, paging, confinement, guards. */
class RepositoryViewTest {

    @TempDir
    Path dir;

    @TempDir
    Path outside;

    private Workspace workspace;
    private final WorkspaceFiles files = new WorkspaceFiles();
    private final WorkspaceListing listing = new WorkspaceListing();
    private final CodeSearch search = new CodeSearch();

    @BeforeEach
    void tree() throws Exception {
        Instance instance = new Instance("sandbox-unit", Subject.parse("cpython-stdlib@3.11.7"), "cpython-stdlib", "3.11.7", List.of("pkg"),
                "bug.patch", null, "test/test_x.py::test_f", Instance.ORIGIN_SUBJECT, new Instance.ExpectedCrash("TypeError", "pkg/a.py", "f", 1),
                "default", Map.of("kind", "injected"), Map.of(), dir, "0");
        RunPlan plan = new RunPlan("sandbox-unit", "buggy", "0", dir.resolve("python").toString(), dir.toString(), dir.resolve("src").toString(),
                List.of("pkg"), "test/test_x.py::test_f", List.of(), Map.of(), List.of(), List.of());
        workspace = new Workspace(dir, instance, Variant.BUGGY, plan);
        Path src = workspace.sourceDir();
        Files.createDirectories(src.resolve("pkg/sub"));
        Files.writeString(src.resolve("pkg/a.py"), "import os\n\ndef f(x):\n    return X + x\n");
        Files.writeString(src.resolve("pkg/b.py"), "x = 1\ny = 2\n");
        Files.writeString(src.resolve("pkg/sub/c.py"), "def g():\n    return 'x' * 3\n");
        Files.write(src.resolve("pkg/blob.bin"), new byte[] {'x', 0, 'x', '\n'});
        Files.writeString(src.resolve("pkg/sub/long.txt"), "a".repeat(30) + "b\n");
        Files.writeString(outside.resolve("secret.py"), "secret = 1\n");
        Files.createSymbolicLink(src.resolve("pkg/escape.py"), outside.resolve("secret.py"));
    }

    @Test
    void readReturnsOneBasedInclusiveRanges() {
        FileExcerpt two = files.read(workspace, "pkg/a.py", 3, 4);
        assertEquals("def f(x):\n    return X + x\n", two.content());
        assertEquals(3, two.startLine());
        assertEquals(4, two.endLine());
        assertEquals(4, two.totalLines());
        assertFalse(two.truncated());
        assertEquals("import os\n", files.read(workspace, "pkg/a.py", 1, 1).content());
        assertEquals("    return X + x\n", files.read(workspace, "pkg/a.py", 4, 99).content(), "end past the file is clamped");
        FileExcerpt whole = files.read(workspace, "pkg/./sub/../a.py", 0, 0);
        assertEquals("pkg/a.py", whole.path());
        assertEquals(1, whole.startLine());
        assertEquals(4, whole.endLine());
    }

    @Test
    void readRefusesBadRangesBinaryFilesAndEscapes() {
        assertReason("LINE_RANGE_INVALID", () -> files.read(workspace, "pkg/a.py", 3, 2));
        assertReason("LINE_RANGE_INVALID", () -> files.read(workspace, "pkg/a.py", -1, 0));
        assertReason("LINE_OUT_OF_RANGE", () -> files.read(workspace, "pkg/a.py", 5, 0));
        assertReason("BINARY_FILE", () -> files.read(workspace, "pkg/blob.bin", 0, 0));
        assertReason("FILE_NOT_FOUND", () -> files.read(workspace, "pkg/none.py", 0, 0));
        assertReason("PATH_REQUIRED", () -> files.read(workspace, "", 0, 0));
        for (String escape : List.of("../healrt-spec.json", "/etc/passwd", "pkg/../../x", "pkg/escape.py")) {
            assertReason("PATH_ESCAPES_WORKSPACE", () -> files.read(workspace, escape, 0, 0));
        }
    }

    @Test
    void readIsCappedAndSaysSo() throws Exception {
        StringBuilder many = new StringBuilder();
        for (int i = 1; i <= WorkspaceFiles.MAX_LINES + 10; i++) {
            many.append("line ").append(i).append('\n');
        }
        Files.writeString(workspace.sourceDir().resolve("pkg/many.py"), many);
        FileExcerpt capped = files.read(workspace, "pkg/many.py", 0, 0);
        assertTrue(capped.truncated());
        assertEquals(WorkspaceFiles.MAX_LINES, capped.endLine());
        assertEquals(WorkspaceFiles.MAX_LINES + 10, capped.totalLines());
        FileExcerpt rest = files.read(workspace, "pkg/many.py", capped.endLine() + 1, 0);
        assertFalse(rest.truncated());
        assertEquals("line " + (WorkspaceFiles.MAX_LINES + 1) + "\n", rest.content().lines().findFirst().orElseThrow() + "\n");
    }

    @Test
    void listingIsSortedFilteredPagedAndConfined() {
        List<String> top = listing.list(workspace, "pkg", "", false, 0, "").entries().stream().map(FileEntry::path).toList();
        assertEquals(List.of("pkg/a.py", "pkg/b.py", "pkg/blob.bin", "pkg/sub"), top, "the symlink out of the sources is hidden");
        FileEntry sub = listing.list(workspace, "pkg", "", false, 0, "").entries().get(3);
        assertTrue(sub.directory());
        FileEntry a = listing.list(workspace, "pkg", "", false, 0, "").entries().get(0);
        assertEquals(38, a.size());

        List<String> py = listing.list(workspace, "", "**/*.py", true, 0, "").entries().stream().map(FileEntry::path).toList();
        assertEquals(List.of("pkg/a.py", "pkg/b.py", "pkg/sub/c.py"), py);

        List<String> paged = new ArrayList<>();
        String token = "";
        int pages = 0;
        do {
            FileListing page = listing.list(workspace, "", "", true, 2, token);
            assertTrue(page.entries().size() <= 2);
            page.entries().forEach(e -> paged.add(e.path()));
            token = page.nextPageToken();
            pages++;
        } while (!token.isEmpty());
        assertEquals(listing.list(workspace, "", "", true, 0, "").entries().stream().map(FileEntry::path).toList(), paged);
        assertEquals(4, pages, "7 entries in pages of 2");

        assertReason("PATH_ESCAPES_WORKSPACE", () -> listing.list(workspace, "..", "", false, 0, ""));
        assertReason("DIRECTORY_NOT_FOUND", () -> listing.list(workspace, "pkg/a.py", "", false, 0, ""));
        assertReason("PAGE_TOKEN_INVALID", () -> listing.list(workspace, "", "", false, 0, "not a token!"));
        assertReason("GLOB_INVALID", () -> listing.list(workspace, "", "[", false, 0, ""));
    }

    @Test
    void searchFindsLiteralsAndRegexesWithLineNumbers() {
        CodeSearchResult literal = search.search(workspace, new CodeQuery("return", false, true, "", 0, ""));
        assertEquals(List.of(new CodeMatch("pkg/a.py", 4, "    return X + x"), new CodeMatch("pkg/sub/c.py", 2, "    return 'x' * 3")),
                literal.matches());
        assertEquals(1, literal.filesSkipped(), "the binary file is skipped");

        assertEquals(List.of(), search.search(workspace, new CodeQuery("RETURN", false, true, "", 0, "")).matches());
        assertEquals(2, search.search(workspace, new CodeQuery("RETURN", false, false, "", 0, "")).matches().size());
        assertEquals(List.of(new CodeMatch("pkg/a.py", 3, "def f(x):"), new CodeMatch("pkg/sub/c.py", 1, "def g():")),
                search.search(workspace, new CodeQuery("^def \\w\\(", true, true, "", 0, "")).matches());
        assertEquals(List.of(new CodeMatch("pkg/sub/c.py", 2, "    return 'x' * 3")),
                search.search(workspace, new CodeQuery("return", false, true, "**/sub/*.py", 0, "")).matches());
        assertEquals(0, search.search(workspace, new CodeQuery("secret", false, true, "", 0, "")).matches().size(),
                "the symlink out of the sources is not searched");
        assertEquals(0, search.search(workspace, new CodeQuery("a.b", false, true, "", 0, "")).matches().size(),
                "a literal's dots are not regex wildcards");
        assertEquals(List.of(new CodeMatch("pkg/sub/long.txt", 1, "a".repeat(30) + "b")),
                search.search(workspace, new CodeQuery("a.b", true, true, "", 0, "")).matches());
    }

    @Test
    void searchPagesWithoutLosingOrRepeatingMatches() {
        List<CodeMatch> all = search.search(workspace, new CodeQuery("x", false, false, "", 0, "")).matches();
        assertTrue(all.size() >= 4, all.toString());
        List<CodeMatch> paged = new ArrayList<>();
        String token = "";
        do {
            CodeSearchResult page = search.search(workspace, new CodeQuery("x", false, false, "", 1, token));
            paged.addAll(page.matches());
            token = page.nextPageToken();
        } while (!token.isEmpty());
        assertEquals(all, paged);
    }

    @Test
    void searchRefusesBadPatternsAndStopsCatastrophicOnes() throws Exception {
        assertReason("REGEX_INVALID", () -> search.search(workspace, new CodeQuery("(", true, true, "", 0, "")));
        assertReason("QUERY_REQUIRED", () -> search.search(workspace, new CodeQuery("", false, true, "", 0, "")));
        Files.writeString(workspace.sourceDir().resolve("pkg/evil.txt"), "a".repeat(40) + "!\n");
        long start = System.nanoTime();
        assertReason("SEARCH_TIMEOUT", () -> search.search(workspace, new CodeQuery("(.*a){12}b", true, true, "**/evil.txt", 0, "")));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertTrue(seconds <= CodeSearch.SEARCH_TIME_LIMIT.toSeconds() + 2, "stopped after " + seconds + " s");
    }

    @Test
    void sourcesSwappedForASymlinkOutAreNotFollowed() throws Exception {
        // The session owns its workspace: it can move the sources away and leave a link to anything in their place.
        Path src = workspace.sourceDir();
        Files.move(src, dir.resolve("src.moved"));
        Files.createSymbolicLink(src, outside);
        assertReason("WORKSPACE_DELETED", () -> files.read(workspace, "secret.py", 0, 0));
        assertReason("WORKSPACE_DELETED", () -> listing.list(workspace, "", "", true, 0, ""));
        assertReason("WORKSPACE_DELETED", () -> search.search(workspace, new CodeQuery("secret", false, true, "", 0, "")));
        Files.delete(src);
        // A directory inside the sources swapped for a link out: neither read through nor listed.
        Files.move(dir.resolve("src.moved"), src);
        Files.move(src.resolve("pkg/sub"), dir.resolve("sub.moved"));
        Files.createSymbolicLink(src.resolve("pkg/sub"), outside);
        assertReason("PATH_ESCAPES_WORKSPACE", () -> files.read(workspace, "pkg/sub/secret.py", 0, 0));
        assertFalse(listing.list(workspace, "", "", true, 0, "").entries().stream().anyMatch(e -> e.path().contains("secret")));
    }

    @Test
    void aFileSwappedForASymlinkWhileBeingReadNeverYieldsWhatItPointsTo() throws Exception {
        Path src = workspace.sourceDir();
        Path target = src.resolve("pkg/b.py");
        Path plain = dir.resolve("b.plain");
        Path link = dir.resolve("b.link");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread swapper = new Thread(() -> {
            try {
                while (!stop.get()) {
                    Files.writeString(plain, "x = 1\n");
                    Files.move(plain, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                    Files.deleteIfExists(link);
                    Files.createSymbolicLink(link, outside.resolve("secret.py"));
                    Files.move(link, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        swapper.start();
        int read = 0;
        try {
            for (int i = 0; i < 3000; i++) {
                try {
                    String content = files.read(workspace, "pkg/b.py", 0, 0).content();
                    assertFalse(content.contains("secret"), "read the file a swapped-in symlink points to, on attempt " + i);
                    read++;
                } catch (SandboxException refused) {
                    assertTrue(List.of("PATH_ESCAPES_WORKSPACE", "FILE_CHANGED", "FILE_NOT_FOUND").contains(refused.reason()), refused.getMessage());
                }
                if (i % 100 == 0) {
                    assertEquals(0, search.search(workspace, new CodeQuery("secret", false, true, "", 0, "")).matches().size());
                }
            }
        } finally {
            stop.set(true);
            swapper.join();
        }
        assertTrue(read > 0, "the swap left no moment to read the real file");
    }

    private static void assertReason(String reason, Executable call) {
        SandboxException e = assertThrows(SandboxException.class, call::run);
        assertEquals(reason, e.reason(), e.getMessage());
    }

    /** A call expected to be refused. */
    @FunctionalInterface
    interface Executable {
        void run();
    }
}
