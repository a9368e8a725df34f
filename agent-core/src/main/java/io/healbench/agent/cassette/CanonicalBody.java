package io.healbench.agent.cassette;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * A request body in the form a cassette compares: JSON re-serialized with the keys of every object sorted and no
 * whitespace, so that two bodies meaning the same JSON compare equal however the client ordered its fields; anything
 * that is not one JSON value is kept verbatim.
 */
final class CanonicalBody {

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            // numbers come back as they were written: no rounding through double, no trailing zeros dropped
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
            .build();

    private CanonicalBody() {
    }

    static String of(String body) {
        if (body == null) {
            return "";
        }
        if (body.isBlank()) {
            return body; // holds no JSON value, and verbatim is the rule for those
        }
        try {
            JsonNode tree = JSON.readTree(body);
            return JSON.writeValueAsString(tree);
        } catch (JsonProcessingException notJson) {
            return body;
        }
    }
}
