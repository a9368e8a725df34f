package io.healbench.bench.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.util.List;

/** Attempts, always looked up within one tenant. */
@ApplicationScoped
public class BenchAttemptRepository implements PanacheRepositoryBase<BenchAttempt, String> {

    /** One page of a run's attempts, in a stable order (instance, repeat). */
    public Uni<List<BenchAttempt>> pageOfRun(String tenant, String runId, int offset, int size) {
        return find("tenant = ?1 and runId = ?2", Sort.by("instanceId").and("repeatIndex").and("id"), tenant, runId)
                .range(offset, offset + size - 1)
                .list();
    }

    /** Locks the attempt's row until the transaction ends, so one attempt's events apply one at a time. */
    public Uni<BenchAttempt> lockInTenant(String tenant, String id) {
        return find("tenant = ?1 and id = ?2", tenant, id).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult();
    }
}
