package io.healbench.sandbox;

import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.SandboxServiceGrpc.SandboxServiceBlockingStub;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.Variant;
import java.util.UUID;

/** Creating the intercepted BUGGY session the hostile-session tests start from. */
final class TestSessions {

    private TestSessions() {}

    static Session buggy(SandboxServiceBlockingStub sandbox, String instance, GuardMode guardMode) {
        return sandbox.createSession(CreateSessionRequest.newBuilder().setInstanceId(instance).setVariant(Variant.BUGGY)
                .setIntercept(true).setGuardMode(guardMode).setRequestId(UUID.randomUUID().toString()).build());
    }
}
