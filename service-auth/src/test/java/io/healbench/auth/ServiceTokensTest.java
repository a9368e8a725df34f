package io.healbench.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Tokens verify under their own key and audience only, and not once expired or altered. */
class ServiceTokensTest {

    static final String SANDBOX = "healbench.sandbox.v1.SandboxService";
    static final Instant NOW = Instant.parse("2026-12-02T05:00:00Z");
    static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private static ServiceTokens at(Instant instant, byte[] key) {
        return new ServiceTokens(key, Clock.fixed(instant, ZoneOffset.UTC));
    }

    @Test
    void aTokenVerifiesForItsAudienceUntilItExpires() throws Exception {
        String token = at(NOW, KEY).mint("agent-service", SANDBOX);
        ServiceTokens.Verified verified = at(NOW.plusSeconds(60), KEY).verify(token, SANDBOX);
        assertEquals("agent-service", verified.caller());
        assertEquals(NOW.plus(ServiceTokens.LIFETIME), verified.expires());
        Instant late = NOW.plus(ServiceTokens.LIFETIME).plus(ServiceTokens.LEEWAY).plusSeconds(1);
        assertReason("SERVICE_TOKEN_EXPIRED", () -> at(late, KEY).verify(token, SANDBOX));
    }

    @Test
    void anotherKeyAnotherAudienceOrAnAlteredClaimIsRefused() {
        String token = at(NOW, KEY).mint("agent-service", SANDBOX);
        byte[] other = "another key, also thirty-two byt".getBytes(StandardCharsets.US_ASCII);
        assertReason("SERVICE_TOKEN_INVALID", () -> at(NOW, other).verify(token, SANDBOX));
        assertReason("SERVICE_TOKEN_AUDIENCE", () -> at(NOW, KEY).verify(token, "healbench.guard.v1.GuardService"));
        String[] parts = token.split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("\"aud\":\"" + SANDBOX + "\"", "\"aud\":\"healbench.guard.v1.GuardService\"");
        String altered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(claims.getBytes(StandardCharsets.UTF_8))
                + "." + parts[2];
        assertReason("SERVICE_TOKEN_INVALID", () -> at(NOW, KEY).verify(altered, "healbench.guard.v1.GuardService"));
        String unsigned = "eyJhbGciOiJub25lIn0." + parts[1] + ".";
        assertReason("SERVICE_TOKEN_INVALID", () -> at(NOW, KEY).verify(unsigned, SANDBOX));
        assertReason("SERVICE_TOKEN_REQUIRED", () -> at(NOW, KEY).verify(null, SANDBOX));
        assertReason("SERVICE_TOKEN_INVALID", () -> at(NOW, KEY).verify("not.a.token", SANDBOX));
    }

    @Test
    void aShortKeyIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ServiceTokens(new byte[16], Clock.systemUTC()));
        assertTrue(e.getMessage().contains("at least 32 bytes"), e.getMessage());
    }

    private interface Call {
        void run() throws ServiceTokens.Refused;
    }

    private static void assertReason(String reason, Call call) {
        ServiceTokens.Refused refused = assertThrows(ServiceTokens.Refused.class, call::run);
        assertEquals(reason, refused.reason(), refused.getMessage());
    }
}
