package io.healbench.bench.grpc;

import io.healbench.proto.outcome.v1.OutcomeProtos;
import com.google.protobuf.Timestamp;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchUsage;
import io.healbench.bench.service.BenchAttemptPage;
import io.healbench.bench.repository.BenchAttemptEvent;
import io.healbench.bench.service.BenchEventPage;
import io.healbench.bench.service.BenchRegrade;
import io.healbench.bench.service.BenchRunPage;
import io.healbench.proto.agent.v1.AgentUsage;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.ListAttemptEventsResponse;
import io.healbench.proto.bench.v1.ListAttemptsResponse;
import io.healbench.proto.bench.v1.StoredEvent;
import io.healbench.proto.bench.v1.ListRunsResponse;
import io.healbench.proto.bench.v1.OutcomeClass;
import io.healbench.proto.bench.v1.RegradeRunResponse;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.guard.v1.GuardProtos;
import java.time.Instant;

/** Maps bench-service's stored runs and attempts to their protobuf form. */
final class BenchProtoMapper {

    private BenchProtoMapper() {
    }

    /** A run as GetRun shows it: with its instance ids and manifest. */
    static Run run(BenchRun run) {
        return summary(run).toBuilder()
                .addAllInstanceIds(run.instanceIdList())
                .setManifestJson(run.manifest)
                .build();
    }

    /** A run as ListRuns shows it: without the long lists. */
    static Run summary(BenchRun run) {
        return Run.newBuilder()
                .setName(BenchResourceNames.run(run.id))
                .setState(Run.State.valueOf(run.state.name()))
                .setAgent(run.agent)
                .setGuardMode(GuardProtos.mode(run.guardMode))
                .setRepeats(run.repeats)
                .setAttemptsTotal(run.attemptsTotal)
                .setAttemptsDone(run.attemptsDone)
                .setProceeded(run.proceeded)
                .setPassed(run.passed)
                .setAttemptsFailed(run.attemptsFailed)
                .setTraceSimilarity(run.meanTraceSimilarity())
                .setAgentConfig(BenchAgentConfigs.fromJson(run.agentConfig))
                .setUsage(usage(run.usage))
                .setCreateTime(timestamp(run.createTime))
                .setSeed(run.seed)
                .setAgentPool(run.agentPool)
                .build();
    }

    static ListAttemptsResponse attempts(BenchAttemptPage page) {
        ListAttemptsResponse.Builder response = ListAttemptsResponse.newBuilder().setNextPageToken(page.nextPageToken());
        for (BenchAttemptPage.Entry entry : page.entries()) {
            BenchAttempt a = entry.attempt();
            Attempt.Builder attempt = Attempt.newBuilder()
                    .setName(BenchResourceNames.attempt(a.runId, a.id))
                    .setInstanceId(a.instanceId)
                    .setRepeat(a.repeatIndex)
                    .setState(Attempt.State.valueOf(a.state.name()))
                    .setExceptionType(nullToEmpty(a.exceptionType))
                    .addAllGuardDecisions(entry.guardDecisions().stream().map(GuardProtos::decision).toList())
                    .setDetail(nullToEmpty(a.detail))
                    .setTraceSimilarity(a.traceSimilarity)
                    .setUsage(usage(a.usage).addAllHealPointExits(a.healPointExitList()))
                    .setOutcomeClass(a.outcomeClass == null ? OutcomeClass.OUTCOME_CLASS_UNSPECIFIED
                            : OutcomeClass.valueOf(a.outcomeClass.name()));
            if (a.exitCause != null) {  // an ended attempt: its counters as its worker reported them
                attempt.setSummary(OutcomeProtos.summary(a.proceeded, a.passed, a.healPoints, a.healsApplied, a.healsRejected,
                        a.exitCause, a.wallTimeMs));
            }
            if (a.failureClass != null) {
                attempt.setFailureClass(OutcomeProtos.failureClass(a.failureClass));
            }
            response.addAttempts(attempt);
        }
        return response.build();
    }

    static ListRunsResponse runs(BenchRunPage page) {
        return ListRunsResponse.newBuilder()
                .addAllRuns(page.runs().stream().map(BenchProtoMapper::summary).toList())
                .setNextPageToken(page.nextPageToken())
                .build();
    }

    static ListAttemptEventsResponse events(BenchEventPage page) {
        ListAttemptEventsResponse.Builder response = ListAttemptEventsResponse.newBuilder().setNextPageToken(page.nextPageToken());
        for (BenchAttemptEvent event : page.events()) {
            response.addEvents(StoredEvent.newBuilder()
                    .setEventId(event.eventId)
                    .setKind(event.kind)
                    .setEventTime(timestamp(event.eventTime))
                    .setReceiveTime(timestamp(event.receiveTime))
                    .setPayloadJson(event.payload));
        }
        return response.build();
    }

    static RegradeRunResponse regrade(BenchRegrade regrade) {
        return RegradeRunResponse.newBuilder()
                .setRun(run(regrade.run()))
                .setAttemptsChanged(regrade.attemptsChanged())
                .setAttemptsWithoutEvents(regrade.attemptsWithoutEvents())
                .build();
    }

    private static AgentUsage.Builder usage(BenchUsage usage) {
        return AgentUsage.newBuilder()
                .setLlmCalls(count(usage.llmCalls))
                .setInputTokens(usage.inputTokens)
                .setCachedInputTokens(usage.cachedInputTokens)
                .setOutputTokens(usage.outputTokens)
                .setCostUsd(usage.costUsd)
                .setPriced(usage.priced)
                .setProbes(count(usage.probes))
                .setExplores(count(usage.explores))
                .setHeals(count(usage.heals))
                .setReraises(count(usage.reraises))
                .setFormatErrors(count(usage.formatErrors))
                .setSelfReported(usage.selfReported);
    }

    /** The wire's 32-bit counts hold a run's sums up to their maximum: past it they saturate, never fail the read. */
    private static int count(long value) {
        return (int) Math.min(Integer.MAX_VALUE, value);
    }

    private static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
