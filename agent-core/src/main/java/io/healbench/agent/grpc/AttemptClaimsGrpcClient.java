package io.healbench.agent.grpc;

import io.grpc.StatusRuntimeException;
import io.healbench.agent.messaging.AgentConfigMapper;
import io.healbench.agent.service.external.AttemptClaims;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.proto.bench.v1.AttemptClaim;
import io.healbench.proto.bench.v1.AttemptClaimsServiceGrpc;
import io.healbench.proto.bench.v1.ClaimAttemptRequest;
import io.healbench.proto.bench.v1.ReleaseClaimRequest;
import io.healbench.proto.bench.v1.RenewClaimRequest;
import io.quarkus.grpc.GrpcClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** {@link AttemptClaims} over bench-service's internal gRPC API (client {@code bench}, with this service's token). */
@ApplicationScoped
public class AttemptClaimsGrpcClient implements AttemptClaims {

    private static final long CALL_TIMEOUT_SECONDS = 20;

    private final AttemptClaimsServiceGrpc.AttemptClaimsServiceBlockingStub bench;

    public AttemptClaimsGrpcClient(@GrpcClient("bench") AttemptClaimsServiceGrpc.AttemptClaimsServiceBlockingStub bench) {
        this.bench = bench;
    }

    @Override
    public Claim claim(String tenant, String target, String agentName, String holder, Duration lease) {
        ClaimAttemptRequest.Builder request = ClaimAttemptRequest.newBuilder().setTenant(tenant).setAgentName(agentName)
                .setHolder(holder).setLeaseSeconds(seconds(lease));
        if (target.contains("/attempts/")) {
            request.setAttempt(target);
        } else {
            request.setRun(target);
        }
        AttemptClaim claim = call(() -> stub().claimAttempt(request.build()));
        return new Claim(claim.getClaimId(), AgentConfigMapper.spec(claim.getAttempt()), claim.getLapses());
    }

    @Override
    public void renew(String tenant, String attemptId, String claimId, Duration lease) {
        call(() -> stub().renewClaim(RenewClaimRequest.newBuilder().setTenant(tenant).setAttemptId(attemptId)
                .setClaimId(claimId).setLeaseSeconds(seconds(lease)).build()));
    }

    @Override
    public void release(String tenant, String attemptId, String claimId, String reason) {
        call(() -> stub().releaseClaim(ReleaseClaimRequest.newBuilder().setTenant(tenant).setAttemptId(attemptId)
                .setClaimId(claimId).setReason(reason).build()));
    }

    private AttemptClaimsServiceGrpc.AttemptClaimsServiceBlockingStub stub() {
        return bench.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private static int seconds(Duration lease) {
        return (int) Math.max(1, lease.toSeconds());
    }

    /** bench-service's refusals keep their reason; an unreachable bench-service is the platform's failure. */
    private static <T> T call(java.util.function.Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            String reason = AgentSandboxCallFailures.errorInfoReason(e);
            String message = e.getStatus().getDescription();
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> ExternalFailure.recoverable(ExternalFailure.Kind.NOT_FOUND,
                        reason.isEmpty() ? "ATTEMPT_NOT_FOUND" : reason, message);
                case INVALID_ARGUMENT -> ExternalFailure.recoverable(ExternalFailure.Kind.INVALID_ARGUMENT,
                        "ARGUMENT_INVALID", message);
                case ABORTED, FAILED_PRECONDITION -> ExternalFailure.fatal(ExternalFailure.Kind.ABORTED,
                        reason.isEmpty() ? "CLAIM_LAPSED" : reason, message);
                default -> ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE",
                        "bench-service could not answer: " + e.getStatus());
            };
        }
    }
}
