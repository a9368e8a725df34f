package io.healbench.bench.repository;

import jakarta.persistence.Column;
import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/**
 * A row that belongs to one attempt and is keyed by it. It carries the attempt's tenant and run as well, so that
 * every query on it can be scoped by tenant and run without a join.
 */
@MappedSuperclass
public abstract class AttemptKeyedRow {

    @Id
    @Column(name = "attempt_id")
    public String attemptId;

    @Column(nullable = false)
    public String tenant;

    @Column(name = "run_id", nullable = false)
    public String runId;

    protected void keyTo(BenchAttempt attempt) {
        attemptId = attempt.id;
        tenant = attempt.tenant;
        runId = attempt.runId;
    }
}
