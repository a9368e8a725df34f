package io.healbench.agent.grpc;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Status;
import io.grpc.protobuf.StatusProto;
import io.healbench.proto.agent.v1.AgentAction;
import io.healbench.proto.agent.v1.AgentGateway;
import io.healbench.proto.agent.v1.EnvironmentMessage;
import io.quarkus.grpc.GrpcService;
import io.smallrye.mutiny.Multi;

/** The external-agent gateway. Not implemented yet: every stream is refused with a rich UNIMPLEMENTED. */
@GrpcService
public class AgentGatewayGrpcService implements AgentGateway {

    static final String REASON = "NOT_YET_AVAILABLE";
    static final String DOMAIN = "agent.healbench.io";

    @Override
    public Multi<EnvironmentMessage> connect(Multi<AgentAction> actions) {
        Status status = Status.newBuilder()
                .setCode(Code.UNIMPLEMENTED_VALUE)
                .setMessage("AgentGateway.Connect is not available yet; use the built-in agents")
                .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(REASON).setDomain(DOMAIN).build()))
                .build();
        return Multi.createFrom().failure(StatusProto.toStatusRuntimeException(status));
    }
}
