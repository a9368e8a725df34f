package io.healbench.agent.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.agent.messaging.UnreachableSandboxProfile;
import io.healbench.proto.agent.v1.AgentAction;
import io.healbench.proto.agent.v1.AgentGateway;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Multi;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Over a real gRPC connection to the running service. Shares the app of the delivery-policy test. */
@QuarkusTest
@TestProfile(UnreachableSandboxProfile.class)
class AgentGatewayGrpcServiceTest {

    @GrpcClient("agent")
    AgentGateway gateway;

    @Test
    void connectIsRefusedAsNotYetAvailable() {
        Throwable failure = gateway.connect(Multi.createFrom().item(AgentAction.newBuilder().setAttempt("a1").build()))
                .collect().asList()
                .onItemOrFailure().transform((items, error) -> error)
                .await().atMost(Duration.ofSeconds(20));

        StatusRuntimeException refused = assertInstanceOf(StatusRuntimeException.class, failure);
        assertEquals(Status.Code.UNIMPLEMENTED, refused.getStatus().getCode());
        assertEquals("NOT_YET_AVAILABLE", AgentSandboxCallFailures.errorInfoReason(refused));
    }
}
