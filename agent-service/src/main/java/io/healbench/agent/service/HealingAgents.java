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

    public Optional<HealingAgent> byName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public String names() {
        return String.join(", ", byName.keySet());
    }
}
