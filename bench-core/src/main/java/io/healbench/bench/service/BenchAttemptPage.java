package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.common.guard.GuardDecision;
import java.util.List;

/** A page of a run's attempts; {@code nextPageToken} is empty on the last page. */
public record BenchAttemptPage(List<Entry> entries, String nextPageToken) {

    /** An attempt with the guard decisions taken during it, in order. */
    public record Entry(BenchAttempt attempt, List<GuardDecision> guardDecisions) {}
}
