package io.healbench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.proto.bench.v1.BenchServiceGrpc.BenchServiceBlockingStub;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A run's attempts reach the work queue of the agent pool it names, and no other pool's. */
@QuarkusTest
@WithTestResource(KeycloakTestResource.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(RabbitMqTestResource.class)
class BenchAgentPoolTest extends BenchClientTest {

    @Test
    void aRunsAttemptsGoToItsPoolsQueueAndNoOther() throws Exception {
        clients.broker().purge(BenchTestClients.ATTEMPTS_QUEUE);
        String gpu = clients.poolQueue("gpu-a100");
        String other = clients.poolQueue("cpu-small");
        BenchServiceBlockingStub alice = clients.as("healbench-acme", "alice");

        Run run = alice.createRun(CreateRunRequest.newBuilder().addInstanceIds("bench-test-alpha").addInstanceIds("bench-test-beta")
                .setAgent("rules").setAgentPool("gpu-a100").build());

        assertEquals("gpu-a100", run.getAgentPool());
        assertEquals("gpu-a100", new ObjectMapper().readTree(run.getManifestJson()).get("agent_pool").asText(),
                "the manifest records the pool");
        List<AttemptRequest> taken = clients.takeAttempts(gpu, 2);
        assertEquals(Set.of("bench-test-alpha", "bench-test-beta"),
                taken.stream().map(AttemptRequest::getInstanceId).collect(Collectors.toSet()));
        Thread.sleep(300);
        assertEquals(0, clients.broker().queued(gpu), "one request per attempt, in the pool's queue");
        assertTrue(taken.stream().allMatch(r -> r.getRunId().equals(run.getName().substring("runs/".length()))), taken.toString());
        String runId = run.getName().substring("runs/".length());
        assertEquals(List.of(), clients.drainAttemptsOf(Set.of(runId)), "the default pool's queue got none");
        assertEquals(0, clients.broker().queued(other), "another pool's queue got none");
    }

    @Test
    void aRunNamingNoPoolGoesToTheDefaultPool() throws Exception {
        clients.broker().purge(BenchTestClients.ATTEMPTS_QUEUE);
        String gpu = clients.poolQueue("gpu-a100");
        Run run = clients.as("healbench-acme", "alice").createRun(CreateRunRequest.newBuilder().addInstanceIds("bench-test-alpha")
                .setAgent("rules").build());

        assertEquals("default", run.getAgentPool());
        String runId = run.getName().substring("runs/".length());
        assertEquals(1, clients.takeAttemptsOf(Set.of(runId), 1).size(), "the default pool's queue got the run's attempt");
        assertEquals(0, clients.broker().queued(gpu), "a pool the run did not name got none");
    }
}
