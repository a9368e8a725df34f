package io.healbench.bench.repository;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * An attempt event as received (started, heal_applied, guard_decision, completed). The event id is the
 * primary key: a redelivered or re-published event is recognised and ignored.
 */
@Entity
@Table(name = "bench_attempt_event", indexes = @Index(name = "bench_attempt_event_attempt", columnList = "tenant, attempt_id"))
public class BenchAttemptEvent {

    @Id
    @Column(name = "event_id")
    public String eventId;

    @Column(nullable = false)
    public String tenant;

    @Column(name = "run_id", nullable = false)
    public String runId;

    @Column(name = "attempt_id", nullable = false)
    public String attemptId;

    @Column(nullable = false)
    public String kind;

    /** The event as JSON, kept whole so results can be re-graded without re-running. */
    @Column(columnDefinition = "text", nullable = false)
    public String payload;

    /** For guard decisions: the heal point, stage, verdict and reason; null for other kinds. */
    @Column(name = "guard_heal_point")
    public Integer guardHealPoint;

    @Column(name = "guard_stage")
    public String guardStage;

    @Column(name = "guard_verdict")
    public String guardVerdict;

    @Column(name = "guard_reason", columnDefinition = "text")
    public String guardReason;

    @Column(name = "event_time", nullable = false)
    public Instant eventTime;

    @Column(name = "receive_time", nullable = false)
    public Instant receiveTime;
}
