package io.healbench.sandbox.service.workspace;

import io.healbench.common.paging.OpaquePageToken;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;

/**
 * Opaque page tokens of the repository view: the position after the last item of a page (a path, or a path and a
 * line), so the next page starts right after it even if the caller waited in between.
 */
final class PageToken {

    private PageToken() {}

    static String after(String path, int line) {
        return OpaquePageToken.encode(path, Integer.toString(line));
    }

    /** The position a token stands for; {@code null} for an empty token (the first page). */
    static Position decode(String token) {
        if (token == null || token.isEmpty()) {
            return null;
        }
        try {
            String[] parts = OpaquePageToken.decode(token, 2);
            return new Position(parts[0], Integer.parseInt(parts[1]));
        } catch (IllegalArgumentException e) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PAGE_TOKEN_INVALID", "page_token is not one this service issued");
        }
    }

    /** A path and a line (0 for listings); items at or before it were on earlier pages. */
    record Position(String path, int line) {

        boolean isAfter(String otherPath, int otherLine) {
            int byPath = path.compareTo(otherPath);
            return byPath < 0 || (byPath == 0 && line < otherLine);
        }
    }

    /** Page size from a request: {@code fallback} for 0, at most {@code max}; negative is refused. */
    static int size(int requested, int fallback, int max, String field) {
        if (requested < 0) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PAGE_SIZE_INVALID", field + " must not be negative");
        }
        return requested == 0 ? fallback : Math.min(requested, max);
    }
}
