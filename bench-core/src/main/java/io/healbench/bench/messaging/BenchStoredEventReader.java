package io.healbench.bench.messaging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.healbench.bench.repository.BenchAttemptEvent;
import io.healbench.bench.service.BenchIncomingEvent;
import io.healbench.bench.service.BenchStoredEvents;
import io.healbench.proto.events.v1.AttemptEvent;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;

/**
 * Stored events back into the form the consumer made of them: a worker's event is the {@link AttemptEvent} it sent
 * (kept as protobuf JSON), bench-service's own is the infrastructure failure it recorded.
 */
@ApplicationScoped
public class BenchStoredEventReader implements BenchStoredEvents {

    private static final JsonFormat.Parser PROTO_JSON = JsonFormat.parser().ignoringUnknownFields();

    private final ObjectMapper json;

    public BenchStoredEventReader(ObjectMapper json) {
        this.json = json;
    }

    @Override
    public BenchIncomingEvent read(BenchAttemptEvent stored) {
        try {
            JsonNode tree = json.readTree(stored.payload);
            if (BenchIncomingEvent.OWN_SOURCE.equals(tree.path(BenchIncomingEvent.OWN_SOURCE_FIELD).asText())) {
                return BenchIncomingEvent.infrastructureFailure(stored.tenant, stored.runId, stored.attemptId,
                        tree.path("detail").asText(), stored.eventTime);
            }
            AttemptEvent.Builder event = AttemptEvent.newBuilder();
            PROTO_JSON.merge(stored.payload, event);
            return BenchEventConsumer.toDomain(event.build());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("stored event " + stored.eventId + " is not an AttemptEvent: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("stored event " + stored.eventId + " is not JSON: " + e.getMessage(), e);
        }
    }
}
