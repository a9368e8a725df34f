package io.healbench.bench.repository;

import jakarta.persistence.Convert;
import io.healbench.common.guard.GuardMode;
import jakarta.persistence.Column;
import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/** One run: a slice of the dataset, run by one agent configuration, each instance {@code repeats} times. */
@Entity
@Table(name = "bench_run",
        uniqueConstraints = @UniqueConstraint(name = "bench_run_request_key", columnNames = {"tenant", "request_id"}))
public class BenchRun {

    public enum State {
        PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED;

        public boolean done() {
            return this == SUCCEEDED || this == FAILED || this == CANCELLED;
        }
    }

    @Id
    public String id;

    @Column(nullable = false)
    public String tenant;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public State state;

    @Column(nullable = false)
    public String agent;

    @Convert(converter = WireNameColumns.GuardModeColumn.class)
    @Column(name = "guard_mode", nullable = false)
    public GuardMode guardMode;

    public int repeats;

    /** The agent pool whose work queue takes the run's attempts. */
    @Column(name = "agent_pool", nullable = false)
    public String agentPool;

    /** Fixed at creation: the statistics' bootstrap and the sampled slice derive from it. */
    @Column(columnDefinition = "bigint default 0 not null")
    public long seed;

    /** The client's idempotency key; null when the client sent none. */
    @Column(name = "request_id")
    public String requestId;

    /** Instance ids in run order, one per line. */
    @Column(name = "instance_ids", columnDefinition = "text", nullable = false)
    public String instanceIds;

    /** What is needed to reproduce the run, as JSON: instance digests, agent, guard mode, seeds, tool versions. */
    @Column(columnDefinition = "text", nullable = false)
    public String manifest;

    @Column(name = "attempts_total")
    public int attemptsTotal;

    /** Attempts that ended, whatever their failure class. */
    @Column(name = "attempts_done")
    public int attemptsDone;

    /** Attempts that ended in an infrastructure or grader failure: they say nothing about the agent. */
    @Column(name = "attempts_failed")
    public int attemptsFailed;

    public int proceeded;

    public int passed;

    /** Sum of the trace similarity of the attempts counted in proceeded/passed; the run's TS is its mean. */
    @Column(name = "trace_similarity_sum", columnDefinition = "double precision default 0 not null")
    public double traceSimilaritySum;

    /** The LLM agent's configuration (backbone, limits, cassette) as JSON; {@code {}} for offline agents. */
    @Column(name = "agent_config", columnDefinition = "text default '{}' not null")
    public String agentConfig = "{}";

    /** Summed over every ended attempt, exactly as each reported it. */
    @Embedded
    public BenchUsage usage = new BenchUsage();

    @Column(name = "create_time", nullable = false)
    public Instant createTime;

    @Column(name = "update_time", nullable = false)
    public Instant updateTime;

    /** Mean trace similarity over the attempts that ended without an infrastructure or grader failure; 0 before any. */
    public double meanTraceSimilarity() {
        int counted = attemptsDone - attemptsFailed;
        return counted == 0 ? 0.0 : traceSimilaritySum / counted;
    }

    public List<String> instanceIdList() {
        return instanceIds.isEmpty() ? List.of() : Arrays.asList(instanceIds.split("\n"));
    }
}
