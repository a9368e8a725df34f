package io.healbench.bench.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Trajectories, always looked up within one tenant. */
@ApplicationScoped
public class BenchTrajectoryRepository implements PanacheRepositoryBase<BenchTrajectory, String> {

    public Uni<BenchTrajectory> findInTenant(String tenant, String attemptId) {
        return find("tenant = ?1 and attemptId = ?2", tenant, attemptId).firstResult();
    }

    public Uni<Long> deleteOfRun(String tenant, String runId) {
        return delete("tenant = ?1 and runId = ?2", tenant, runId);
    }
}
