package io.healbench.sandbox;

import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.SandboxServiceGrpc.SandboxServiceBlockingStub;
import io.quarkus.grpc.GrpcClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * A test of the sandbox's session API over real gRPC. The sessions it opens are closed after each test, so that none
 * holds one of the service's few session slots (max-sessions) into the next.
 */
abstract class SandboxSessionTest {

    @GrpcClient("sandbox")
    SandboxServiceBlockingStub sandbox;

    @GrpcClient("sandbox")
    SandboxService sandboxStreams;

    /** The names of the sessions the current test opened. */
    final List<String> opened = new ArrayList<>();

    @AfterEach
    void closeSessions() {
        opened.forEach(name -> sandbox.closeSession(CloseSessionRequest.newBuilder().setName(name).build()));
        opened.clear();
    }
}
