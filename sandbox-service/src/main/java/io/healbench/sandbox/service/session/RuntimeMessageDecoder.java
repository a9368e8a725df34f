package io.healbench.sandbox.service.session;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.healbench.sandbox.service.model.CrashContext;
import io.healbench.sandbox.service.model.GuardDecision;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ProbeOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Decodes the runtime's JSON lines into {@link RuntimeMessage}s and encodes commands. */
final class RuntimeMessageDecoder {

    /** A runtime heal_result reason that means the code was refused before it ran. */
    private static final String RUNTIME_REJECTION = "forbidden";

    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private RuntimeMessageDecoder() {}

    static RuntimeMessage decode(String line) {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            return new RuntimeMessage.Malformed(line, "not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject() || !node.path("type").isTextual()) {
            return new RuntimeMessage.Malformed(line, "not a JSON object with a 'type'");
        }
        try {
            return switch (node.get("type").asText()) {
                case "hello" -> new RuntimeMessage.Hello(node.path("pid").asLong(), node.path("python").asText(""), node.path("protocol").asInt());
                case "crash" -> new RuntimeMessage.Crash(normalized(JSON.treeToValue(required(node, "context"), CrashContext.class)));
                case "probe_result" -> new RuntimeMessage.ProbeReply(node.path("id").asText(""), new ProbeOutcome(
                        node.path("ok").asBoolean(), text(node, "output"), text(node, "value"), text(node, "error")));
                case "heal_result" -> new RuntimeMessage.HealReply(node.path("id").asText(""), healOutcome(node));
                case "event" -> event(node);
                case "finished" -> new RuntimeMessage.Finished(normalized(JSON.treeToValue(required(node, "outcome"), Outcome.class)));
                default -> new RuntimeMessage.Malformed(line, "unknown message type '" + node.get("type").asText() + "'");
            };
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return new RuntimeMessage.Malformed(line, "bad '" + node.get("type").asText() + "' message: " + e.getMessage());
        }
    }

    /** Serializes a command as one JSON line (no embedded newlines: JSON escapes them). */
    static String encode(Map<String, Object> command) {
        try {
            return JSON.writeValueAsString(command);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode command " + command.get("cmd"), e);
        }
    }

    private static HealOutcome healOutcome(JsonNode node) {
        boolean ok = node.path("ok").asBoolean();
        HealOutcome.HealError error = null;
        if (!ok) {
            JsonNode err = node.path("error");
            String reason = err.path("reason").asText("failed");
            error = new HealOutcome.HealError(RUNTIME_REJECTION.equals(reason), reason.toUpperCase(Locale.ROOT),
                    err.path("message").asText(""));
        }
        List<String> changed = new ArrayList<>();
        node.path("changed").forEach(n -> changed.add(n.asText()));
        return new HealOutcome(ok, error, text(node, "traceback"), List.copyOf(changed), node.path("resume").asText("skip"), List.of());
    }

    private static RuntimeMessage event(JsonNode node) {
        String kind = node.path("kind").asText("");
        if (kind.startsWith("guard")) {
            return new RuntimeMessage.GuardEvent(new GuardDecision(node.path("heal_point").asInt(),
                    node.path("stage").asText("dynamic"), node.path("verdict").asText(""), node.path("reason").asText(kind)));
        }
        return new RuntimeMessage.Note(kind, node.toString());
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isObject()) {
            throw new IllegalArgumentException("field '" + field + "' must be an object");
        }
        return value;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? "" : value.isTextual() ? value.asText() : value.toString();
    }

    private static CrashContext normalized(CrashContext c) {
        return new CrashContext(c.healPoint(), nonNull(c.exceptionType()), nonNull(c.exceptionMessage()), listOf(c.traceback()),
                listOf(c.locals()), c.statement(), nonNull(c.functionSource()), listOf(c.callerSources()), c.inFunction());
    }

    private static Outcome normalized(Outcome o) {
        return new Outcome(o.proceeded(), o.passed(), o.healPoints(), o.healsApplied(), o.healsRejected(), nonNull(o.exitCause()),
                o.exitCode(), o.wallTimeMs(), o.trace() == null ? Map.of() : o.trace(), nonNull(o.detail()));
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }

    private static <T> List<T> listOf(List<T> list) {
        return list == null ? List.of() : list;
    }
}
