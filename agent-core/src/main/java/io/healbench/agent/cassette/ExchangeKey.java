package io.healbench.agent.cassette;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The key that finds a request's recorded exchange: sha256 over the method, the sanitized path (no host or port, so a
 * replay against a server on another port still matches) and the canonical body, each on its own line.
 */
final class ExchangeKey {

    /**
     * CPython object addresses, as in {@code <Foo object at 0x7f3a9c0d1e50>}: prompts quote reprs of the crashed
     * program's live objects, and the addresses change from one run to the next, so they must not change the key. The
     * price is that any hex literal of six digits or more in a prompt is ignored by the comparison too.
     */
    private static final Pattern OBJECT_ADDRESS = Pattern.compile("0x[0-9a-fA-F]{6,}");

    private ExchangeKey() {
    }

    static String of(String method, String path, String canonicalBody) {
        String masked = OBJECT_ADDRESS.matcher(canonicalBody).replaceAll("0x?");
        String keyed = method + "\n" + path + "\n" + masked;
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(keyed.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
