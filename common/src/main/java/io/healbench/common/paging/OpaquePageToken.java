package io.healbench.common.paging;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * AIP-158 page tokens: the position after a page's last item, as a few text parts, encoded so that callers treat it as
 * opaque. Services check every decoded part themselves; a token that does not decode is the caller's error.
 */
public final class OpaquePageToken {

    private static final String SEPARATOR = "\n";

    private OpaquePageToken() {}

    public static String encode(String... parts) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(String.join(SEPARATOR, parts).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The {@code count} parts a token holds.
     *
     * @throws IllegalArgumentException when the token was not made by {@link #encode} with {@code count} parts
     */
    public static String[] decode(String token, int count) {
        String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        String[] parts = text.split(SEPARATOR, -1);
        if (parts.length != count) {
            throw new IllegalArgumentException("a page token of " + parts.length + " parts, not " + count);
        }
        return parts;
    }
}
