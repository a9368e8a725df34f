package io.healbench.bench.grpc;

import com.google.protobuf.Empty;
import io.healbench.bench.service.BenchClaims;
import io.healbench.bench.service.BenchException;
import io.healbench.proto.bench.v1.AttemptClaim;
import io.healbench.proto.bench.v1.AttemptClaimsService;
import io.healbench.proto.bench.v1.ClaimAttemptRequest;
import io.healbench.proto.bench.v1.ReleaseClaimRequest;
import io.healbench.proto.bench.v1.RenewClaimRequest;
import io.quarkus.grpc.GrpcService;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The claims ledger for agent-service's gateway (internal: the service-token interceptor lets only HealBench's services
 * in). The tenant is the one the gateway authenticated; every lookup is scoped to it.
 */
@GrpcService
public class AttemptClaimsGrpcService implements AttemptClaimsService {

    private final BenchClaims claims;

    public AttemptClaimsGrpcService(BenchClaims claims) {
        this.claims = claims;
    }

    @Override
    public Uni<AttemptClaim> claimAttempt(ClaimAttemptRequest request) {
        return call(() -> {
            String tenant = required(request.getTenant(), "tenant");
            String runId;
            String attemptId = null;
            switch (request.getTargetCase()) {
                case RUN -> runId = BenchResourceNames.runId(request.getRun());
                case ATTEMPT -> {
                    String[] ids = BenchResourceNames.attemptIds(request.getAttempt());
                    runId = ids[0];
                    attemptId = ids[1];
                }
                default -> throw BenchException.invalidArgument("TARGET_INVALID", "a claim names a run or an attempt");
            }
            return claims.claim(tenant, runId, attemptId, request.getAgentName(), request.getHolder(),
                    Duration.ofSeconds(request.getLeaseSeconds())).map(claimed -> AttemptClaim.newBuilder()
                    .setClaimId(claimed.attempt().claimId)
                    .setExpireTimeMs(claimed.attempt().claimExpireTime.toEpochMilli())
                    .setLapses(claimed.attempt().lapses)
                    .setAttempt(BenchAgentConfigs.attemptRequest(claimed.run(), claimed.attempt()))
                    .build());
        });
    }

    @Override
    public Uni<AttemptClaim> renewClaim(RenewClaimRequest request) {
        return call(() -> claims.renew(required(request.getTenant(), "tenant"), required(request.getAttemptId(), "attempt_id"),
                        required(request.getClaimId(), "claim_id"), Duration.ofSeconds(request.getLeaseSeconds()))
                .map(attempt -> AttemptClaim.newBuilder().setClaimId(attempt.claimId)
                        .setExpireTimeMs(attempt.claimExpireTime.toEpochMilli()).setLapses(attempt.lapses).build()));
    }

    @Override
    public Uni<Empty> releaseClaim(ReleaseClaimRequest request) {
        return call(() -> claims.release(required(request.getTenant(), "tenant"), required(request.getAttemptId(), "attempt_id"),
                required(request.getClaimId(), "claim_id"), request.getReason()).replaceWith(Empty.getDefaultInstance()));
    }

    private static String required(String value, String field) {
        if (value.isBlank()) {
            throw BenchException.invalidArgument("TARGET_INVALID", field + " is required");
        }
        return value;
    }

    private static <T> Uni<T> call(Supplier<Uni<? extends T>> body) {
        return Uni.createFrom().deferred(body).onFailure().transform(BenchGrpcErrors::toStatus);
    }
}
