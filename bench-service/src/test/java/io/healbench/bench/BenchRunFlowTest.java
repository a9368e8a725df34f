package io.healbench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Timestamp;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.BenchServiceGrpc.BenchServiceBlockingStub;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.GetRunRequest;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.WatchRunRequest;
import io.healbench.proto.events.v1.AttemptCompleted;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.proto.events.v1.AttemptStarted;
import io.healbench.proto.guard.v1.GuardDecision;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.guard.v1.GuardStage;
import io.healbench.proto.guard.v1.GuardVerdict;
import io.healbench.proto.outcome.v1.ExitCause;
import io.healbench.proto.outcome.v1.FailureClass;
import io.healbench.proto.outcome.v1.OutcomeSummary;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A run end to end over the real broker, database and Keycloak: created, queued, driven by events to its end. */
@QuarkusTest
@WithTestResource(KeycloakTestResource.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(RabbitMqTestResource.class)
class BenchRunFlowTest extends BenchClientTest {

    @Test
    void createRunPersistsQueuedAttemptsAndQueuesOneRequestEach() throws Exception {
        clients.broker().purge(BenchTestClients.ATTEMPTS_QUEUE);
        BenchServiceBlockingStub alice = clients.as("healbench-acme", "alice");

        Run run = alice.createRun(CreateRunRequest.newBuilder()
                .addInstanceIds("bench-test-beta").addInstanceIds("bench-test-alpha")
                .setAgent("rules").setGuardMode(GuardMode.OBSERVE).setRepeats(2).build());

        assertEquals(Run.State.PENDING, run.getState());
        assertEquals(4, run.getAttemptsTotal());
        assertEquals(List.of("bench-test-beta", "bench-test-alpha"), run.getInstanceIdsList());
        assertEquals(run, alice.getRun(GetRunRequest.newBuilder().setName(run.getName()).build()));

        List<Attempt> attempts = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(run.getName()).build())
                .getAttemptsList();
        assertEquals(Set.of("bench-test-alpha#0", "bench-test-alpha#1", "bench-test-beta#0", "bench-test-beta#1"),
                attempts.stream().map(a -> a.getInstanceId() + "#" + a.getRepeat()).collect(Collectors.toSet()));
        assertTrue(attempts.stream().allMatch(a -> a.getState() == Attempt.State.QUEUED), attempts.toString());

        String runId = run.getName().substring("runs/".length());
        List<AttemptRequest> queued = clients.takeAttemptsOf(Set.of(runId), 4);
        assertEquals(4, queued.size());
        assertEquals(List.of(), clients.drainAttemptsOf(Set.of(runId)), "exactly one request per attempt");
        Map<String, Attempt> byName = attempts.stream().collect(Collectors.toMap(Attempt::getName, Function.identity()));
        for (AttemptRequest request : queued) {
            assertEquals("acme", request.getTenant());
            assertEquals(runId, request.getRunId());
            assertEquals("rules", request.getAgent());
            assertEquals(GuardMode.OBSERVE, request.getGuardMode());
            Attempt attempt = byName.get(run.getName() + "/attempts/" + request.getAttemptId());
            assertEquals(attempt.getInstanceId(), request.getInstanceId(), request.toString());
            assertEquals(attempt.getRepeat(), request.getRepeat());
        }

        HttpResponse<String> rest = clients.restGet("/api/v1/runs/" + runId, clients.token("healbench-acme", "alice"));
        assertEquals(200, rest.statusCode(), rest.body());
        JsonNode view = new ObjectMapper().readTree(rest.body());
        assertEquals("PENDING", view.get("state").asText());
        JsonNode manifestInstances = view.get("manifest").get("instances");
        assertEquals("bench-test-beta", manifestInstances.get(0).get("id").asText());
        assertTrue(manifestInstances.get(0).get("digest").asText().matches("[0-9a-f]{64}"), rest.body());
        assertEquals("0", manifestInstances.get(0).get("seeds").get("PYTHONHASHSEED").asText());
        assertEquals("observe", view.get("manifest").get("guard_mode").asText());
    }

    @Test
    void eventsDriveTheRunToSucceededWhileWatchRunStreamsEachChange() throws Exception {
        clients.broker().purge(BenchTestClients.ATTEMPTS_QUEUE);
        BenchServiceBlockingStub alice = clients.as("healbench-acme", "alice");
        Run run = alice.createRun(CreateRunRequest.newBuilder()
                .addInstanceIds("bench-test-alpha").setAgent("rules").setRepeats(2).build());
        List<AttemptRequest> work = clients.takeAttemptsOf(Set.of(run.getName().substring("runs/".length())), 2);
        assertEquals(2, work.size());
        AttemptRequest healed = work.get(0);
        AttemptRequest broken = work.get(1);

        Iterator<Run> stream = alice.withDeadlineAfter(60, TimeUnit.SECONDS)
                .watchRun(WatchRunRequest.newBuilder().setName(run.getName()).build());
        assertEquals(Run.State.PENDING, stream.next().getState(), "the stream starts with the current state");
        CompletableFuture<List<Run>> changes = CompletableFuture.supplyAsync(() -> {
            List<Run> seen = new ArrayList<>();
            stream.forEachRemaining(seen::add);
            return seen;
        });

        // The sandbox reports two guard decisions, the first one delivered twice.
        AttemptEvent firstDecision = event(healed, "gd-1").setGuardDecision(GuardDecision.newBuilder()
                .setHealPoint(1).setStage(GuardStage.STATIC).setVerdict(GuardVerdict.ACCEPTED)).build();
        clients.publish("session.guard_decision", firstDecision);
        clients.publish("session.guard_decision", firstDecision);
        clients.publish("session.guard_decision", event(healed, "gd-2").setGuardDecision(GuardDecision.newBuilder()
                .setHealPoint(2).setStage(GuardStage.DYNAMIC).setVerdict(GuardVerdict.BLOCKED).setReason("os.remove")).build());

        // The agent workers start both attempts and complete them; one completion is redelivered.
        clients.publish("attempt.started", event(healed, "st-1").setStarted(AttemptStarted.newBuilder().setSession("s1")).build());
        clients.publish("attempt.started", event(broken, "st-2").setStarted(AttemptStarted.newBuilder().setSession("s2")).build());
        AttemptEvent healedDone = event(healed, "done-1").setCompleted(AttemptCompleted.newBuilder()
                .setSummary(OutcomeSummary.newBuilder().setProceeded(true).setPassed(true).setHealPoints(2).setHealsApplied(1)
                        .setHealsRejected(1).setExitCause(ExitCause.EXITED).setWallTimeMs(812))
                .setExceptionType("ZeroDivisionError").setFailureClass(FailureClass.NONE).setTraceSimilarity(0.8)).build();
        clients.publish("attempt.completed", healedDone);
        clients.publish("attempt.completed", healedDone);
        clients.publish("attempt.completed", event(broken, "done-2").setCompleted(AttemptCompleted.newBuilder()
                .setSummary(OutcomeSummary.newBuilder().setExitCause(ExitCause.ERROR)).setFailureClass(FailureClass.INFRASTRUCTURE)
                .setDetail("bwrap failed").setTraceSimilarity(0.1)).build());

        List<Run> seen = changes.get(60, TimeUnit.SECONDS);
        assertTrue(!seen.isEmpty(), "WatchRun streamed no change");
        Run last = seen.get(seen.size() - 1);
        assertEquals(Run.State.SUCCEEDED, last.getState(), seen.toString());
        assertEquals(2, last.getAttemptsDone());
        assertEquals(1, last.getProceeded(), "the duplicate completion must not count twice");
        assertEquals(1, last.getPassed());
        assertEquals(0.8, last.getTraceSimilarity(), 1e-9, "mean TS over the attempts that say something about the agent, counted once");
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i).getAttemptsDone() >= seen.get(i - 1).getAttemptsDone(), seen.toString());
        }
        assertEquals(last, alice.getRun(GetRunRequest.newBuilder().setName(run.getName()).build()));

        Map<String, Attempt> attempts = awaitGuardDecisions(alice, run.getName(), healed.getAttemptId(), 2);
        Attempt healedAttempt = attempts.get(healed.getAttemptId());
        assertEquals(Attempt.State.COMPLETED, healedAttempt.getState());
        assertTrue(healedAttempt.getSummary().getProceeded() && healedAttempt.getSummary().getPassed());
        assertEquals(2, healedAttempt.getSummary().getHealPoints());
        assertEquals("ZeroDivisionError", healedAttempt.getExceptionType());
        assertEquals(FailureClass.NONE, healedAttempt.getFailureClass());
        assertEquals(812, healedAttempt.getSummary().getWallTimeMs());
        assertEquals(0.8, healedAttempt.getTraceSimilarity(), 1e-9);
        assertEquals(List.of(
                        GuardDecision.newBuilder().setHealPoint(1).setStage(GuardStage.STATIC).setVerdict(GuardVerdict.ACCEPTED).build(),
                        GuardDecision.newBuilder().setHealPoint(2).setStage(GuardStage.DYNAMIC).setVerdict(GuardVerdict.BLOCKED).setReason("os.remove").build()),
                healedAttempt.getGuardDecisionsList(), "the duplicate guard decision must be stored once");
        Attempt brokenAttempt = attempts.get(broken.getAttemptId());
        assertEquals(Attempt.State.FAILED, brokenAttempt.getState());
        assertEquals(FailureClass.INFRASTRUCTURE, brokenAttempt.getFailureClass());
    }

    /** Guard decisions come on their own queue: waits until the last one is in, then returns the attempts by id. */
    private static Map<String, Attempt> awaitGuardDecisions(BenchServiceBlockingStub stub, String runName, String attemptId,
            int expected) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            Map<String, Attempt> byId = stub.listAttempts(ListAttemptsRequest.newBuilder().setParent(runName).build())
                    .getAttemptsList().stream()
                    .collect(Collectors.toMap(a -> a.getName().substring(a.getName().lastIndexOf('/') + 1), Function.identity()));
            boolean lastIn = byId.get(attemptId).getGuardDecisionsList().stream().anyMatch(d -> d.getHealPoint() == expected);
            if (lastIn || System.nanoTime() > deadline) {
                return byId;
            }
            Thread.sleep(100);
        }
    }

    /** An event about {@code work}, as its worker would send it; event ids are unique per test run. */
    private static AttemptEvent.Builder event(AttemptRequest work, String id) {
        Instant now = Instant.now();
        return AttemptEvent.newBuilder()
                .setEventId(work.getRunId() + "/" + id)
                .setTenant(work.getTenant())
                .setRunId(work.getRunId())
                .setAttemptId(work.getAttemptId())
                .setInstanceId(work.getInstanceId())
                .setTime(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()));
    }
}
