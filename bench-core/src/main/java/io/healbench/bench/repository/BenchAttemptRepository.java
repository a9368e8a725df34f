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

    /** The run's next queued attempt, locked; claims of one run are serialised by the run's row lock taken first. */
    public Uni<BenchAttempt> lockNextQueued(String tenant, String runId) {
        return find("tenant = ?1 and runId = ?2 and state = ?3", Sort.by("createTime").and("instanceId").and("repeatIndex"),
                tenant, runId, BenchAttempt.State.QUEUED).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult();
    }

    /** Running attempts whose claim's lease ran out before {@code now}. */
    public Uni<List<BenchAttempt>> lapsedClaims(java.time.Instant now) {
        return list("state = ?1 and claimExpireTime < ?2", BenchAttempt.State.RUNNING, now);
    }

    /** Locks the attempt's row until the transaction ends, so one attempt's events apply one at a time. */
    public Uni<BenchAttempt> lockInTenant(String tenant, String id) {
        return find("tenant = ?1 and id = ?2", tenant, id).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult();
    }

    /** Every attempt of a run, locked, in the order pages list them: re-grading rewrites them all. */
    public Uni<List<BenchAttempt>> lockAllOfRun(String tenant, String runId) {
        return find("tenant = ?1 and runId = ?2", Sort.by("instanceId").and("repeatIndex").and("id"), tenant, runId)
                .withLock(LockModeType.PESSIMISTIC_WRITE).list();
    }

    /** Ends the run's attempts that have not started: the run was cancelled. */
    public Uni<Integer> cancelQueued(String tenant, String runId, java.time.Instant now) {
        return update("state = ?1, endTime = ?2 where tenant = ?3 and runId = ?4 and state = ?5",
                BenchAttempt.State.CANCELLED, now, tenant, runId, BenchAttempt.State.QUEUED);
    }

    public Uni<Long> deleteOfRun(String tenant, String runId) {
        return delete("tenant = ?1 and runId = ?2", tenant, runId);
    }

    /**
     * Attempts past their timeouts: running without an external claim (those have leases of their own) since before
     * {@code startedBefore}, or queued since before {@code queuedBefore}.
     */
    public Uni<List<BenchAttempt>> overdue(java.time.Instant startedBefore, java.time.Instant queuedBefore) {
        return list("(state = ?1 and claimId is null and startTime < ?2) or (state = ?3 and createTime < ?4)",
                BenchAttempt.State.RUNNING, startedBefore, BenchAttempt.State.QUEUED, queuedBefore);
    }

    /** Attempts that have not ended, in every tenant. */
    public Uni<List<BenchAttempt>> unfinished() {
        return list("state in ?1", List.of(BenchAttempt.State.QUEUED, BenchAttempt.State.RUNNING));
    }
}
