package io.healbench.bench.messaging;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.grpc.BenchAgentConfigs;
import io.smallrye.reactive.messaging.MutinyEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

/** Queues one {@link AttemptRequest} per attempt on channel {@code attempts}, the agent pool's work queue. */
@ApplicationScoped
public class BenchAttemptPublisher {

    private final MutinyEmitter<byte[]> attempts;

    /**
     * The buffer holds every request the channel has not taken yet: in standalone mode the channel is the workers
     * themselves, which take a request only when one of their attempt slots is free.
     */
    public BenchAttemptPublisher(@Channel("attempts") @OnOverflow(OnOverflow.Strategy.UNBOUNDED_BUFFER) MutinyEmitter<byte[]> attempts) {
        this.attempts = attempts;
    }

    /**
     * Hands every request to the channel and returns without waiting: a request's send completes when its receiver
     * acknowledges it, which is the broker's confirm in distributed mode, but the attempt's end in standalone mode,
     * where the workers are the receivers. {@code notQueued} is told of each request that was refused instead.
     */
    public void publish(BenchRun run, List<BenchAttempt> queued, BiConsumer<BenchAttempt, Throwable> notQueued) {
        for (BenchAttempt attempt : queued) {
            attempts.send(BenchAgentConfigs.attemptRequest(run, attempt).toByteArray())
                    .subscribe().with(confirmed -> { }, failure -> notQueued.accept(attempt, failure));
        }
    }
}
