package io.healbench.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Service tokens: what one internal service shows another (sandbox, guard, agent gateway) to be let in. A token is a
 * compact JWT signed with HMAC-SHA256 under a key every service of a deployment shares (a Kubernetes Secret); it
 * names the caller ({@code sub}), the one service it is for ({@code aud}: the gRPC service's full name), and expires
 * ({@code exp}) two minutes after it was made. The key is the credential: a pod without it can reach a service (the
 * NetworkPolicies say which may) but cannot call it.
 */
public final class ServiceTokens {

    /** How long a token is good for; clients make a new one well before. */
    public static final Duration LIFETIME = Duration.ofMinutes(2);
    /** Clock skew tolerated between services. */
    static final Duration LEEWAY = Duration.ofSeconds(30);
    /** Shortest key: HMAC-SHA256 wants at least its output size. */
    static final int MIN_KEY_BYTES = 32;
    static final String ISSUER = "healbench";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();
    private static final String HEADER = B64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));

    private final byte[] key;
    private final Clock clock;

    public ServiceTokens(byte[] key, Clock clock) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("a service-token key needs at least " + MIN_KEY_BYTES + " bytes, got " + key.length);
        }
        this.key = key.clone();
        this.clock = clock;
    }

    /** A fresh random key, for a deployment that is one process (the standalone run). */
    public static byte[] randomKey() {
        byte[] key = new byte[MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return key;
    }

    /** A token from {@code caller} for {@code audience}. */
    public String mint(String caller, String audience) {
        Instant now = clock.instant();
        ObjectNode claims = JSON.createObjectNode().put("iss", ISSUER).put("sub", caller).put("aud", audience)
                .put("iat", now.getEpochSecond()).put("exp", now.plus(LIFETIME).getEpochSecond())
                .put("jti", UUID.randomUUID().toString());
        String body = HEADER + "." + B64.encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8));
        return body + "." + B64.encodeToString(sign(body));
    }

    /** What a verified token says. */
    public record Verified(String caller, String audience, Instant expires) {}

    /** Why a token was refused: the reason goes into the call's error as is. */
    public static final class Refused extends Exception {
        private final String reason;

        Refused(String reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }

    /** Checks signature, issuer, audience and expiry; nothing of an unverified token is believed. */
    public Verified verify(String token, String audience) throws Refused {
        if (token == null || token.isEmpty()) {
            throw new Refused("SERVICE_TOKEN_REQUIRED", "this service accepts calls from HealBench services only: a service token is required");
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(HEADER)) {
            throw new Refused("SERVICE_TOKEN_INVALID", "the service token is not an HS256 token of HealBench's");
        }
        byte[] signature;
        try {
            signature = B64D.decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw new Refused("SERVICE_TOKEN_INVALID", "the service token's signature is not base64url");
        }
        if (!MessageDigest.isEqual(signature, sign(parts[0] + "." + parts[1]))) {
            throw new Refused("SERVICE_TOKEN_INVALID", "the service token's signature does not verify (a different key, or altered)");
        }
        JsonNode claims;
        try {
            claims = JSON.readTree(B64D.decode(parts[1]));
        } catch (IllegalArgumentException | IOException e) {
            throw new Refused("SERVICE_TOKEN_INVALID", "the service token's claims are not JSON");
        }
        if (!ISSUER.equals(claims.path("iss").asText()) || !claims.path("exp").canConvertToLong()) {
            throw new Refused("SERVICE_TOKEN_INVALID", "the service token has no HealBench issuer or no expiry");
        }
        Instant expires = Instant.ofEpochSecond(claims.path("exp").asLong());
        if (clock.instant().isAfter(expires.plus(LEEWAY))) {
            throw new Refused("SERVICE_TOKEN_EXPIRED", "the service token expired at " + expires);
        }
        String tokenAudience = claims.path("aud").asText();
        if (!tokenAudience.equals(audience)) {
            throw new Refused("SERVICE_TOKEN_AUDIENCE", "the service token is for '" + tokenAudience + "', not for " + audience);
        }
        return new Verified(claims.path("sub").asText(), tokenAudience, expires);
    }

    private byte[] sign(String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
