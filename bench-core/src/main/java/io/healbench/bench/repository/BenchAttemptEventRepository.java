package io.healbench.bench.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.List;

/** Received attempt events, keyed by event id. */
@ApplicationScoped
public class BenchAttemptEventRepository implements PanacheRepositoryBase<BenchAttemptEvent, String> {

    public Uni<List<BenchAttemptEvent>> ofKind(String tenant, Collection<String> attemptIds, String kind) {
        if (attemptIds.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return list("tenant = ?1 and attemptId in ?2 and kind = ?3", Sort.by("eventTime").and("eventId"),
                tenant, attemptIds, kind);
    }

    /** A run's events of one kind in the order they were received (and so applied). */
    public Uni<List<BenchAttemptEvent>> ofRun(String tenant, String runId, String kind) {
        return list("tenant = ?1 and runId = ?2 and kind = ?3", Sort.by("receiveTime").and("eventId"), tenant, runId, kind);
    }

    public Uni<Long> deleteOfRun(String tenant, String runId) {
        return delete("tenant = ?1 and runId = ?2", tenant, runId);
    }

    /** One page of an attempt's events in the order they were received. */
    public Uni<List<BenchAttemptEvent>> pageOfAttempt(String tenant, String attemptId, int offset, int size) {
        return find("tenant = ?1 and attemptId = ?2", Sort.by("receiveTime").and("eventId"), tenant, attemptId)
                .range(offset, offset + size - 1).list();
    }
}
