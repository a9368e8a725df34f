package io.healbench.agent.service.llm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.healbench.agent.cassette.Cassette;
import io.healbench.agent.cassette.CassetteDivergenceException;
import io.healbench.agent.cassette.CassetteHttpClientBuilder;
import io.healbench.agent.cassette.CassetteMode;
import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentRecord;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealingAgent;
import io.healbench.agent.service.LlmSettings;
import io.healbench.common.backbone.Backbone;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The loop every LLM agent runs (docs/agents.md, "Agents"), in the manner of mini-swe-agent: ask the model, run the
 * actions of its reply, show it what they gave, repeat, until it heals or reraises. Every budget is checked before
 * every call; when one is spent the agent reraises rather than heal blind. The agents differ only in their
 * {@link Profile}: the tools offered, how actions are written, and the system prompt. The agents are
 * {@code @Singleton} beans: their state is per attempt, and this class has no no-argument constructor for a proxy.
 */
public abstract class LlmHealingAgent implements HealingAgent {

    /** What makes one LLM agent what it is. */
    protected record Profile(String name, List<String> tools, ActionFormat format, String systemPrompt) {

        /** A looping agent's profile: the whole action surface and the loop's system prompt, in {@code format}. */
        static Profile loop(String name, ActionFormat format) {
            return new Profile(name, ActionCatalog.allNames(), format, "system-loop");
        }
    }

    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private final Profile profile;
    private final ConfiguredBackbones backbones;
    private final RunSpend runSpend;
    private final Map<String, LlmAttempt> attempts = new ConcurrentHashMap<>();
    /** The same for every call and attempt of this agent, so made once. */
    private final List<ToolSpecification> specifications;
    private final String systemPrompt;

    protected LlmHealingAgent(Profile profile, ConfiguredBackbones backbones, RunSpend runSpend) {
        this.profile = profile;
        this.backbones = backbones;
        this.runSpend = runSpend;
        this.specifications = profile.format().specifications(profile.tools());
        this.systemPrompt = Prompts.render(profile.systemPrompt(),
                Map.of("actions", profile.format().instructions(profile.tools())));
    }

    @Override
    public String name() {
        return profile.name();
    }

    @Override
    public void attemptStarted(AttemptSpec spec) {
        LlmSettings llm = spec.llm();
        Backbone backbone = backbones.catalog().resolve(llm.backbone(), llm.priceInputPerMillion(), llm.priceOutputPerMillion());
        if (llm.limits().limitsCost() && !backbone.priced()) {
            throw new IllegalArgumentException("backbone " + backbone.name() + " is unpriced, so a cost limit cannot hold");
        }
        Budget budget = new Budget(llm.limits(), backbone.prices(), backbone.maxOutputTokens(), runSpend, spec.runId());
        budget.runExhausted().ifPresent(why -> {
            throw new IllegalStateException(why);
        });
        Optional<Cassette> cassette = llm.cassetteMode() == CassetteMode.OFF ? Optional.empty()
                : Optional.of(Cassette.open(cassetteFile(llm.cassetteDir().orElseThrow(), spec), llm.cassetteMode()));
        HttpClientBuilder http = cassette.<HttpClientBuilder>map(CassetteHttpClientBuilder::new)
                .orElseGet(JdkHttpClientBuilder::new);
        // API keys come from the process environment; a replay never reaches the provider, so it needs no key (and
        // must not demand one).
        Function<String, String> keys = llm.cassetteMode() == CassetteMode.REPLAY ? name -> ChatModels.PLACEHOLDER_KEY
                : System::getenv;
        attempts.put(spec.attemptId(), new LlmAttempt(backbone, ChatModels.build(backbone, http, keys), budget,
                new Trajectory(spec.attemptId(), profile.name(), backbone, llm.limits()), cassette, profile.format(),
                systemPrompt, specifications.toString()));
    }

