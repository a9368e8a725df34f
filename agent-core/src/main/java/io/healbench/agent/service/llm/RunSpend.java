package io.healbench.agent.service.llm;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each run has spent on model calls on this worker, and what its calls in flight may still cost, so a run-level
 * cost limit holds across the attempts this worker runs at once. A call reserves its worst cost before it is made
 * ({@link #reserve}) and settles to what it really cost when it returns ({@link #settle}): attempts checking at the
 * same moment cannot each see room for a call that only one of them has. (Several workers each hold their own ledger;
 * see docs/agents.md, "Budgets", for what that means for a distributed run.)
 */
@ApplicationScoped
public class RunSpend {

    /** One run's ledger; its methods are synchronized on it. */
    private static final class Ledger {
        double spent;
        double reserved;
    }

    private final Map<String, Ledger> byRun = new ConcurrentHashMap<>();

    /** What the run's calls on this worker have cost, as reported. */
    public double spent(String runId) {
        Ledger ledger = byRun.get(runId);
        if (ledger == null) {
            return 0;
        }
        synchronized (ledger) {
            return ledger.spent;
        }
    }

    /**
     * Reserves {@code worstCostUsd} for a call if what is spent, what calls in flight have reserved and this call
     * together stay within {@code limitUsd}; false (nothing reserved) otherwise.
     */
    public boolean reserve(String runId, double worstCostUsd, double limitUsd) {
        Ledger ledger = ledger(runId);
        synchronized (ledger) {
            if (ledger.spent + ledger.reserved + worstCostUsd > limitUsd) {
                return false;
            }
            ledger.reserved += worstCostUsd;
            return true;
        }
    }

    /** A call returned (or failed): its reservation is released and what it really cost is spent. */
    public void settle(String runId, double reservedUsd, double costUsd) {
        Ledger ledger = ledger(runId);
        synchronized (ledger) {
            ledger.reserved = Math.max(0, ledger.reserved - reservedUsd);
            ledger.spent += costUsd;
        }
    }

    private Ledger ledger(String runId) {
        return byRun.computeIfAbsent(runId, id -> new Ledger());
    }
}
