package io.healbench.analysis;

import java.util.List;

/**
 * A run as the statistics and reports see it.
 *
 * @param label a short name for tables and charts: the agent, and its backbone when it has one
 * @param state the run's state (PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED)
 */
public record RunRecord(String runId, String label, String agent, String guardMode, int repeats, String state,
        String createTime, List<AttemptRecord> attempts) {}
