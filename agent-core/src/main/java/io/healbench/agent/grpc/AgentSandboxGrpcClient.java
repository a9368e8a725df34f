package io.healbench.agent.grpc;

import io.healbench.agent.config.AgentSettings;
import io.healbench.agent.service.AgentSandbox;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.SessionTools;
import io.healbench.common.heal.Resume;
import io.healbench.proto.guard.v1.GuardProtos;
import io.healbench.proto.outcome.v1.ResumeModes;
import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.ReraiseSessionRequest;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.proto.sandbox.v1.WatchSessionRequest;
import io.quarkus.grpc.GrpcClient;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;

/** {@link AgentSandbox} over sandbox-service's gRPC API (client {@code sandbox}). */
@ApplicationScoped
public class AgentSandboxGrpcClient implements AgentSandbox {

    private final SandboxService sandbox;
    private final AgentSettings settings;

    public AgentSandboxGrpcClient(@GrpcClient("sandbox") SandboxService sandbox, AgentSettings settings) {
        this.sandbox = sandbox;
        this.settings = settings;
    }

    /**
     * Each execution of an attempt gets a fresh session (a random request id): after a redelivery
     * the previous worker's session may be paused mid-crash, and its events would not fit a new run.
     */
    @Override
    public String create(AttemptSpec spec) {
        CreateSessionRequest request = CreateSessionRequest.newBuilder()
                .setInstanceId(spec.instanceId())
                .setVariant(Variant.BUGGY)
                .setIntercept(true)
                .setGuardMode(GuardProtos.mode(spec.guardMode()))
                .setExpectedDigest(spec.instanceDigest())
                .setRequestId(UUID.randomUUID().toString())
                .putLabels("tenant", spec.tenant())
                .putLabels("run_id", spec.runId())
                .putLabels("attempt_id", spec.attemptId())
                .build();
        return call("CreateSession " + spec.instanceId(), sandbox.createSession(request)).getName();
    }

    @Override
    public Watch watch(String session) {
        return new AgentSessionWatch(session,
                sandbox.watchSession(WatchSessionRequest.newBuilder().setName(session).build()));
    }

    @Override
    public HealReply heal(String session, String code, Resume resume) {
        HealSessionRequest request = HealSessionRequest.newBuilder()
                .setName(session)
                .setCode(code)
                .setResume(ResumeModes.of(resume))
                .build();
        return AgentSandboxProtoMapper.healReply(call("HealSession " + session, sandbox.healSession(request)));
    }

    @Override
    public SessionTools tools(String session) {
        return new AgentSessionToolsGrpc(sandbox, session, settings.sandboxCallTimeout());
    }

    @Override
    public void reraise(String session) {
        call("ReraiseSession " + session, sandbox.reraiseSession(ReraiseSessionRequest.newBuilder().setName(session).build()));
    }

    @Override
    public void close(String session) {
        call("CloseSession " + session, sandbox.closeSession(CloseSessionRequest.newBuilder().setName(session).build()));
    }

    private <T> T call(String what, Uni<T> call) {
        try {
            return call.await().atMost(settings.sandboxCallTimeout());
        } catch (RuntimeException e) {
            throw AgentSandboxCallFailures.of(what, e);
        }
    }
}
