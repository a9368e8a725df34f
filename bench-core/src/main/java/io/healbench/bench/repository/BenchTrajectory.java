package io.healbench.bench.repository;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/**
 * An attempt's agent trajectory (ATIF JSON), kept apart from the attempt row so that listing attempts never loads
 * it; read one at a time through GetAttemptTrajectory.
 */
@Entity
@Table(name = "bench_trajectory")
public class BenchTrajectory extends AttemptKeyedRow {

    @Column(columnDefinition = "text", nullable = false)
    public String json;

    public static BenchTrajectory of(BenchAttempt attempt, String json) {
        BenchTrajectory kept = new BenchTrajectory();
        kept.keyTo(attempt);
        kept.json = json;
        return kept;
    }
}
