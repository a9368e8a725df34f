package io.healbench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.proto.bench.v1.BenchServiceGrpc.BenchServiceBlockingStub;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.events.v1.AttemptRequest;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A run's attempts reach the work queue of the agent pool it names, and no other pool's. */
@QuarkusTest
@WithTestResource(KeycloakTestResource.class)
class BenchAgentPoolTest {

    private static BenchTestClients clients;
    private static BenchTestBroker broker;

    @BeforeAll
    static void connect() throws Exception {
        clients = new BenchTestClients();
        broker = new BenchTestBroker();
    }

    @AfterAll
    static void disconnect() throws Exception {
        broker.close();
        clients.close();
    }

    @Test
    void aRunsAttemptsGoToItsPoolsQueueAndNoOther() throws Exception {
        broker.purgeAttempts();
        String gpu = broker.poolQueue("gpu-a100");
        String other = broker.poolQueue("cpu-small");
        BenchServiceBlockingStub alice = clients.as("healbench-acme", "alice");

        Run run = alice.createRun(CreateRunRequest.newBuilder().addInstanceIds("bench-test-alpha").addInstanceIds("bench-test-beta")
                .setAgent("rules").setAgentPool("gpu-a100").build());

        assertEquals("gpu-a100", run.getAgentPool());
        assertEquals("gpu-a100", new ObjectMapper().readTree(run.getManifestJson()).get("agent_pool").asText(),
                "the manifest records the pool");
        List<AttemptRequest> taken = broker.takeAttempts(gpu, 2);
        assertEquals(Set.of("bench-test-alpha", "bench-test-beta"),
                taken.stream().map(AttemptRequest::getInstanceId).collect(Collectors.toSet()));
        Thread.sleep(300);
        assertEquals(0, broker.queued(gpu), "one request per attempt, in the pool's queue");
        assertTrue(taken.stream().allMatch(r -> r.getRunId().equals(run.getName().substring("runs/".length()))), taken.toString());
        String runId = run.getName().substring("runs/".length());
        assertEquals(List.of(), broker.drainAttemptsOf(Set.of(runId)), "the default pool's queue got none");
        assertEquals(0, broker.queued(other), "another pool's queue got none");
    }

    @Test
    void aRunNamingNoPoolGoesToTheDefaultPool() throws Exception {
        broker.purgeAttempts();
        String gpu = broker.poolQueue("gpu-a100");
        Run run = clients.as("healbench-acme", "alice").createRun(CreateRunRequest.newBuilder().addInstanceIds("bench-test-alpha")
                .setAgent("rules").build());

        assertEquals("default", run.getAgentPool());
        String runId = run.getName().substring("runs/".length());
        assertEquals(1, broker.takeAttemptsOf(Set.of(runId), 1).size(), "the default pool's queue got the run's attempt");
        assertEquals(0, broker.queued(gpu), "a pool the run did not name got none");
    }
}
