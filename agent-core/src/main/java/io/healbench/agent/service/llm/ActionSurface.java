package io.healbench.agent.service.llm;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.SessionTools;
import io.healbench.common.heal.Resume;
import java.time.Duration;
import java.util.Locale;

/**
 * Runs one checked action at a heal point. Looking (get_crash, probe, the read-only views) yields an observation;
 * heal and reraise yield the decision that ends the heal point. A refusal by the sandbox is an observation too: the
 * agent reads why and goes on. Every observation is capped ({@link ObservationCap}).
 */
public final class ActionSurface {

    private final HealPoint point;

    public ActionSurface(HealPoint point) {
        this.point = point;
    }

    /**
     * What an action produced: an observation for the agent, or a decision for the runner. {@code value} is what the
     * sandbox answered, typed (a {@link SessionTools} reply, or the {@link io.healbench.agent.service.CrashObservation}),
     * for the external API; {@code refusal} says why the sandbox refused the request (empty when it did not).
     */
    public record Result(String observation, AgentDecision decision, Object value, String refusal) {
        static Result observed(String text, Object value) {
            return new Result(ObservationCap.cap(WorkspacePaths.relative(text), ObservationCap.DEFAULT_CHARS), null, value, "");
        }

        static Result refused(String why) {
            return new Result(ObservationCap.cap(WorkspacePaths.relative("error: " + why), ObservationCap.DEFAULT_CHARS),
                    null, null, WorkspacePaths.relative(why));
        }

        static Result decided(AgentDecision decision) {
            return new Result("", decision, null, "");
        }

        public boolean decided() {
            return decision != null;
        }
    }

    public Result run(Action action) {
        try {
            return switch (action.tool()) {
                case ActionCatalog.GET_CRASH -> Result.observed(CrashBrief.render(point.crash()), point.crash());
                case ActionCatalog.PROBE -> probe(action);
                case ActionCatalog.HEAL -> Result.decided(new AgentDecision.Heal(text(action, "code"),
                        Resume.parse(text(action, "resume"))));
                case ActionCatalog.RERAISE -> Result.decided(new AgentDecision.Reraise(text(action, "reason")));
                case ActionCatalog.READ_FILE -> readFile(action);
                case ActionCatalog.LIST_FILES -> listFiles(action);
                case ActionCatalog.SEARCH_CODE -> searchCode(action);
                default -> throw new IllegalArgumentException("no tool named " + action.tool());
            };
        } catch (SessionTools.Refused refused) {
            return Result.refused(refused.getMessage());
        }
    }

    private Result probe(Action action) {
        Object seconds = action.arguments().get("timeout_s");
        Duration timeout = seconds == null ? Duration.ZERO : Duration.ofMillis(Math.round((Double) seconds * 1000));
        SessionTools.ProbeReply reply = point.tools().probe(text(action, "code"), timeout);
        StringBuilder out = new StringBuilder();
        if (!reply.output().isEmpty()) {
            out.append("output:\n").append(reply.output()).append(reply.output().endsWith("\n") ? "" : "\n");
        }
        if (reply.ok()) {
            out.append("value: ").append(reply.valueRepr().isEmpty() ? "None" : reply.valueRepr());
        } else {
            out.append("error: ").append(reply.error());
        }
        return Result.observed(out.toString(), reply);
    }

    private Result readFile(Action action) {
        SessionTools.FileView file = point.tools().readFile(text(action, "path"), integer(action, "start"),
                integer(action, "end"));
        String header = file.path() + " (lines " + file.startLine() + "-" + file.endLine() + " of " + file.totalLines()
                + (file.truncated() ? "; cut at the output cap, ask for a later start" : "") + ")\n";
        return Result.observed(header + numbered(file.content(), file.startLine()), file);
    }

    private Result listFiles(Action action) {
        SessionTools.FileListing listing = point.tools().listFiles(optional(action, "path"), optional(action, "glob"));
        StringBuilder out = new StringBuilder();
        for (SessionTools.FileEntry entry : listing.entries()) {
            out.append(entry.path()).append(entry.directory() ? "/" : "  (" + entry.size() + " bytes)").append('\n');
        }
        if (listing.entries().isEmpty()) {
            out.append("(no files)\n");
        }
        if (listing.more()) {
            out.append("[more files: narrow the path or the glob]\n");
        }
        return Result.observed(out.toString(), listing);
    }

    private Result searchCode(Action action) {
        SessionTools.CodeMatches found = point.tools().searchCode(text(action, "pattern"), optional(action, "glob"));
        StringBuilder out = new StringBuilder();
        for (SessionTools.CodeMatch match : found.matches()) {
            out.append(match.path()).append(':').append(match.line()).append(": ").append(match.text()).append('\n');
        }
        if (found.matches().isEmpty()) {
            out.append("(no matches)\n");
        }
        if (found.more()) {
            out.append("[more matches: narrow the pattern or the glob]\n");
        }
        return Result.observed(out.toString(), found);
    }

    private static String numbered(String content, int first) {
        String[] lines = content.split("\n", -1);
        int count = content.endsWith("\n") ? lines.length - 1 : lines.length;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < count; i++) {
            out.append(String.format(Locale.ROOT, "%5d  %s%n", first + i, lines[i]));
        }
        return out.toString();
    }

    private static String text(Action action, String name) {
        return (String) action.arguments().get(name);
    }

    private static String optional(Action action, String name) {
        Object value = action.arguments().get(name);
        return value == null ? "" : (String) value;
    }

    private static int integer(Action action, String name) {
        Object value = action.arguments().get(name);
        return value == null ? 0 : (Integer) value;
    }
}
