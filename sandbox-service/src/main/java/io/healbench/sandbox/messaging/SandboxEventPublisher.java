package io.healbench.sandbox.messaging;

import com.google.protobuf.Timestamp;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.GuardDecisionEvent;
import io.healbench.proto.events.v1.HealApplied;
import io.healbench.sandbox.service.heal.HealEventSink;
import io.healbench.sandbox.service.model.GuardDecision;
import io.healbench.sandbox.service.model.SessionView;
import io.smallrye.reactive.messaging.rabbitmq.OutgoingRabbitMQMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * Publishes heals and guard decisions as {@code AttemptEvent}s on channel {@code session-events}
 * (routing key {@code session.<kind>}), attributed through the session's labels tenant, run_id and attempt_id.
 * Publishing never fails a heal: a lost event is logged.
 */
@ApplicationScoped
public class SandboxEventPublisher implements HealEventSink {

    private static final Logger LOG = Logger.getLogger(SandboxEventPublisher.class);

    private final Emitter<byte[]> emitter;

    public SandboxEventPublisher(@Channel("session-events") Emitter<byte[]> emitter) {
        this.emitter = emitter;
    }

    @Override
    public void healApplied(SessionView session, int healPoint, String code, String resume, String exceptionType) {
        publish("heal_applied", attributed(session).setHealApplied(HealApplied.newBuilder()
                .setHealPoint(healPoint).setCode(code).setResume(resume).setExceptionType(exceptionType)).build());
    }

    @Override
    public void guardDecision(SessionView session, GuardDecision decision) {
        publish("guard_decision", attributed(session).setGuardDecision(GuardDecisionEvent.newBuilder()
                .setHealPoint(decision.healPoint()).setStage(decision.stage()).setVerdict(decision.verdict())
                .setReason(decision.reason())).build());
    }

    private static AttemptEvent.Builder attributed(SessionView session) {
        Instant now = Instant.now();
        return AttemptEvent.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setTenant(session.labels().getOrDefault("tenant", ""))
                .setRunId(session.labels().getOrDefault("run_id", ""))
                .setAttemptId(session.labels().getOrDefault("attempt_id", ""))
                .setInstanceId(session.instanceId())
                .setTime(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()));
    }

    private void publish(String kind, AttemptEvent event) {
        Message<byte[]> message = Message.of(event.toByteArray(), () -> CompletableFuture.completedFuture(null), failure -> {
            LOG.warnf(failure, "%s event %s was not delivered to the broker", kind, event.getEventId());
            return CompletableFuture.completedFuture(null);
        }).addMetadata(OutgoingRabbitMQMetadata.builder()
                .withRoutingKey("session." + kind)
                .withContentType("application/x-protobuf")
                .withMessageId(event.getEventId())
                .build());
        try {
            emitter.send(message);
        } catch (RuntimeException e) {
            LOG.warnf(e, "could not publish %s event %s", kind, event.getEventId());
        }
    }
}
