package io.healbench.agent.service.external;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The external attempts this gateway holds now, by attempt id: shared by the agent (the runner's side) and the API. */
@ApplicationScoped
public class ExternalAttemptRegistry {

    private final Map<String, ExternalAttempt> byId = new ConcurrentHashMap<>();

    void add(ExternalAttempt attempt) {
        byId.put(attempt.spec().attemptId(), attempt);
    }

    void remove(ExternalAttempt attempt) {
        byId.remove(attempt.spec().attemptId(), attempt);
    }

    Optional<ExternalAttempt> byId(String attemptId) {
        return Optional.ofNullable(byId.get(attemptId));
    }

    List<ExternalAttempt> all() {
        return List.copyOf(byId.values());
    }
}
