package io.healbench.agent.cassette;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The cassette file format: JSON Lines, one {@link RecordedExchange} a line, as
 * {@code {"key", "seq", "method", "url", "request", "status", "content_type", "response"}}. Blank lines are skipped.
 */
final class CassetteFormat {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    private CassetteFormat() {
    }

    /** The line, without its line break, that stores {@code exchange}. */
    static String line(RecordedExchange exchange) {
        ObjectNode node = JSON.createObjectNode()
                .put("key", exchange.key())
                .put("seq", exchange.seq())
                .put("method", exchange.method())
                .put("url", exchange.url())
                .put("request", exchange.request())
                .put("status", exchange.status())
                .put("content_type", exchange.contentType())
                .put("response", exchange.response());
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always serializes", e);
        }
    }

    /** The exchanges of {@code content}, read from {@code file}, in file order; a malformed line is named by its number. */
    static List<RecordedExchange> parse(Path file, String content) {
        List<RecordedExchange> exchanges = new ArrayList<>();
        List<String> lines = content.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                exchanges.add(exchange(lines.get(i), file + " line " + (i + 1)));
            }
        }
        return exchanges;
    }

    private static RecordedExchange exchange(String line, String where) {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("corrupt cassette: " + where + " is not JSON: " + e.getOriginalMessage(), e);
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("corrupt cassette: " + where + " is not a JSON object");
        }
        String key = text(node, "key", where);
        if (!SHA256_HEX.matcher(key).matches()) {
            throw new IllegalArgumentException("corrupt cassette: " + where + ": 'key' must be 64 lower-case hex digits");
        }
        JsonNode contentType = node.get("content_type");
        if (contentType != null && !contentType.isNull() && !contentType.isTextual()) {
            throw new IllegalArgumentException("corrupt cassette: " + where + ": 'content_type' must be a string or null");
        }
        int status = integer(node, "status", where);
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("corrupt cassette: " + where + ": 'status' " + status + " is no HTTP status");
        }
        return new RecordedExchange(key, integer(node, "seq", where), text(node, "method", where),
                text(node, "url", where), text(node, "request", where), status,
                contentType == null || contentType.isNull() ? null : contentType.asText(), text(node, "response", where));
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("corrupt cassette: " + where + ": '" + field + "' must be a string");
        }
        return value.asText();
    }

    private static int integer(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new IllegalArgumentException("corrupt cassette: " + where + ": '" + field + "' must be an integer");
        }
        return value.intValue();
    }
}
