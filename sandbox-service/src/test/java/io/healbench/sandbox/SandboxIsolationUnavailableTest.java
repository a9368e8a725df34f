package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.SandboxServiceGrpc.SandboxServiceBlockingStub;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Without bwrap the sandbox refuses sessions; it never falls back to running them unisolated. */
@QuarkusTest
@TestProfile(SandboxIsolationUnavailableTest.NoBwrap.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxIsolationUnavailableTest {

    public static class NoBwrap implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("healbench.sandbox.bwrap", "/nonexistent/bwrap",
                    "healbench.sandbox.workspace-root", System.getProperty("java.io.tmpdir") + "/healbench/test-no-bwrap-workspaces");
        }
    }

    @GrpcClient("sandbox")
    SandboxServiceBlockingStub sandbox;

    @Inject
    WorkspaceMaterializer materializer;

    @Test
    void sessionCreationFailsClearlyWhenBwrapIsMissing() throws Exception {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId("sandbox-colorsys-typeerror-rgb-to-hsv").setVariant(Variant.BUGGY).setIntercept(true).build()));
        assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode(), e.toString());
        assertEquals("ISOLATION_UNAVAILABLE", SessionEvents.reason(e));
        assertTrue(e.getStatus().getDescription().contains("/nonexistent/bwrap"), e.getStatus().getDescription());
        if (Files.isDirectory(materializer.workspaceDirectory())) {
            try (Stream<java.nio.file.Path> left = Files.list(materializer.workspaceDirectory())) {
                assertEquals(0, left.count(), "the refused session's workspace is deleted");
            }
        }
    }
}
