package io.healbench.bench.messaging;

import com.google.protobuf.InvalidProtocolBufferException;
import io.healbench.bench.service.BenchContexts;
import io.healbench.bench.service.BenchEventIngestor;
import io.healbench.bench.service.BenchIncomingEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.quarkus.arc.properties.UnlessBuildProperty;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * The agent pool's dead letters: an attempt message a worker rejected (it could not run the attempt, nor publish its
 * end) ends its attempt as an infrastructure failure instead of stranding it. Distributed mode only: the standalone
 * JVM hands attempts to its workers in memory, with no broker to dead-letter them.
 */
@ApplicationScoped
@UnlessBuildProperty(name = "healbench.standalone", stringValue = "true", enableIfMissing = true)
public class BenchDeadLetterConsumer {

    private static final Logger LOG = Logger.getLogger(BenchDeadLetterConsumer.class);

    private final BenchEventIngestor ingestor;
    private final BenchContexts contexts;

    public BenchDeadLetterConsumer(BenchEventIngestor ingestor, BenchContexts contexts) {
        this.ingestor = ingestor;
        this.contexts = contexts;
    }

    @Incoming("attempt-dead-letters")
    public Uni<Void> onDeadLetter(byte[] payload) {
        AttemptRequest request;
        try {
            request = AttemptRequest.parseFrom(payload);
        } catch (InvalidProtocolBufferException e) {
            LOG.errorf("dropping a dead letter that is not an AttemptRequest (%d bytes): %s", payload.length, e.getMessage());
            return Uni.createFrom().voidItem();
        }
        LOG.warnf("attempt %s of run %s was dead-lettered by the agent pool", request.getAttemptId(), request.getRunId());
        return contexts.onFreshContext(() -> ingestor.ingest(BenchIncomingEvent.infrastructureFailure(request.getTenant(),
                request.getRunId(), request.getAttemptId(), "the agent pool gave the attempt up: its message was dead-lettered")));
    }
}
