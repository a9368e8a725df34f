package io.healbench.agent.messaging;

import com.google.protobuf.Timestamp;
import io.healbench.agent.service.AttemptResult;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.external.AttemptOutcomes;
import io.healbench.proto.agent.v1.AgentUsageProtos;
import io.healbench.proto.events.v1.AttemptCompleted;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptStarted;
import io.healbench.proto.outcome.v1.OutcomeProtos;
import io.smallrye.reactive.messaging.rabbitmq.OutgoingRabbitMQMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;

/**
 * Publishes {@code AttemptEvent}s on channel {@code attempt-events} (routing key {@code attempt.<kind>}).
 * Each returned stage completes when the broker confirmed the event (publish confirms), so the
 * caller can ack the attempt only once its events are safe.
 *
 * <p>Event ids: {@code completed} has one id per attempt, so a re-run after a redelivery that
 * publishes it again is deduplicated by consumers; {@code started} has one id per session.
 */
@ApplicationScoped
public class AttemptEventPublisher implements AttemptOutcomes {

    static final String CHANNEL = "attempt-events";
    private static final String CONTENT_TYPE = "application/x-protobuf";
    private static final int PERSISTENT = 2;

    private final Emitter<byte[]> emitter;

    public AttemptEventPublisher(@Channel(CHANNEL) Emitter<byte[]> emitter) {
        this.emitter = emitter;
    }

    public CompletionStage<Void> started(AttemptSpec spec, String session) {
        AttemptEvent event = envelope(spec, spec.attemptId() + "/started/" + session)
                .setStarted(AttemptStarted.newBuilder().setSession(session))
                .build();
        return publish(event, "started");
    }

    @Override
    public CompletionStage<Void> completed(AttemptSpec spec, AttemptResult result) {
        AttemptEvent event = envelope(spec, spec.attemptId() + "/completed")
                .setCompleted(AttemptCompleted.newBuilder()
                        .setSummary(OutcomeProtos.summary(result.proceeded(), result.passed(), result.healPoints(),
                                result.healsApplied(), result.healsRejected(), result.exitCause(), result.wallTimeMs()))
                        .setExceptionType(result.exceptionType())
                        .setFailureClass(OutcomeProtos.failureClass(result.failureClass()))
                        .setDetail(result.detail())
                        .setTraceSimilarity(result.traceSimilarity())
                        .setUsage(AgentUsageProtos.toProto(result.usage()))
                        .setTrajectoryJson(result.trajectoryJson()))
                .build();
        return publish(event, "completed");
    }

    private static AttemptEvent.Builder envelope(AttemptSpec spec, String eventId) {
        Instant now = Instant.now();
        return AttemptEvent.newBuilder()
                .setEventId(eventId)
                .setTenant(spec.tenant())
                .setRunId(spec.runId())
                .setAttemptId(spec.attemptId())
                .setInstanceId(spec.instanceId())
                .setTime(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()));
    }

    private CompletionStage<Void> publish(AttemptEvent event, String kind) {
        CompletableFuture<Void> confirmed = new CompletableFuture<>();
        OutgoingRabbitMQMetadata rabbit = OutgoingRabbitMQMetadata.builder()
                .withRoutingKey("attempt." + kind)
                .withMessageId(event.getEventId())
                .withContentType(CONTENT_TYPE)
                .withDeliveryMode(PERSISTENT)
                .build();
        emitter.send(Message.of(event.toByteArray(), Metadata.of(rabbit),
                () -> {
                    confirmed.complete(null);
                    return CompletableFuture.completedFuture(null);
                },
                failure -> {
                    confirmed.completeExceptionally(failure);
                    return CompletableFuture.completedFuture(null);
                }));
        return confirmed;
    }
}
