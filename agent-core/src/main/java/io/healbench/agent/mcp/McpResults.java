package io.healbench.agent.mcp;

import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.SessionTools;
import io.healbench.agent.service.external.ExternalBudget;
import io.healbench.agent.service.external.ExternalClaim;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.agent.service.external.ExternalReply;
import io.healbench.agent.service.external.ExternalStep;
import io.healbench.agent.service.llm.WorkspacePaths;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The domain's answers as MCP tool results: one text item (what an internal agent would read) and the same answer
 * typed in {@code structuredContent}. Paths inside the session's workspace are shown relative to its source root.
 *
 * <pre>
 * claim:          {attempt, instance_id, repeat, lease_seconds, state, heal_point, exception_type, proceeded, budget}
 * heal:           {state, heal_point, exception_type, proceeded, changed, budget}
 * reraise:        {state, heal_point, exception_type, proceeded, budget}
 * other tools:    {budget, ...the tool's typed answer}
 * errors:         isError, text "REASON: message", {reason, message, fatal}
 * </pre>
 *
 * {@code state} is {@code crashed} (the program stands at heal point {@code heal_point}) or {@code finished} (it
 * ended; {@code proceeded} when it ran to its end).
 */
final class McpResults {

    static final String CRASHED = "crashed";
    static final String FINISHED = "finished";

    private McpResults() {
    }

    static McpSchema.CallToolResult claim(ExternalClaim claim) {
        String text = "attempt: " + claim.attempt() + "\ninstance: " + claim.instanceId() + "\nrepeat: " + claim.repeat()
                + "\nlease_seconds: " + claim.leaseSeconds() + "\n\n" + claim.step().render();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("attempt", claim.attempt());
        out.put("instance_id", claim.instanceId());
        out.put("repeat", claim.repeat());
        out.put("lease_seconds", claim.leaseSeconds());
        step(out, claim.step());
        if (claim.budget() != null) {
            out.put("budget", budget(claim.budget()));
        }
        return result(text, out, false);
    }

    /** The answer to one action of the surface ({@code get_crash} … {@code search_code}). */
    static McpSchema.CallToolResult reply(ExternalReply reply) {
        Map<String, Object> out = new LinkedHashMap<>();
        Object value = reply.value();
        if (value instanceof ExternalReply.Healed healed) {
            step(out, healed.step());
            out.put("changed", healed.changed().stream().map(McpResults::rel).toList());
        } else if (value instanceof ExternalStep step) {
            step(out, step);
        } else if (value instanceof CrashObservation crash) {
            out.put("state", CRASHED);
            crash(out, crash);
        } else if (value instanceof SessionTools.ProbeReply probe) {
            out.put("ok", probe.ok());
            out.put("output", rel(probe.output()));
            out.put("value_repr", rel(probe.valueRepr()));
            out.put("error", rel(probe.error()));
        } else if (value instanceof SessionTools.FileView file) {
            out.put("path", rel(file.path()));
            out.put("content", nz(file.content()));
            out.put("start_line", file.startLine());
            out.put("end_line", file.endLine());
            out.put("total_lines", file.totalLines());
            out.put("truncated", file.truncated());
        } else if (value instanceof SessionTools.FileListing listing) {
            List<Map<String, Object>> entries = new ArrayList<>();
            for (SessionTools.FileEntry entry : listing.entries()) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("path", rel(entry.path()));
                e.put("size_bytes", entry.size());
                e.put("directory", entry.directory());
                entries.add(e);
            }
            out.put("entries", entries);
            out.put("more", listing.more());
        } else if (value instanceof SessionTools.CodeMatches found) {
            List<Map<String, Object>> matches = new ArrayList<>();
            for (SessionTools.CodeMatch match : found.matches()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("path", rel(match.path()));
                m.put("line", match.line());
                m.put("text", nz(match.text()));
                matches.add(m);
            }
            out.put("matches", matches);
            out.put("more", found.more());
            out.put("files_skipped", found.filesSkipped());
        }
        if (reply.budget() != null) {
            out.put("budget", budget(reply.budget()));
        }
        return result(nz(reply.observation()), out, false);
    }

    static McpSchema.CallToolResult usageReported(ExternalBudget budget) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("budget", budget(budget));
        return result("usage recorded (self-reported)", out, false);
    }

    static McpSchema.CallToolResult failure(ExternalFailure failure) {
        String message = failure.getMessage() == null ? "" : failure.getMessage();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("reason", failure.reason());
        out.put("message", message);
        out.put("fatal", failure.fatal());
        return result(failure.reason() + ": " + message, out, true);
    }

    static Map<String, Object> budget(ExternalBudget budget) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("wall_ms_left", budget.wallMsLeft());
        out.put("actions_left", budget.actionsLeft());
        out.put("probes_left", budget.probesLeft());
        out.put("heals_left", budget.healsLeft());
        return out;
    }

    /** Where the program stands: the contract's four keys always, with the details of a crash or an end. */
    static void step(Map<String, Object> out, ExternalStep step) {
        if (step.isFinished()) {
            ExternalStep.Finished end = step.finished();
            out.put("state", FINISHED);
            out.put("heal_point", 0);
            out.put("exception_type", "");
            out.put("proceeded", end.proceeded());
            out.put("exit_cause", end.exitCause().wireName());
            out.put("heal_points", end.healPoints());
        } else {
            out.put("state", CRASHED);
            crash(out, step.crash());
        }
    }

    private static void crash(Map<String, Object> out, CrashObservation crash) {
        out.put("heal_point", crash.healPoint());
        out.put("exception_type", crash.exceptionType());
        out.put("proceeded", false);
        out.put("exception_message", rel(crash.exceptionMessage()));
        out.put("file", rel(crash.statement().file()));
        out.put("line", crash.statement().line());
        out.put("statement", nz(crash.statement().source()));
        List<Map<String, Object>> locals = new ArrayList<>();
        for (ObservedLocal local : crash.locals()) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("name", local.name());
            l.put("type", local.type());
            l.put("repr", rel(local.repr()));
            locals.add(l);
        }
        out.put("locals", locals);
    }

    private static McpSchema.CallToolResult result(String text, Map<String, Object> structured, boolean error) {
        return McpSchema.CallToolResult.builder()
                .addTextContent(text)
                .structuredContent(structured)
                .isError(error)
                .build();
    }

    private static String rel(String text) {
        return text == null ? "" : WorkspacePaths.relative(text);
    }

    private static String nz(String text) {
        return text == null ? "" : text;
    }
}
