package io.healbench.sandbox.service.session;

import io.healbench.common.heal.Resume;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.sandbox.service.Abbreviation;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.common.outcome.ExitCause;
import io.healbench.sandbox.service.model.CrashContext;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.HealAnalysis;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ProbeOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Decodes the runtime's JSON lines into {@link RuntimeMessage}s. */
final class RuntimeMessageDecoder {

    /** A guard decision's reason (rule and flow path included) is kept to this many characters. */
    static final int MAX_REASON_CHARS = 2000;

    /** Runtime heal_result reasons that mean the heal was refused before it touched the live process. */
    private static final List<String> RUNTIME_REJECTIONS = List.of("forbidden", "aborted");

    /** heal_analysis carries module trees: nested as deep as CPython's parser allows, strings as long as a module. */
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(20_000).maxStringLength(64 * 1024 * 1024).build())
            .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(20_000).build())
            .build())
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
                case "heal_analysis" -> new RuntimeMessage.HealAnalysisReady(node.path("id").asText(""), healAnalysis(node));
                case "event" -> event(node);
                case "finished" -> new RuntimeMessage.Finished(reportedOutcome(required(node, "outcome")));
                default -> new RuntimeMessage.Malformed(line, "unknown message type '" + node.get("type").asText() + "'");
            };
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return new RuntimeMessage.Malformed(line, "bad '" + node.get("type").asText() + "' message: " + e.getMessage());
        }
    }

    private static HealOutcome healOutcome(JsonNode node) {
        boolean ok = node.path("ok").asBoolean();
        HealOutcome.HealError error = null;
        if (!ok) {
            JsonNode err = node.path("error");
            String reason = err.path("reason").asText("failed");
            error = new HealOutcome.HealError(RUNTIME_REJECTIONS.contains(reason), reason.toUpperCase(Locale.ROOT),
                    err.path("message").asText(""));
        }
        List<String> changed = new ArrayList<>();
        node.path("changed").forEach(n -> changed.add(n.asText()));
        return new HealOutcome(ok, error, text(node, "traceback"), List.copyOf(changed),
                Resume.parse(node.path("resume").asText("skip")), List.of());
    }

    private static HealAnalysis healAnalysis(JsonNode node) throws JsonProcessingException {
        List<HealAnalysis.DeltaEntry> delta = new ArrayList<>();
        node.path("delta").forEach(d -> {
            List<String> also = new ArrayList<>();
            d.path("also").forEach(path -> also.add(path.asText("")));
            delta.add(new HealAnalysis.DeltaEntry(d.path("location").asText(""), d.path("kind").asText(""),
                    text(d, "before"), text(d, "after"), List.copyOf(also)));
        });
        JsonNode point = required(node, "crash_point");
        List<HealAnalysis.CallSite> callers = new ArrayList<>();
        point.path("callers").forEach(c -> callers.add(new HealAnalysis.CallSite(c.path("file").asText(""), c.path("function").asText(""),
                c.path("qualname").asText(""), c.path("line").asInt(), c.path("col").asInt(), c.path("end_line").asInt(),
                c.path("end_col").asInt(), c.path("through_library").asBoolean())));
        HealAnalysis.CrashPoint crash = new HealAnalysis.CrashPoint(point.path("file").asText(""), point.path("function").asText(""),
                point.path("qualname").asText(""), point.path("line").asInt(), point.path("col").asInt(), point.path("end_line").asInt(),
                point.path("end_col").asInt(), point.path("kind").asText(""), Resume.parse(point.path("resume").asText("skip")), List.copyOf(callers));
        List<HealAnalysis.ModuleTree> modules = new ArrayList<>();
        for (JsonNode module : node.path("modules")) {
            if (!module.path("ast").isObject()) {
                throw new IllegalArgumentException("a module's 'ast' must be an object");
            }
            modules.add(new HealAnalysis.ModuleTree(module.path("file").asText(""), module.path("module").asText(""),
                    JSON.writeValueAsString(module.get("ast"))));
        }
        return new HealAnalysis(node.path("heal_point").asInt(), List.copyOf(delta), node.path("delta_truncated").asBoolean(), crash,
                List.copyOf(modules), node.path("modules_truncated").asBoolean());
    }

    private static RuntimeMessage event(JsonNode node) {
        String kind = node.path("kind").asText("");
        if (kind.startsWith("guard")) {
            GuardStage stage;
            GuardVerdict verdict;
            try {
                stage = GuardStage.parse(node.path("stage").asText("dynamic"));
                verdict = GuardVerdict.parse(node.path("verdict").asText(""));
            } catch (IllegalArgumentException e) {
                // Not a decision this build can record: it stays in the session's log as the runtime sent it.
                return new RuntimeMessage.Note(kind, node.toString());
            }
            // Each decision is kept in the session's log, and becomes a broker message and a database row: its size is
            // bounded here, whatever a line on the channel carries (lines may be 16 MiB).
            return new RuntimeMessage.GuardEvent(new GuardDecision(node.path("heal_point").asInt(), stage, verdict,
                    Abbreviation.abbreviate(guardReason(node, kind), MAX_REASON_CHARS)));
        }
        return new RuntimeMessage.Note(kind, node.toString());
    }

    /**
     * The decision's reason: the runtime's reason, and for a flow record (guard.py) its rule and witness path,
     * so the attempt's guard decisions say what reached which operation, e.g.
     * {@code open [label]: heal source name:mode (gzip.py:192) -> open(file) (gzip.py:192)}.
     */
    static String guardReason(JsonNode node, String kind) {
        String reason = node.path("reason").asText(kind);
        JsonNode flow = node.path("flow");
        if (!flow.isArray() || flow.isEmpty()) {
            return reason;
        }
        List<String> steps = new ArrayList<>();
        for (JsonNode step : flow) {
            String what = switch (step.path("kind").asText("")) {
                case "source" -> "heal source " + step.path("location").asText("?");
                case "elided" -> step.path("steps").asInt() + " more steps";
                case "sink" -> step.path("op").asText("?") + (step.hasNonNull("key_input") ? "(" + step.path("key_input").asText() + ")" : "");
                default -> step.path("op").asText("?");
            };
            steps.add(step.hasNonNull("file") ? what + " (" + step.path("file").asText() + ":" + step.path("line").asInt() + ")" : what);
        }
        String rule = node.path("rule").asText("");
        return reason + (rule.isEmpty() ? "" : " [" + rule + "]") + ": " + String.join(" -> ", steps);
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

    /**
     * healrt's outcome, its exit cause parsed here, once. A cause this build does not know is the runtime's fault: the
     * outcome is kept, as an ERROR whose detail quotes what was sent.
     */
    private static Outcome reportedOutcome(JsonNode reported) throws JsonProcessingException {
        ObjectNode fields = reported.deepCopy();
        String cause = text(fields, "exit_cause");
        fields.remove("exit_cause");
        Outcome o = JSON.treeToValue(fields, Outcome.class);
        ExitCause exitCause;
        String detail = nonNull(o.detail());
        try {
            exitCause = ExitCause.parse(cause);
        } catch (IllegalArgumentException unknown) {
            exitCause = ExitCause.ERROR;
            detail = "the runtime's " + unknown.getMessage() + (detail.isEmpty() ? "" : "; " + detail);
        }
        return Outcome.reported(o.proceeded(), o.passed(), o.healPoints(), o.healsApplied(), o.healsRejected(), exitCause,
                o.exitCode(), o.wallTimeMs(), o.trace() == null ? Map.of() : o.trace(), detail);
    }


    private static String nonNull(String s) {
        return s == null ? "" : s;
    }

    private static <T> List<T> listOf(List<T> list) {
        return list == null ? List.of() : list;
    }
}
