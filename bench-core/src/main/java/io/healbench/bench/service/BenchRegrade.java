package io.healbench.bench.service;

import io.healbench.bench.repository.BenchRun;

/**
 * A re-graded run.
 *
 * @param attemptsChanged       attempts whose stored outcome differed from the regraded one
 * @param attemptsWithoutEvents attempts with no stored completion event (cancelled, or never ended)
 */
public record BenchRegrade(BenchRun run, int attemptsChanged, int attemptsWithoutEvents) {}
