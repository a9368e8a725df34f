package io.healbench.bench.repository;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/**
 * What agents used (docs/agents.md): model calls, tokens as reported (input counting cached ones too), cost, whether
 * every call was priced, and their actions. One attempt's on its row; a run's, summed over its ended attempts, on
 * the run's. The defaults let an existing table gain the columns.
 */
@Embeddable
public class BenchUsage {

    @Column(name = "llm_calls", columnDefinition = "bigint default 0 not null")
    public long llmCalls;

    @Column(name = "input_tokens", columnDefinition = "bigint default 0 not null")
    public long inputTokens;

    @Column(name = "cached_input_tokens", columnDefinition = "bigint default 0 not null")
    public long cachedInputTokens;

    @Column(name = "output_tokens", columnDefinition = "bigint default 0 not null")
    public long outputTokens;

    @Column(name = "cost_usd", columnDefinition = "double precision default 0 not null")
    public double costUsd;

    /** False when a call had no price (its cost is not known, not $0). */
    @Column(columnDefinition = "boolean default true not null")
    public boolean priced = true;

    @Column(columnDefinition = "bigint default 0 not null")
    public long probes;

    @Column(columnDefinition = "bigint default 0 not null")
    public long explores;

    @Column(columnDefinition = "bigint default 0 not null")
    public long heals;

    @Column(columnDefinition = "bigint default 0 not null")
    public long reraises;

    @Column(name = "format_errors", columnDefinition = "bigint default 0 not null")
    public long formatErrors;

    /** Some of the calls, tokens and cost were an external agent's own report, unverified. */
    @Column(name = "self_reported", columnDefinition = "boolean default false not null")
    public boolean selfReported;

    /** Adds another's usage to this one: a call is paid for whoever is to blame for the attempt's end. */
    public void add(BenchUsage other) {
        llmCalls += other.llmCalls;
        inputTokens += other.inputTokens;
        cachedInputTokens += other.cachedInputTokens;
        outputTokens += other.outputTokens;
        costUsd += other.costUsd;
        priced &= other.priced;
        probes += other.probes;
        explores += other.explores;
        heals += other.heals;
        reraises += other.reraises;
        formatErrors += other.formatErrors;
        selfReported |= other.selfReported;
    }
}
