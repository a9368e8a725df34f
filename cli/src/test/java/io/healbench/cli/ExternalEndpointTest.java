package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ExternalEndpointTest {

    private static final Pattern GENERATED = Pattern.compile("hbl_[A-Za-z0-9_-]{43}");

    /**
     * A token is passed as {@code --token <token>} by the clients' command lines; argparse and our own parser read a
     * value that begins with '-' as an option. Unprefixed base64url began so once in 64 tokens: 4,096 draws all but
     * surely met one.
     */
    @Test
    void aGeneratedTokenNeverLooksLikeAnOptionAndNeverRepeats() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 4096; i++) {
            String token = ExternalEndpoint.randomToken();
            assertTrue(GENERATED.matcher(token).matches(), token);
            assertTrue(seen.add(token), "a token repeated: " + token);
        }
    }
}