    @Override
    public AgentDecision decide(HealPoint point) {
        LlmAttempt attempt = attempts.get(point.attemptId());
        if (attempt == null) {
            throw new IllegalStateException("attempt " + point.attemptId() + " was not started");
        }
        attempt.enter(point);
        if (attempt.hasDiverged()) {
            return attempt.stop(HealPointExit.REPLAY_DIVERGENCE, "an earlier heal point's replay diverged");
        }
        ActionSurface surface = new ActionSurface(point);
        while (true) {
            Optional<Budget.Stop> stop = attempt.budget.beforeCall(attempt.estimatedInputTokens());
            if (stop.isPresent()) {
                return attempt.stop(stop.get().exit(), stop.get().why());
            }
            long started = System.nanoTime();
            ChatResponse response;
            try {
                response = attempt.model.chat(ChatRequest.builder().messages(attempt.messages)
                        .toolSpecifications(specifications).build());
            } catch (RuntimeException e) {
                attempt.budget.callFailed();
                Optional<CassetteDivergenceException> divergence = divergenceIn(e);
                if (divergence.isPresent()) {
                    String where = "step " + (attempt.steps + 1) + " of heal point " + attempt.healPoint() + ": "
                            + divergence.get().getMessage();
                    attempt.diverged(where);
                    return attempt.stop(HealPointExit.REPLAY_DIVERGENCE, where);
                }
                return attempt.stop(HealPointExit.ERROR, "the model call failed: " + e.getMessage());
            }
            long latencyMs = (System.nanoTime() - started) / 1_000_000;
            CallUsage usage = ChatModels.usage(response.tokenUsage(), attempt.backbone);
            attempt.charged(usage);
            AiMessage reply = response.aiMessage();
            attempt.add(reply);
            List<ActionFormat.Parsed> actions = profile.format().parse(reply, profile.tools(), ++attempt.steps);
            ObjectNode step = attempt.trajectory.agent(reply.text() == null ? "" : reply.text(),
                    actions.stream().filter(ActionFormat.Parsed::usable).map(ActionFormat.Parsed::action).toList(),
                    usage, latencyMs, String.valueOf(response.finishReason()), attempt.healPoint());
            AgentDecision decision = act(attempt, surface, actions, step);
            if (actions.stream().noneMatch(ActionFormat.Parsed::usable)) {
                attempt.formatErrors++;
                if (attempt.budget.formatError()) {
                    return attempt.stop(HealPointExit.FORMAT_ERRORS, attempt.formatErrors + " malformed replies, the last: "
                            + actions.get(0).error());
                }
                continue;
            }
            attempt.budget.wellFormed();
            if (decision != null) {
                return decision;
            }
        }
    }

    /** Runs a reply's actions in order; the first heal or reraise is the decision, later actions are not run. */
    private static AgentDecision act(LlmAttempt attempt, ActionSurface surface, List<ActionFormat.Parsed> actions,
            ObjectNode step) {
        AgentDecision decision = null;
        for (ActionFormat.Parsed parsed : actions) {
            if (!parsed.usable()) {
                attempt.observe(step, parsed, Prompts.render("format-error", Map.of("error", parsed.error())));
                continue;
            }
            if (decision != null) {
                attempt.observe(step, parsed, "not run: this reply already ended the heal point");
                continue;
            }
            String tool = parsed.action().tool();
            if (tool.equals(ActionCatalog.PROBE)) {
                Optional<String> refused = attempt.budget.beforeProbe();
                if (refused.isPresent()) {
                    attempt.observe(step, parsed, "not run: " + refused.get());
                    continue;
                }
                attempt.budget.probed();
                attempt.probes++;
            } else if (ActionCatalog.explores(tool)) {
                attempt.explores++;
            }
            ActionSurface.Result result = surface.run(parsed.action());
            if (result.decided()) {
                decision = result.decision();
                if (decision instanceof AgentDecision.Heal) {
                    attempt.heals++;
                } else {
                    attempt.reraises++;
                }
                attempt.decided(parsed, step, decision);
            } else {
                attempt.observe(step, parsed, result.observation());
            }
        }
        return decision;
    }

    @Override
    public void healPointEnded(String attemptId, int healPoint, boolean healed) {
        LlmAttempt attempt = attempts.get(attemptId);
        if (attempt != null) {
            attempt.healPointEnded(healed);
        }
    }

    @Override
    public AgentRecord attemptEnded(String attemptId) {
        LlmAttempt attempt = attempts.remove(attemptId);
        return attempt == null ? AgentRecord.NONE : attempt.end();
    }

    /** One cassette per instance and repeat, so a replayed run finds each attempt's exchanges whatever the order. */
    private static Path cassetteFile(Path dir, AttemptSpec spec) {
        if (!SAFE_ID.matcher(spec.instanceId()).matches()) {
            throw new IllegalArgumentException("instance id '" + spec.instanceId() + "' cannot name a cassette file");
        }
        return dir.resolve(spec.instanceId() + ".r" + spec.repeat() + ".jsonl");
    }

    private static Optional<CassetteDivergenceException> divergenceIn(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CassetteDivergenceException divergence) {
                return Optional.of(divergence);
            }
        }
        return Optional.empty();
    }
}
