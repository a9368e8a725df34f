package io.healbench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.proto.bench.v1.BenchServiceGrpc.BenchServiceBlockingStub;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** CreateRun's validation, dataset selection and request-id idempotency. */
@QuarkusTest
@WithTestResource(KeycloakTestResource.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(RabbitMqTestResource.class)
class BenchCreateRunTest extends BenchClientTest {

    private static BenchServiceBlockingStub alice;

    @BeforeAll
    static void signIn() {
        alice = clients.as("healbench-acme", "alice");
    }

    @Test
    void anUnknownInstanceIdIsRejectedByName() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> alice.createRun(CreateRunRequest.newBuilder()
                .addInstanceIds("bench-test-alpha").addInstanceIds("no-such-instance").setAgent("rules").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("'no-such-instance'"), e.getStatus().getDescription());
        assertEquals("INSTANCE_NOT_FOUND", errorInfo(e).getReason());
    }

    @Test
    void anUnknownGuardModeIsRejected() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> alice.createRun(CreateRunRequest.newBuilder()
                .setAgent("rules").setGuardModeValue(99).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("GUARD_MODE_INVALID", errorInfo(e).getReason());
    }

    @Test
    void anAgentPoolThatCannotNameAQueueAndItsObjectsIsRejected() {
        for (String pool : List.of("GPU", "gpu.a100", "-gpu", "gpu-", "gpu_a100", "p".repeat(41), "attempts/../x")) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> alice.createRun(CreateRunRequest.newBuilder()
                    .setAgent("rules").setAgentPool(pool).build()), pool);
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), pool);
            assertEquals("AGENT_POOL_INVALID", errorInfo(e).getReason(), pool);
        }
    }

    @Test
    void noInstanceIdsMeansTheWholeDataset() {
        Run run = alice.createRun(CreateRunRequest.newBuilder().setAgent("rules").build());
        assertEquals(List.of("bench-test-alpha", "bench-test-beta"), run.getInstanceIdsList());
        assertEquals(2, run.getAttemptsTotal());
        assertEquals(GuardMode.ENFORCE, run.getGuardMode(), "the default guard mode");
        assertEquals("default", run.getAgentPool(), "the default agent pool");
        assertEquals(1, run.getRepeats());
    }

    @Test
    void aRepeatedRequestIdReturnsTheSameRunAndQueuesNothingMore() throws Exception {
        clients.broker().purge(BenchTestClients.ATTEMPTS_QUEUE);
        CreateRunRequest request = CreateRunRequest.newBuilder().addInstanceIds("bench-test-beta").setAgent("rules")
                .setRepeats(3).setRequestId(UUID.randomUUID().toString()).build();

        Run first = alice.createRun(request);
        Run again = alice.createRun(request);
        Run other = alice.createRun(request.toBuilder().setRequestId(UUID.randomUUID().toString()).build());

        assertEquals(first, again);
        assertNotEquals(first.getName(), other.getName());
        assertEquals(3, alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(first.getName()).build()).getAttemptsCount());
        Set<String> runIds = Set.of(first.getName().substring("runs/".length()), other.getName().substring("runs/".length()));
        assertEquals(6, clients.takeAttemptsOf(runIds, 6).size());
        Thread.sleep(300);
        assertEquals(List.of(), clients.drainAttemptsOf(runIds), "the repeated request must not queue its attempts again");
    }

    private static ErrorInfo errorInfo(StatusRuntimeException e) {
        try {
            return StatusProto.fromThrowable(e).getDetails(0).unpack(ErrorInfo.class);
        } catch (Exception failure) {
            throw new AssertionError("no ErrorInfo in " + e.getStatus(), failure);
        }
    }
}
