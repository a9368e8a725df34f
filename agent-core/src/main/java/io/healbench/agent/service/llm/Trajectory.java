package io.healbench.agent.service.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.agent.service.Limits;
import io.healbench.common.backbone.Backbone;
import io.healbench.common.usage.AgentUsage;
import java.time.Instant;
import java.util.List;
import java.util.Map;


/**
 * One attempt's trajectory in Harbor's ATIF layout (schema ATIF-v1.4; docs/agents.md, "Trajectories"): the prompts,
 * every model reply with its tool calls, tokens, cost, latency and finish reason, every observation tied to its call,
 * and each heal point's exit status. Only {@code timestamp} and {@code extra.latency_ms} vary between a run and its
 * replay from a cassette.
 */
public final class Trajectory {

    static final String SCHEMA = "ATIF-v1.4";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final ObjectNode root = JSON.createObjectNode();
    private final ArrayNode steps;
    private final ArrayNode healPoints;
    private final ObjectNode agent;
    private final String modelName;

    Trajectory(String attemptId, String agentName, Backbone backbone, Limits limits) {
        this(attemptId, agentName, Prompts.VERSION, backbone.model(), limits);
        ObjectNode extra = (ObjectNode) agent.get("extra");
        extra.put("prompts_version", Prompts.VERSION);
        extra.set("backbone", JSON.valueToTree(backbone.describe()));
    }

    private Trajectory(String attemptId, String agentName, String version, String modelName, Limits limits) {
        this.modelName = modelName;
        root.put("schema_version", SCHEMA);
        root.put("session_id", attemptId);
        agent = root.putObject("agent");
        agent.put("name", agentName);
        agent.put("version", version);
        agent.put("model_name", modelName);
        agent.putObject("extra").set("limits", JSON.valueToTree(limits.describe()));
        steps = root.putArray("steps");
        healPoints = root.putObject("extra").putArray("heal_points");
    }

    /**
     * An external agent's trajectory, built from the actions the server saw: one agent step per action, with the
     * observation it got. Its model and usage are whatever the agent reported ({@link #selfReported}), if anything.
     */
    public static Trajectory external(String attemptId, String agentName, String apiVersion, Limits limits) {
        return new Trajectory(attemptId, agentName, apiVersion, "unknown", limits);
    }

    /** One action an external agent sent, at a heal point (0 before the first); returns its step for the observation. */
    public ObjectNode action(Action call, int healPoint) {
        ObjectNode step = step("agent");
        step.put("message", "");
        ObjectNode node = step.putArray("tool_calls").addObject();
        node.put("tool_call_id", call.callId());
        node.put("function_name", call.tool());
        node.set("arguments", JSON.valueToTree(call.arguments()));
        step.putObject("extra").put("heal_point", healPoint);
        return step;
    }

    /** The model and usage an external agent reported about itself: kept, flagged, never verified. */
    public void selfReported(String model, Map<String, Object> totals) {
        if (!model.isEmpty()) {
            agent.put("model_name", model);
        }
        ObjectNode extra = (ObjectNode) agent.get("extra");
        extra.put("self_reported", true);
        extra.set("self_reported_usage", JSON.valueToTree(totals));
    }

    void system(String text) {
        step("system").put("message", text);
    }

    void user(String text, int healPoint) {
        ObjectNode step = step("user");
        step.put("message", text);
        step.putObject("extra").put("heal_point", healPoint);
    }

    /** A model reply; returns its step so the observations of its calls can be attached. */
    ObjectNode agent(String text, List<Action> calls, CallUsage usage, long latencyMs, String finishReason,
            int healPoint) {
        ObjectNode step = step("agent");
        step.put("model_name", modelName);
        step.put("message", text);
        if (!calls.isEmpty()) {
            ArrayNode toolCalls = step.putArray("tool_calls");
            for (Action call : calls) {
                ObjectNode node = toolCalls.addObject();
                node.put("tool_call_id", call.callId());
                node.put("function_name", call.tool());
                node.set("arguments", JSON.valueToTree(call.arguments()));
            }
        }
        ObjectNode metrics = step.putObject("metrics");
        metrics.put("prompt_tokens", usage.inputTokens());
        metrics.put("completion_tokens", usage.outputTokens());
        metrics.put("cached_tokens", usage.cachedInputTokens());
        metrics.put("cost_usd", usage.costUsd());
        ObjectNode extra = step.putObject("extra");
        extra.put("heal_point", healPoint);
        extra.put("finish_reason", finishReason);
        extra.put("latency_ms", latencyMs);
        extra.put("priced", usage.priced());
        return step;
    }

    public void observe(ObjectNode agentStep, String callId, String content) {
        ObjectNode observation = agentStep.has("observation") ? (ObjectNode) agentStep.get("observation")
                : agentStep.putObject("observation");
        ArrayNode results = observation.has("results") ? (ArrayNode) observation.get("results")
                : observation.putArray("results");
        ObjectNode result = results.addObject();
        result.put("source_call_id", callId);
        result.put("content", content);
    }

    public void healPointEnded(int healPoint, HealPointExit exit, String why) {
        ObjectNode node = healPoints.addObject();
        node.put("heal_point", healPoint);
        node.put("exit_status", exit.wireName());
        node.put("reason", why);
    }

    public String toJson(AgentUsage usage) {
        ObjectNode metrics = root.putObject("final_metrics");
        metrics.put("total_prompt_tokens", usage.inputTokens());
        metrics.put("total_completion_tokens", usage.outputTokens());
        metrics.put("total_cached_tokens", usage.cachedInputTokens());
        metrics.put("total_cost_usd", usage.costUsd());
        metrics.put("total_steps", steps.size());
        ObjectNode extra = metrics.putObject("extra");
        extra.put("llm_calls", usage.llmCalls());
        extra.put("priced", usage.priced());
        extra.put("probes", usage.probes());
        extra.put("explores", usage.explores());
        extra.put("heals", usage.heals());
        extra.put("reraises", usage.reraises());
        extra.put("format_errors", usage.formatErrors());
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a trajectory", e);
        }
    }

    private ObjectNode step(String source) {
        ObjectNode step = steps.addObject();
        step.put("step_id", steps.size());
        step.put("timestamp", Instant.now().toString());
        step.put("source", source);
        return step;
    }

}
