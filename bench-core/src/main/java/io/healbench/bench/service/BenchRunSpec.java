package io.healbench.bench.service;

import io.healbench.common.guard.GuardMode;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a client asks to run. {@link #normalized()} applies defaults and rejects what cannot run.
 */
public record BenchRunSpec(List<String> instanceIds, String agent, GuardMode guardMode, int repeats, String requestId,
        BenchAgentConfig agentConfig, long seed, String agentPool) {

    static final int MAX_REPEATS = 100;
    /** The pool of agent workers that serves a run naming none. */
    public static final String DEFAULT_AGENT_POOL = "default";
    /**
     * A pool's name is part of its queue's name and of its Kubernetes objects' names (agent-{pool}), so it keeps to what
     * both accept.
     */
    private static final Pattern AGENT_POOL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?");

    public BenchRunSpec normalized() {
        if (agent == null || agent.isBlank()) {
            throw BenchException.invalidArgument("AGENT_REQUIRED", "agent is required (e.g. rules, healer, toolloop)");
        }
        GuardMode mode = guardMode == null ? GuardMode.DEFAULT : guardMode;
        int count = repeats == 0 ? 1 : repeats;
        if (count < 1 || count > MAX_REPEATS) {
            throw BenchException.invalidArgument("REPEATS_INVALID", "repeats must be 1.." + MAX_REPEATS + ", got " + repeats);
        }
        for (String id : instanceIds) {
            if (id == null || id.isBlank()) {
                throw BenchException.invalidArgument("INSTANCE_ID_INVALID", "instance ids must not be empty");
            }
        }
        String pool = agentPool == null || agentPool.isEmpty() ? DEFAULT_AGENT_POOL : agentPool;
        if (!AGENT_POOL.matcher(pool).matches()) {
            throw BenchException.invalidArgument("AGENT_POOL_INVALID",
                    "agent_pool must be lower-case letters, digits and inner hyphens, at most 40, got '" + agentPool + "'");
        }
        String request = requestId == null || requestId.isBlank() ? null : requestId;
        return new BenchRunSpec(List.copyOf(instanceIds), agent, mode, count, request,
                agentConfig == null ? BenchAgentConfig.NONE : agentConfig, seed, pool);
    }
}
