package io.healbench.agent.service.llm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import io.healbench.agent.cassette.Cassette;
import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentRecord;
import io.healbench.agent.service.HealPoint;
import io.healbench.common.backbone.Backbone;
import io.healbench.common.usage.AgentUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One attempt of an LLM agent: its model, budget, linear conversation and trajectory, and the decision that waits
 * for the runner's verdict. The conversation runs on across heal points, so the model remembers what it learned.
 */
final class LlmAttempt {

    final Backbone backbone;
    final ChatModel model;
    final Budget budget;
    final Trajectory trajectory;
    final List<ChatMessage> messages = new ArrayList<>();
    private final Optional<Cassette> cassette;
    private final ActionFormat format;
    private final InputTokenBound inputBound;

    int steps;
    private int calls;
    private long inputTokens;
    private long cachedInputTokens;
    private long outputTokens;
    private double costUsd;
    private boolean priced = true;
    int probes;
    int explores;
    int heals;
    int reraises;
    int formatErrors;
    private final List<String> exits = new ArrayList<>();

    private int healPoint;
    private int refusalsSeen;
    /** The heal or reraise of the current heal point, waiting for its result, and the exit the agent chose. */
    private ActionFormat.Parsed pending;
    private ObjectNode pendingStep;
    private HealPointExit stopExit;
    private String reraiseReason = "";
    private String divergence = "";

    LlmAttempt(Backbone backbone, ChatModel model, Budget budget, Trajectory trajectory, Optional<Cassette> cassette,
            ActionFormat format, String systemPrompt, String toolSpecifications) {
        this.backbone = backbone;
        this.model = model;
        this.budget = budget;
        this.trajectory = trajectory;
        this.cassette = cassette;
        this.format = format;
        this.inputBound = new InputTokenBound(toolSpecifications);
        add(SystemMessage.from(systemPrompt));
        trajectory.system(systemPrompt);
    }

    /** Brings the conversation up to this request: a new heal point's crash, or the refusal of the last heal. */
    void enter(HealPoint point) {
        if (point.crash().healPoint() != healPoint) {
            healPoint = point.crash().healPoint();
            refusalsSeen = 0;
            stopExit = null;
            reraiseReason = "";
            budget.healPointStarted();
            String crash = Prompts.render("crash", Map.of("crash", CrashBrief.render(point.crash())));
            add(UserMessage.from(crash));
            trajectory.user(crash, healPoint);
        }
        while (refusalsSeen < point.rejected().size()) {
            String reason = point.rejected().get(refusalsSeen++).reason();
            answerPending(Prompts.render("heal-refused", Map.of("reason", reason.isEmpty() ? "(no reason given)" : reason)));
        }
    }

    int healPoint() {
        return healPoint;
    }

    void add(ChatMessage message) {
        messages.add(message);
        inputBound.added(message.toString());
    }

    /** The budget's bound on the next call's input tokens ({@link InputTokenBound}). */
    long estimatedInputTokens() {
        return inputBound.next();
    }

    void charged(CallUsage usage) {
        // Called before the reply joins the conversation: the count is that of the conversation added so far.
        inputBound.reported(usage.inputTokens());
        calls++;
        inputTokens += usage.inputTokens();
        cachedInputTokens += usage.cachedInputTokens();
        outputTokens += usage.outputTokens();
        costUsd += usage.costUsd();
        priced &= usage.priced();
        budget.charged(usage);
    }

    void observe(ObjectNode step, ActionFormat.Parsed action, String content) {
        add(format.observation(action, content));
        trajectory.observe(step, action.callId(), content);
    }

    /** The reply's heal or reraise, whose result comes when the runner has acted on it. */
    void decided(ActionFormat.Parsed action, ObjectNode step, AgentDecision decision) {
        pending = action;
        pendingStep = step;
        if (decision instanceof AgentDecision.Reraise reraise) {
            reraiseReason = reraise.reason();
        }
    }

    /** The agent gives up on this heal point for a reason of its own (a budget, a failure): it reraises. */
    AgentDecision stop(HealPointExit exit, String why) {
        stopExit = exit;
        reraiseReason = exit.wireName() + ": " + why;
        return new AgentDecision.Reraise(reraiseReason);
    }

    void diverged(String where) {
        divergence = where;
    }

    boolean hasDiverged() {
        return !divergence.isEmpty();
    }

    /** The runner settled the heal point; its exit status is kept and the pending call gets its result. */
    void healPointEnded(boolean healed) {
        HealPointExit exit = healed ? HealPointExit.HEALED : stopExit != null ? stopExit : HealPointExit.RERAISED;
        String why = healed ? "" : reraiseReason.isEmpty() ? "the heal point's heals were refused" : reraiseReason;
        exits.add(exit.wireName());
        trajectory.healPointEnded(healPoint, exit, why);
        answerPending(healed ? Prompts.render("heal-applied") : Prompts.render("reraised", Map.of("reason", why)));
    }

    private void answerPending(String content) {
        if (pending != null) {
            observe(pendingStep, pending, content);
            pending = null;
            pendingStep = null;
        }
    }

    AgentRecord end() {
        cassette.ifPresent(Cassette::close);
        AgentUsage usage = new AgentUsage(calls, inputTokens, cachedInputTokens, outputTokens, costUsd, priced,
                probes, explores, heals, reraises, formatErrors, exits, false);
        return new AgentRecord(usage, trajectory.toJson(usage), divergence);
    }
}
