package io.healbench.agent.service.llm;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * What each run has spent on model calls on this worker, so a run-level cost limit holds across the attempts this
 * worker runs at once: every attempt checks it before each call. (Several workers each hold their own ledger; see
 * docs/agents.md, "Budgets", for what that means for a distributed run.)
 */
@ApplicationScoped
public class RunSpend {

    private final Map<String, DoubleAdder> byRun = new ConcurrentHashMap<>();

    public double spent(String runId) {
        DoubleAdder adder = byRun.get(runId);
        return adder == null ? 0 : adder.sum();
    }

    public void add(String runId, double costUsd) {
        byRun.computeIfAbsent(runId, id -> new DoubleAdder()).add(costUsd);
    }
}
