package io.healbench.bench.messaging;

import io.healbench.bench.grpc.BenchAgentConfigs;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.service.AttemptQueue;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.rabbitmq.OutgoingRabbitMQMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

/**
 * Sends one {@code AttemptRequest} per attempt on channel {@code attempts}, routed to the work queue of the run's agent
 * pool ({@code attempts.<pool>} on the direct exchange); in standalone mode the channel is the in-process workers.
 */
@ApplicationScoped
public class BenchAttemptPublisher implements AttemptQueue {

    /** Persistent: a queued attempt survives a broker restart in its durable queue. */
    private static final int PERSISTENT = 2;

    private final MutinyEmitter<byte[]> attempts;

    /**
     * The buffer holds every request the channel has not taken yet: in standalone mode the channel is the workers
     * themselves, which take a request only when one of their attempt slots is free.
     */
    public BenchAttemptPublisher(@Channel("attempts") @OnOverflow(OnOverflow.Strategy.UNBOUNDED_BUFFER) MutinyEmitter<byte[]> attempts) {
        this.attempts = attempts;
    }

    @Override
    public Uni<Void> send(BenchRun run, BenchAttempt attempt) {
        // The message id is the attempt's: a resent message is the same message, and workers drop one they ran.
        OutgoingRabbitMQMetadata rabbit = OutgoingRabbitMQMetadata.builder()
                .withMessageId(attempt.id)
                .withRoutingKey(routingKey(run.agentPool))
                .withContentType("application/x-protobuf")
                .withDeliveryMode(PERSISTENT)
                .build();
        return attempts.sendMessage(Message.of(BenchAgentConfigs.attemptRequest(run, attempt).toByteArray(), Metadata.of(rabbit)));
    }

    /** The key that binds a pool's queue; agent workers of pool {@code p} bind {@code attempts.p}. */
    static String routingKey(String agentPool) {
        return "attempts." + agentPool;
    }
}
