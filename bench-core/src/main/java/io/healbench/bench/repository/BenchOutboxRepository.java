package io.healbench.bench.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.time.Instant;
import java.util.List;

/** The attempt outbox. */
@ApplicationScoped
public class BenchOutboxRepository implements PanacheRepositoryBase<BenchOutboxEntry, String> {

    /** Messages waiting to be sent, oldest first, locked so that two relays never send the same one at once. */
    public Uni<List<BenchOutboxEntry>> lockUnsent(int limit) {
        return find("publishTime is null", Sort.by("createTime").and("attemptId"))
                .withLock(LockModeType.PESSIMISTIC_WRITE).range(0, limit - 1).list();
    }

    /**
     * Sends the broker never confirmed, older than {@code before}, of attempts still waiting: the relay that sent them
     * died before the confirm, or the broker lost them. They are sent again (the workers drop what they already ran).
     */
    public Uni<Integer> resendUnconfirmed(Instant before) {
        return update("publishTime = null where confirmTime is null and publishTime < ?1 and attemptId in "
                + "(select a.id from BenchAttempt a where a.state = ?2)", before, BenchAttempt.State.QUEUED);
    }

    public Uni<Integer> confirm(String attemptId, Instant now) {
        return update("confirmTime = ?1 where attemptId = ?2", now, attemptId);
    }

    /** A send the broker refused waits for the next relay. */
    public Uni<Integer> unsend(String attemptId) {
        return update("publishTime = null where attemptId = ?1", attemptId);
    }

    public Uni<Long> deleteOfRun(String tenant, String runId) {
        return delete("tenant = ?1 and runId = ?2", tenant, runId);
    }
}
