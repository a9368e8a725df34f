package io.healbench.sandbox.service.workspace;

import io.healbench.sandbox.service.Abbreviation;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Searches a workspace's sources line by line for a literal or a java.util.regex pattern. A backtracking pattern
 * can take exponential time on one line, so every search runs against a deadline checked while the regex engine
 * reads characters; a search that exceeds it is refused, not left running.
 */
@ApplicationScoped
public class CodeSearch {

    static final int DEFAULT_PAGE_SIZE = 100;
    static final int MAX_PAGE_SIZE = 1000;
    static final int MAX_QUERY_CHARS = 1000;
    static final int MAX_LINE_TEXT = 500;
    static final long MAX_FILE_BYTES = 2L * 1024 * 1024;
    static final Duration SEARCH_TIME_LIMIT = Duration.ofSeconds(5);

    public CodeSearchResult search(Workspace workspace, CodeQuery query) {
        Pattern pattern = compile(query);
        int limit = PageToken.size(query.pageSize(), DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, "page_size");
        PageToken.Position after = PageToken.decode(query.pageToken());
        PathMatcher glob = SourceTree.glob(query.pathGlob());
        SourceTree tree = new SourceTree(workspace);
        long deadline = System.nanoTime() + SEARCH_TIME_LIMIT.toNanos();
        List<CodeMatch> matches = new ArrayList<>();
        int skipped = 0;
        for (SourceTree.Entry file : tree.walk(tree.directory(""), true)) {
            String relative = tree.relative(file);
            if (file.directory() || !tree.matches(glob, file)
                    || (after != null && after.path().compareTo(relative) > 0)) {
                continue;
            }
            List<String> lines = searchableLines(tree, file);
            if (lines == null) {
                skipped++;
                continue;
            }
            for (int n = 1; n <= lines.size(); n++) {
                if (after != null && !after.isAfter(relative, n)) {
                    continue;
                }
                if (!find(pattern, lines.get(n - 1), deadline, query.query())) {
                    continue;
                }
                if (matches.size() == limit) {
                    CodeMatch last = matches.get(matches.size() - 1);
                    return new CodeSearchResult(List.copyOf(matches), PageToken.after(last.path(), last.line()), skipped);
                }
                matches.add(new CodeMatch(relative, n, cap(lines.get(n - 1))));
            }
        }
        return new CodeSearchResult(List.copyOf(matches), "", skipped);
    }

    private static Pattern compile(CodeQuery query) {
        String text = query.query();
        if (text == null || text.isEmpty()) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "QUERY_REQUIRED", "query is required");
        }
        if (text.length() > MAX_QUERY_CHARS) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "QUERY_TOO_LONG", "query is longer than " + MAX_QUERY_CHARS + " characters");
        }
        int flags = query.caseSensitive() ? 0 : Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
        try {
            return Pattern.compile(query.regex() ? text : Pattern.quote(text), flags);
        } catch (PatternSyntaxException e) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "REGEX_INVALID", "invalid regular expression: " + e.getMessage());
        }
    }

    /** The file's lines, or null when it is binary, too large to search, or changed while being read. */
    private static List<String> searchableLines(SourceTree tree, SourceTree.Entry file) {
        try {
            return tree.read(file, MAX_FILE_BYTES).filter(content -> !SourceTree.binary(content))
                    .map(content -> WorkspaceFiles.decode(content).lines().toList()).orElse(null);
        } catch (SandboxException e) {
            return null;
        }
    }

    private static boolean find(Pattern pattern, String line, long deadline, String query) {
        try {
            Matcher matcher = pattern.matcher(new DeadlineChars(line, deadline));
            return matcher.find();
        } catch (SearchTimedOut e) {
            throw new SandboxException(Kind.DEADLINE_EXCEEDED, "SEARCH_TIMEOUT", "the search for '" + cap(query)
                    + "' did not finish within " + SEARCH_TIME_LIMIT.toSeconds() + " s (a pattern with nested repetition can backtrack"
                    + " exponentially); narrow the pattern or the path glob");
        }
    }

    private static String cap(String text) {
        return Abbreviation.abbreviate(text, MAX_LINE_TEXT);
    }

    /** Thrown from inside the regex engine when the deadline has passed. */
    private static final class SearchTimedOut extends RuntimeException {
        SearchTimedOut() {
            super(null, null, false, false);
        }
    }

    /** Characters of one line that check the search deadline every few thousand reads. */
    private static final class DeadlineChars implements CharSequence {

        private final CharSequence chars;
        private final long deadline;
        private int reads;

        DeadlineChars(CharSequence chars, long deadline) {
            this.chars = chars;
            this.deadline = deadline;
        }

        @Override
        public char charAt(int index) {
            if ((++reads & 0x3FF) == 0 && System.nanoTime() > deadline) {
                throw new SearchTimedOut();
            }
            return chars.charAt(index);
        }

        @Override
        public int length() {
            return chars.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new DeadlineChars(chars.subSequence(start, end), deadline);
        }

        @Override
        public String toString() {
            return chars.toString();
        }
    }
}
