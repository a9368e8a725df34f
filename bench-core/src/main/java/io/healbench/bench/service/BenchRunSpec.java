package io.healbench.bench.service;

import java.util.List;
import java.util.Set;

/**
 * What a client asks to run. {@link #normalized()} applies defaults and rejects what cannot run.
 */
public record BenchRunSpec(List<String> instanceIds, String agent, String guardMode, int repeats, String requestId,
        BenchAgentConfig agentConfig, long seed) {

    static final int MAX_REPEATS = 100;
    static final Set<String> GUARD_MODES = Set.of("enforce", "observe", "off");
    static final String DEFAULT_GUARD_MODE = "enforce";

    public BenchRunSpec normalized() {
        if (agent == null || agent.isBlank()) {
            throw BenchException.invalidArgument("AGENT_REQUIRED", "agent is required (e.g. rules, healer, toolloop)");
        }
        String mode = guardMode == null || guardMode.isBlank() ? DEFAULT_GUARD_MODE : guardMode;
        if (!GUARD_MODES.contains(mode)) {
            throw BenchException.invalidArgument("BAD_GUARD_MODE",
                    "guard_mode must be enforce, observe or off, got '" + guardMode + "'");
        }
        int count = repeats == 0 ? 1 : repeats;
        if (count < 1 || count > MAX_REPEATS) {
            throw BenchException.invalidArgument("BAD_REPEATS", "repeats must be 1.." + MAX_REPEATS + ", got " + repeats);
        }
        for (String id : instanceIds) {
            if (id == null || id.isBlank()) {
                throw BenchException.invalidArgument("UNKNOWN_INSTANCE", "instance ids must not be empty");
            }
        }
        String request = requestId == null || requestId.isBlank() ? null : requestId;
        return new BenchRunSpec(List.copyOf(instanceIds), agent, mode, count, request,
                agentConfig == null ? BenchAgentConfig.NONE : agentConfig, seed);
    }
}
