package io.healbench.bench.repository;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An attempt's agent trajectory (ATIF JSON), kept apart from the attempt row so that listing attempts never loads
 * it; read one at a time through GetAttemptTrajectory.
 */
@Entity
@Table(name = "bench_trajectory")
public class BenchTrajectory {

    @Id
    @Column(name = "attempt_id")
    public String attemptId;

    @Column(nullable = false)
    public String tenant;

    @Column(name = "run_id", nullable = false)
    public String runId;

    @Column(columnDefinition = "text", nullable = false)
    public String json;

    public static BenchTrajectory of(BenchAttempt attempt, String json) {
        BenchTrajectory kept = new BenchTrajectory();
        kept.attemptId = attempt.id;
        kept.tenant = attempt.tenant;
        kept.runId = attempt.runId;
        kept.json = json;
        return kept;
    }
}
