package io.healbench.bench.repository;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * An attempt message waiting to leave, or gone: written in the transaction that creates the attempt, so an attempt
 * is never committed without its message, and sent by the relay ({@code BenchOutbox}) after the commit.
 */
@Entity
@Table(name = "bench_outbox")
public class BenchOutboxEntry extends AttemptKeyedRow {

    @Column(name = "create_time", nullable = false)
    public Instant createTime;

    /** When the relay last handed it to the broker; null while it waits to be (re)sent. */
    @Column(name = "publish_time")
    public Instant publishTime;

    /** When the broker confirmed it. */
    @Column(name = "confirm_time")
    public Instant confirmTime;

    @Column(columnDefinition = "integer default 0 not null")
    public int tries;

    public static BenchOutboxEntry of(BenchAttempt attempt) {
        BenchOutboxEntry entry = new BenchOutboxEntry();
        entry.keyTo(attempt);
        entry.createTime = attempt.createTime;
        return entry;
    }
}
