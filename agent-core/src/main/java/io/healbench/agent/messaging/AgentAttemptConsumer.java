package io.healbench.agent.messaging;

import com.google.protobuf.InvalidProtocolBufferException;
import io.healbench.agent.config.AgentSettings;
import io.healbench.agent.service.AgentMetrics;
import io.healbench.agent.service.AttemptResult;
import io.healbench.agent.service.AttemptRunner;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.proto.events.v1.AttemptRequest;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.reactive.messaging.rabbitmq.IncomingRabbitMQMetadata;
import io.smallrye.reactive.messaging.rabbitmq.RabbitMQRejectMetadata;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.jboss.logging.Logger;

/**
 * Consumes attempt requests (channel {@code attempts}) and acknowledges each one by hand, only
 * after the attempt ended and its {@code completed} event was confirmed by the broker.
 *
 * <p>Delivery policy (see agent-service/README.md):
 * <ul>
 *   <li>A worker that dies leaves the message unacked; the broker redelivers it (no attempt is lost).</li>
 *   <li>A payload that is not a valid {@code AttemptRequest} is rejected without requeue: it goes to
 *       the dead-letter queue and is never retried.</li>
 *   <li>A transient infrastructure failure (sandbox unavailable or overloaded) is requeued after a pause
 *       ({@code healbench.agent.requeue-delay}), up to {@code healbench.agent.max-requeues} times by this worker; then it is recorded as an {@code infrastructure} failure and acked, so a
 *       message never loops.</li>
 *   <li>Every other end (including agent and non-transient infrastructure failures) is published as
 *       {@code completed} and acked.</li>
 *   <li>An unexpected exception in this service rejects the message to the dead-letter queue.</li>
 *   <li>If the {@code completed} event cannot be published, the message is requeued: the attempt
 *       runs again and the event id dedupes the result.</li>
 *   <li>A second copy of an attempt this worker already took (bench-service's outbox resends what the broker never
 *       confirmed) is acked and dropped.</li>
 * </ul>
 * Up to {@code healbench.agent.max-concurrent-attempts} attempts run at once, each on a thread of its own: a
 * message is taken from the channel only while one of that many slots is free, and the broker's prefetch is the
 * same number. The same bound holds in standalone mode, where the channel is in memory and has no prefetch.
 */
@ApplicationScoped
public class AgentAttemptConsumer {

    private static final Logger LOG = Logger.getLogger(AgentAttemptConsumer.class);
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(30);

    private final AttemptRunner runner;
    private final AttemptEventPublisher publisher;
    private final AttemptTraces traces;
    private final AgentMetrics metrics;
    private final Semaphore slots;
    private final ExecutorService workers;
    private final RecentAttempts recent = new RecentAttempts();
    private final Duration requeueDelay;
    private final int maxRequeues;
    private final String pool;

    public AgentAttemptConsumer(AttemptRunner runner, AttemptEventPublisher publisher, AttemptTraces traces, AgentMetrics metrics,
            AgentSettings settings) {
        this.runner = runner;
        this.publisher = publisher;
        this.traces = traces;
        this.metrics = metrics;
        int concurrent = settings.maxConcurrentAttempts();
        if (concurrent < 1) {
            throw new IllegalArgumentException("healbench.agent.max-concurrent-attempts must be at least 1, got " + concurrent);
        }
        this.slots = new Semaphore(concurrent);
        this.requeueDelay = settings.requeueDelay();
        this.pool = settings.pool();
        this.maxRequeues = settings.maxRequeues();
        AtomicInteger numbers = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(concurrent, task -> {
            Thread thread = new Thread(task, "attempt-worker-" + numbers.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Incoming("attempts")
    public Uni<Void> onAttempt(Message<byte[]> message) {
        AttemptSpec spec;
        try {
            spec = AgentConfigMapper.spec(AttemptRequest.parseFrom(message.getPayload()));
        } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
            LOG.errorf("rejecting a malformed attempt request to the dead-letter queue: %s", e.getMessage());
            return Uni.createFrom().completionStage(message.nack(e, Metadata.of(new RabbitMQRejectMetadata(false))));
        }
        if (!recent.take(spec.attemptId())) {
            LOG.infof("dropping a second copy of attempt %s: this worker already took it", spec.attemptId());
            return Uni.createFrom().completionStage(message.ack());
        }
        Optional<IncomingRabbitMQMetadata> delivery = message.getMetadata(IncomingRabbitMQMetadata.class);
        // Completes once the attempt holds a slot, so the channel offers the next message only when a slot is free;
        // the attempt's worker acks or nacks the message when the attempt has ended.
        return Uni.createFrom().item(() -> {
            slots.acquireUninterruptibly();
            workers.execute(() -> {
                try {
                    traces.inAttemptSpan(message, spec, () -> settle(message, spec, delivery));
                } finally {
                    slots.release();
                }
            });
            return (Void) null;
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    private static void pause(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @PreDestroy
    void stop() {
        workers.shutdownNow();
    }

    /** Runs the attempt (blocking, on a worker thread) and returns the ack or nack to send. */
    private CompletionStage<Void> settle(
            Message<byte[]> message, AttemptSpec spec, Optional<IncomingRabbitMQMetadata> delivery) {
        AttemptResult result;
        try {
            result = runner.run(spec, session -> publisher.started(spec, session)
                    .exceptionally(failure -> {
                        LOG.warnf("could not publish started of %s: %s", spec.attemptId(), failure.getMessage());
                        return null;
                    }));
        } catch (RuntimeException bug) {
            // A defect of this service, not of the attempt: park the message for inspection, never loop on it.
            LOG.errorf(bug, "attempt %s failed unexpectedly; rejecting it to the dead-letter queue", spec.attemptId());
            return message.nack(bug, Metadata.of(new RabbitMQRejectMetadata(false)));
        }
        int requeued = recent.requeues(spec.attemptId());
        if (result.retryable() && delivery.isPresent() && requeued < maxRequeues) {
            LOG.warnf("requeueing attempt %s in %s after a transient infrastructure failure (%d of %d): %s",
                    spec.attemptId(), requeueDelay, requeued + 1, maxRequeues, result.detail());
            // The slot stays taken while it waits, so this worker does not hurry its next attempts into the same outage.
            pause(requeueDelay);
            recent.requeue(spec.attemptId());
            return message.nack(new IllegalStateException(result.detail()), Metadata.of(new RabbitMQRejectMetadata(true)));
        }
        if (result.retryable() && requeued > 0) {
            result = result.withDetail("still failing after " + requeued + " requeue(s): " + result.detail());
        }
        try {
            publisher.completed(spec, result).toCompletableFuture()
                    .get(PUBLISH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.errorf("could not publish completed of %s; requeueing it: %s", spec.attemptId(), e);
            recent.requeue(spec.attemptId());
            return message.nack(e, Metadata.of(new RabbitMQRejectMetadata(true)));
        }
        metrics.attemptEnded(spec, result);
        LOG.infof("attempt %s completed in pool %s: failure_class=%s proceeded=%s passed=%s heal_points=%d applied=%d"
                        + " rejected=%d exit_cause=%s detail=%.300s",
                spec.attemptId(), pool, result.failureClass().wireName(), result.proceeded(), result.passed(),
                result.healPoints(), result.healsApplied(), result.healsRejected(), result.exitCause().wireName(), result.detail());
        return message.ack();
    }
}
