package io.healbench.bench.rest;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.healbench.bench.repository.BenchRun;
import java.time.Instant;
import java.util.List;

/** A run as the REST API shows it, manifest included. */
public record BenchRunView(
        String name,
        String id,
        String state,
        String agent,
        String guardMode,
        int repeats,
        List<String> instanceIds,
        int attemptsTotal,
        int attemptsDone,
        int attemptsFailed,
        int proceeded,
        int passed,
        Instant createTime,
        Instant updateTime,
        @JsonRawValue String manifest) {

    static BenchRunView of(BenchRun run) {
        return new BenchRunView("runs/" + run.id, run.id, run.state.name(), run.agent, run.guardMode.wireName(), run.repeats,
                run.instanceIdList(), run.attemptsTotal, run.attemptsDone, run.attemptsFailed, run.proceeded, run.passed,
                run.createTime, run.updateTime, run.manifest);
    }
}
