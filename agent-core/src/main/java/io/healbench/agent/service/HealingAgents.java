package io.healbench.agent.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The agents this worker can run, by name. */
@ApplicationScoped
public class HealingAgents {

    private final Map<String, HealingAgent> byName = new TreeMap<>();

    public HealingAgents(Instance<HealingAgent> agents) {
        for (HealingAgent agent : agents) {
            if (byName.putIfAbsent(agent.name(), agent) != null) {
                throw new IllegalStateException("two healing agents are named '" + agent.name() + "'");
            }
        }
    }

    /** The agent named {@code name}; a qualified name ({@code external:NAME}) selects the agent before its colon. */
    public Optional<HealingAgent> byName(String name) {
        int colon = name.indexOf(':');
        return Optional.ofNullable(byName.get(colon < 0 ? name : name.substring(0, colon)));
    }

    public String names() {
        return String.join(", ", byName.keySet());
    }
}
