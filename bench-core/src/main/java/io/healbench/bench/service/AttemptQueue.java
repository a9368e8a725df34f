package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.smallrye.mutiny.Uni;

/** The agent pool's work queue, as the outbox relay sends to it. */
public interface AttemptQueue {

    /**
     * Hands the attempt's message to the queue. The result completes when the queue confirmed it (the broker's confirm;
     * in standalone mode, the in-process worker's end of the attempt) and fails when the queue refused it.
     */
    Uni<Void> send(BenchRun run, BenchAttempt attempt);
}
