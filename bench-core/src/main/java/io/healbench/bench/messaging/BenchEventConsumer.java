package io.healbench.bench.messaging;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.healbench.bench.service.BenchContexts;
import io.healbench.bench.service.BenchEventIngestor;
import io.healbench.bench.service.BenchIncomingEvent;
import io.healbench.common.guard.GuardDecision;
import io.healbench.proto.agent.v1.AgentUsageProtos;
import io.healbench.proto.events.v1.AttemptCompleted;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.guard.v1.GuardProtos;
import io.healbench.proto.outcome.v1.OutcomeProtos;
import io.healbench.proto.outcome.v1.OutcomeSummary;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Consumes {@link AttemptEvent}s from the sandbox ({@code session-events}) and the agent workers
 * ({@code attempt-events}) and hands them to the ingestor. A message is acknowledged once the
 * event is stored; an unparsable message is logged and dropped, since redelivery cannot fix it.
 */
@ApplicationScoped
public class BenchEventConsumer {

    private static final Logger LOG = Logger.getLogger(BenchEventConsumer.class);
    private static final JsonFormat.Printer JSON = JsonFormat.printer().omittingInsignificantWhitespace();

    private final BenchEventIngestor ingestor;
    private final BenchContexts contexts;

    public BenchEventConsumer(BenchEventIngestor ingestor, BenchContexts contexts) {
        this.ingestor = ingestor;
        this.contexts = contexts;
    }

    @Incoming("session-events")
    public Uni<Void> onSessionEvent(byte[] payload) {
        return ingest(payload);
    }

    @Incoming("attempt-events")
    public Uni<Void> onAttemptEvent(byte[] payload) {
        return ingest(payload);
    }

    private Uni<Void> ingest(byte[] payload) {
        BenchIncomingEvent event;
        try {
            event = toDomain(AttemptEvent.parseFrom(payload));
        } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
            LOG.errorf("dropping a message that is not a well-formed AttemptEvent (%d bytes): %s", payload.length, e.getMessage());
            return Uni.createFrom().voidItem();
        }
        return contexts.onFreshContext(() -> ingestor.ingest(event));
    }

    static BenchIncomingEvent toDomain(AttemptEvent event) throws InvalidProtocolBufferException {
        Instant time = event.hasTime()
                ? Instant.ofEpochSecond(event.getTime().getSeconds(), event.getTime().getNanos()).truncatedTo(ChronoUnit.MICROS)
                : Instant.now().truncatedTo(ChronoUnit.MICROS);
        BenchIncomingEvent.Outcome outcome = null;
        GuardDecision decision = null;
        BenchIncomingEvent.Kind kind;
        switch (event.getKindCase()) {
            case STARTED -> kind = BenchIncomingEvent.Kind.STARTED;
            case HEAL_APPLIED -> kind = BenchIncomingEvent.Kind.HEAL_APPLIED;
            case GUARD_DECISION -> {
                kind = BenchIncomingEvent.Kind.GUARD_DECISION;
                decision = GuardProtos.decision(event.getGuardDecision());
            }
            case COMPLETED -> {
                kind = BenchIncomingEvent.Kind.COMPLETED;
                AttemptCompleted c = event.getCompleted();
                OutcomeSummary s = c.getSummary();
                outcome = new BenchIncomingEvent.Outcome(s.getProceeded(), s.getPassed(), s.getHealPoints(),
                        s.getHealsApplied(), s.getHealsRejected(), c.getExceptionType(), OutcomeProtos.exitCause(s.getExitCause()),
                        s.getWallTimeMs(), OutcomeProtos.failureClass(c.getFailureClass()), c.getDetail(), c.getTraceSimilarity(),
                        AgentUsageProtos.fromProto(c.getUsage()), c.getTrajectoryJson());
            }
            default -> kind = BenchIncomingEvent.Kind.UNKNOWN;
        }
        // The trajectory is kept once, on the attempt; the stored event keeps the rest.
        AttemptEvent stored = event.hasCompleted()
                ? event.toBuilder().setCompleted(event.getCompleted().toBuilder().clearTrajectoryJson()).build() : event;
        return new BenchIncomingEvent(event.getEventId(), event.getTenant(), event.getRunId(), event.getAttemptId(),
                time, kind, JSON.print(stored), outcome, decision);
    }
}
