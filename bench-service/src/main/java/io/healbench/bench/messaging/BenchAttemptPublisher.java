package io.healbench.bench.messaging;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.healbench.proto.events.v1.AttemptRequest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Channel;

/** Queues one {@link AttemptRequest} per attempt on channel {@code attempts}, the agent pool's work queue. */
@ApplicationScoped
public class BenchAttemptPublisher {

    private final MutinyEmitter<byte[]> attempts;

    public BenchAttemptPublisher(@Channel("attempts") MutinyEmitter<byte[]> attempts) {
        this.attempts = attempts;
    }

    /** Completes when the broker has confirmed every request; one at a time, so no buffer can overflow. */
    public Uni<Void> publish(BenchRun run, List<BenchAttempt> queued) {
        return Multi.createFrom().iterable(queued)
                .onItem().transformToUniAndConcatenate(attempt -> attempts.send(request(run, attempt).toByteArray()))
                .collect().last()
                .replaceWithVoid();
    }

    private static AttemptRequest request(BenchRun run, BenchAttempt attempt) {
        return AttemptRequest.newBuilder()
                .setTenant(run.tenant)
                .setRunId(run.id)
                .setAttemptId(attempt.id)
                .setInstanceId(attempt.instanceId)
                .setRepeat(attempt.repeatIndex)
                .setAgent(run.agent)
                .setGuardMode(run.guardMode)
                .build();
    }
}
