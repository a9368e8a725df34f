package io.healbench.sandbox.grpc;

import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.HealRequest;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.ProbeRequest;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ReadFileRequest;
import io.healbench.proto.sandbox.v1.ReadFileResponse;
import io.healbench.proto.sandbox.v1.ReraiseRequest;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.WatchSessionRequest;
import io.healbench.sandbox.service.session.CreateSessionCommand;
import io.healbench.sandbox.service.session.SandboxSessions;
import io.quarkus.grpc.GrpcService;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import java.util.function.Supplier;

/** gRPC adapter of {@link SandboxSessions}: maps messages and errors, nothing else. */
@GrpcService
public class SandboxGrpcService implements SandboxService {

    private final SandboxSessions sessions;

    public SandboxGrpcService(SandboxSessions sessions) {
        this.sessions = sessions;
    }

    @Override
    @Blocking
    public Uni<Session> createSession(CreateSessionRequest request) {
        return call(() -> SandboxProtoMapper.session(sessions.create(new CreateSessionCommand(request.getInstanceId(),
                SandboxProtoMapper.variant(request.getVariant()), request.getRequestId(), request.getIntercept(), request.getLabelsMap()))));
    }

    @Override
    public Multi<SessionEvent> watchSession(WatchSessionRequest request) {
        try {
            return sessions.watch(request.getName()).map(SandboxProtoMapper::event);
        } catch (RuntimeException e) {
            return Multi.createFrom().failure(SandboxErrors.toGrpc(e));
        }
    }

    @Override
    @Blocking
    public Uni<ProbeResult> probe(ProbeRequest request) {
        return call(() -> SandboxProtoMapper.probe(sessions.probe(request.getName(), request.getCode(), request.getInplace())));
    }

    @Override
    @Blocking
    public Uni<HealResult> heal(HealRequest request) {
        return call(() -> SandboxProtoMapper.heal(sessions.heal(request.getName(), request.getCode(), SandboxProtoMapper.resume(request.getResume()))));
    }

    @Override
    @Blocking
    public Uni<Session> reraise(ReraiseRequest request) {
        return call(() -> SandboxProtoMapper.session(sessions.reraise(request.getName())));
    }

    @Override
    @Blocking
    public Uni<ReadFileResponse> readFile(ReadFileRequest request) {
        return call(() -> SandboxProtoMapper.file(sessions.readFile(request.getName(), request.getPath(), request.getStartLine(), request.getEndLine())));
    }

    @Override
    @Blocking
    public Uni<Session> closeSession(CloseSessionRequest request) {
        return call(() -> SandboxProtoMapper.session(sessions.close(request.getName())));
    }

    private static <T> Uni<T> call(Supplier<T> body) {
        try {
            return Uni.createFrom().item(body.get());
        } catch (RuntimeException e) {
            return Uni.createFrom().failure(SandboxErrors.toGrpc(e));
        }
    }
}
