package io.healbench.bench.repository;

import io.quarkus.hibernate.reactive.panache.PanacheQuery;
import io.quarkus.panache.common.Sort;
import java.time.Instant;
import java.util.List;
import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;

/** Runs, always looked up within one tenant. */
@ApplicationScoped
public class BenchRunRepository implements PanacheRepositoryBase<BenchRun, String> {

    public Uni<BenchRun> findInTenant(String tenant, String id) {
        return find("tenant = ?1 and id = ?2", tenant, id).firstResult();
    }

    public Uni<BenchRun> findByRequestId(String tenant, String requestId) {
        return find("tenant = ?1 and requestId = ?2", tenant, requestId).firstResult();
    }

    /** Locks the run's row until the transaction ends: counters are updated read-modify-write. */
    public Uni<BenchRun> lockInTenant(String tenant, String id) {
        return find("tenant = ?1 and id = ?2", tenant, id).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult();
    }

    /** One page of the tenant's runs, newest first, after the run {@code (afterCreate, afterId)} when given. */
    public Uni<List<BenchRun>> pageInTenant(String tenant, Instant afterCreate, String afterId, int size) {
        Sort newestFirst = Sort.by("createTime", Sort.Direction.Descending).and("id", Sort.Direction.Descending);
        PanacheQuery<BenchRun> query = afterCreate == null
                ? find("tenant = ?1", newestFirst, tenant)
                : find("tenant = ?1 and (createTime < ?2 or (createTime = ?2 and id < ?3))", newestFirst, tenant, afterCreate, afterId);
        return query.range(0, size - 1).list();
    }
}
