package io.healbench.agent.cassette;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A request URL with its secrets taken out, as a cassette stores it: no user info, no fragment, and no query parameter
 * whose name contains {@code key}, {@code token} or {@code secret} (Gemini, for one, can put its API key in
 * {@code ?key=}). The other parameters stay, in their order, because they can change the answer ({@code alt=sse},
 * {@code api-version=...}).
 *
 * @param url  scheme, host, port, path and the kept query, for a person reading the file
 * @param path the path and the kept query without scheme, host or port: what the {@link ExchangeKey} covers
 */
record SanitizedUrl(String url, String path) {

    static SanitizedUrl of(String raw) {
        String withoutFragment = raw.split("#", 2)[0];
        String[] baseAndQuery = withoutFragment.split("\\?", 2);
        String base = baseAndQuery[0];
        String query = baseAndQuery.length > 1 ? keptParameters(baseAndQuery[1]) : "";

        int schemeEnd = base.indexOf("://");
        int authorityStart = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int pathStart = base.indexOf('/', authorityStart);
        String origin = withoutUserInfo(pathStart < 0 ? base : base.substring(0, pathStart), authorityStart);
        String path = pathStart < 0 ? "/" : base.substring(pathStart);

        String pathAndQuery = query.isEmpty() ? path : path + "?" + query;
        return new SanitizedUrl(origin + pathAndQuery, pathAndQuery);
    }

    private static String withoutUserInfo(String origin, int authorityStart) {
        int at = origin.lastIndexOf('@');
        return at < authorityStart ? origin : origin.substring(0, authorityStart) + origin.substring(at + 1);
    }

    private static String keptParameters(String query) {
        return Arrays.stream(query.split("&"))
                .filter(parameter -> !parameter.isEmpty() && !secret(parameter.split("=", 2)[0]))
                .collect(Collectors.joining("&"));
    }

    private static boolean secret(String encodedName) {
        String name;
        try {
            name = URLDecoder.decode(encodedName, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException badEscape) {
            name = encodedName; // still checked as written, so a malformed name cannot smuggle a key through
        }
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.contains("key") || lower.contains("token") || lower.contains("secret");
    }
}
