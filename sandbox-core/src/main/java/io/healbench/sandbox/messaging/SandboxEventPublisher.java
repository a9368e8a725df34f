package io.healbench.sandbox.messaging;

import com.google.protobuf.Timestamp;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.heal.Resume;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.HealApplied;
import io.healbench.proto.guard.v1.GuardProtos;
import io.healbench.proto.outcome.v1.ResumeModes;
import io.healbench.sandbox.service.heal.HealEventSink;
import io.healbench.sandbox.service.model.SessionView;
import io.smallrye.reactive.messaging.rabbitmq.OutgoingRabbitMQMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
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

    private static final int PERSISTENT = 2;

    private final Emitter<byte[]> emitter;

    public SandboxEventPublisher(@Channel("session-events") Emitter<byte[]> emitter) {
        this.emitter = emitter;
    }

    @Override
    public void healApplied(SessionView session, int ordinal, int healPoint, String code, Resume resume, String exceptionType) {
        publish("heal_applied", attributed(session, ordinal, "heal_applied").setHealApplied(HealApplied.newBuilder()
                .setHealPoint(healPoint).setCode(code).setResume(ResumeModes.of(resume)).setExceptionType(exceptionType)).build());
    }

    @Override
    public void guardDecision(SessionView session, int ordinal, GuardDecision decision) {
        publish("guard_decision", attributed(session, ordinal, "guard_decision").setGuardDecision(GuardProtos.decision(decision)).build());
    }

    /**
     * The event attributed to the session's attempt. Its id is the attempt's and the event's ordinal in the session: an
     * attempt run again after its worker died reports the same ids, and bench-service keeps each event once.
     */
    private static AttemptEvent.Builder attributed(SessionView session, int ordinal, String kind) {
        Instant now = Instant.now();
        String attemptId = session.labels().getOrDefault("attempt_id", "");
        String owner = attemptId.isEmpty() ? "session/" + session.name() : attemptId;
        return AttemptEvent.newBuilder()
                .setEventId(owner + "/" + kind + "/" + ordinal)
                .setTenant(session.labels().getOrDefault("tenant", ""))
                .setRunId(session.labels().getOrDefault("run_id", ""))
                .setAttemptId(attemptId)
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
                // Persistent: the events outlive a broker restart in their durable queue.
                .withDeliveryMode(PERSISTENT)
                .withMessageId(event.getEventId())
                .build());
        try {
            emitter.send(message);
        } catch (RuntimeException e) {
            LOG.warnf(e, "could not publish %s event %s", kind, event.getEventId());
        }
    }
}
