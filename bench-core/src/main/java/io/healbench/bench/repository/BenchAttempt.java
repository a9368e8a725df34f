package io.healbench.bench.repository;

import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.List;

/** One (instance, repeat) of a run, and its outcome once it has ended. */
@Entity
@Table(name = "bench_attempt", indexes = @Index(name = "bench_attempt_run", columnList = "tenant, run_id"))
public class BenchAttempt {

    public List<String> healPointExitList() {
        return healPointExits == null || healPointExits.isEmpty() ? List.of() : List.of(healPointExits.split(","));
    }

    public enum State {
        QUEUED, RUNNING, COMPLETED, FAILED,
        /** The run was cancelled before the attempt started. */
        CANCELLED;

        public boolean done() {
            return this == COMPLETED || this == FAILED || this == CANCELLED;
        }
    }

    /**
     * The one class each ended attempt falls in (docs/runs.md, "Outcome classes"). The harness's own failures,
     * INFRASTRUCTURE and GRADER, say nothing about the agent and never count against it.
     */
    public enum OutcomeClass {
        HEALED, NOT_HEALED, RERAISED, AGENT_ERROR, BUDGET, INFRASTRUCTURE, GRADER;

        public boolean chargedToAgent() {
            return this != INFRASTRUCTURE && this != GRADER;
        }
    }

    @Id
    public String id;

    @Column(name = "run_id", nullable = false)
    public String runId;

    @Column(nullable = false)
    public String tenant;

    @Column(name = "instance_id", nullable = false)
    public String instanceId;

    @Column(name = "repeat_index")
    public int repeatIndex;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public State state;

    public boolean proceeded;

    public boolean passed;

    @Column(name = "heal_points")
    public int healPoints;

    @Column(name = "heals_applied")
    public int healsApplied;

    @Column(name = "heals_rejected")
    public int healsRejected;

    @Column(name = "exception_type")
    public String exceptionType;

    /** Null until the attempt ends. */
    @Convert(converter = WireNameColumns.ExitCauseColumn.class)
    @Column(name = "exit_cause")
    public ExitCause exitCause;

    /** The attempt's one outcome class once it ended; null before (and for cancelled attempts). */
    @Enumerated(EnumType.STRING)
    @Column(name = "outcome_class", length = 32)
    public OutcomeClass outcomeClass;

    /** As the completing event said; null until the attempt ends. */
    @Convert(converter = WireNameColumns.FailureClassColumn.class)
    @Column(name = "failure_class")
    public FailureClass failureClass;

    @Column(columnDefinition = "text")
    public String detail;

    @Column(name = "wall_time_ms")
    public long wallTimeMs;

    /** Trace similarity with the REFERENCE run (docs/trace-similarity.md); the default lets an existing table gain it. */
    @Column(name = "trace_similarity", columnDefinition = "double precision default 0 not null")
    public double traceSimilarity;

    /** The agent's usage; zeros for offline agents. */
    @Embedded
    public BenchUsage usage = new BenchUsage();

    /** One exit status per heal point, comma-separated. */
    @Column(name = "heal_point_exits", columnDefinition = "text")
    public String healPointExits;

    /** The external agent's claim on the attempt while it runs (docs/agents.md, "Leases"); null otherwise. */
    @Column(name = "claim_id")
    public String claimId;

    /** The gateway that holds the claim. */
    @Column(name = "claim_holder")
    public String claimHolder;

    @Column(name = "claim_expire_time")
    public Instant claimExpireTime;

    /** Sessions that started this attempt: more than one means it was run again after a worker died. */
    @Column(columnDefinition = "integer default 0 not null")
    public int deliveries;

    /** Claims on this attempt that lapsed, each time returning it to the queue. */
    @Column(columnDefinition = "integer default 0 not null")
    public int lapses;

    @Column(name = "create_time", nullable = false)
    public Instant createTime;

    @Column(name = "start_time")
    public Instant startTime;

    @Column(name = "end_time")
    public Instant endTime;
}
