package io.healbench.bench.grpc;

import io.healbench.bench.service.BenchCaller;
import io.healbench.bench.service.BenchCallerContext;
import io.healbench.bench.service.BenchException;
import io.healbench.bench.service.BenchRunService;
import io.healbench.bench.service.BenchRunSpec;
import io.healbench.bench.service.BenchRunWatcher;
import io.healbench.common.guard.GuardMode;
import io.healbench.proto.bench.v1.BenchService;
import io.healbench.proto.bench.v1.AttemptTrajectory;
import com.google.protobuf.Empty;
import io.healbench.proto.bench.v1.CancelRunRequest;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.DeleteRunRequest;
import io.healbench.proto.bench.v1.ListAttemptEventsRequest;
import io.healbench.proto.bench.v1.ListAttemptEventsResponse;
import io.healbench.proto.bench.v1.ListRunsRequest;
import io.healbench.proto.bench.v1.ListRunsResponse;
import io.healbench.proto.bench.v1.RegradeRunRequest;
import io.healbench.proto.bench.v1.RegradeRunResponse;
import io.healbench.proto.bench.v1.GetAttemptTrajectoryRequest;
import io.healbench.proto.bench.v1.GetRunRequest;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.ListAttemptsResponse;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.WatchRunRequest;
import io.healbench.proto.guard.v1.GuardProtos;
import io.quarkus.grpc.GrpcService;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import java.util.function.Supplier;

/**
 * gRPC adapter of {@code healbench.bench.v1.BenchService}. The caller is resolved first, on the
 * request's thread; the HTTP server's OIDC bearer authentication has already run for the call.
 */
@GrpcService
public class BenchGrpcService implements BenchService {

    private final BenchCallerContext callers;
    private final BenchRunService runs;
    private final BenchRunWatcher watcher;

    public BenchGrpcService(BenchCallerContext callers, BenchRunService runs, BenchRunWatcher watcher) {
        this.callers = callers;
        this.runs = runs;
        this.watcher = watcher;
    }

    @Override
    public Uni<Run> createRun(CreateRunRequest request) {
        return call(() -> {
            BenchCaller caller = callers.runner();
            BenchRunSpec spec = new BenchRunSpec(request.getInstanceIdsList(), request.getAgent(), guardMode(request),
                    request.getRepeats(), request.getRequestId(), BenchAgentConfigs.toDomain(request.getAgentConfig()),
                    request.getSeed(), request.getAgentPool());
            return runs.createRun(caller, spec).map(BenchProtoMapper::run);
        });
    }

    private static GuardMode guardMode(CreateRunRequest request) {
        try {
            return GuardProtos.mode(request.getGuardMode());
        } catch (IllegalArgumentException e) {
            throw BenchException.invalidArgument("GUARD_MODE_INVALID", e.getMessage());
        }
    }

    @Override
    public Uni<Run> getRun(GetRunRequest request) {
        return call(() -> {
            BenchCaller caller = callers.reader();
            return runs.getRun(caller, BenchResourceNames.runId(request.getName())).map(BenchProtoMapper::run);
        });
    }

    @Override
    public Multi<Run> watchRun(WatchRunRequest request) {
        return Multi.createFrom().deferred(() -> {
            BenchCaller caller = callers.reader();
            return watcher.watch(caller, BenchResourceNames.runId(request.getName()), callers.tokenExpiry()).map(BenchProtoMapper::run);
        }).onFailure().transform(BenchGrpcErrors::toStatus);
    }

    @Override
    public Uni<ListAttemptsResponse> listAttempts(ListAttemptsRequest request) {
        return call(() -> {
            BenchCaller caller = callers.reader();
            return runs.listAttempts(caller, BenchResourceNames.runId(request.getParent()), request.getPageSize(),
                    request.getPageToken()).map(BenchProtoMapper::attempts);
        });
    }

    @Override
    public Uni<AttemptTrajectory> getAttemptTrajectory(GetAttemptTrajectoryRequest request) {
        return call(() -> {
            BenchCaller caller = callers.reader();
            String[] ids = BenchResourceNames.attemptIds(request.getName());
            return runs.trajectory(caller, ids[0], ids[1])
                    .map(json -> AttemptTrajectory.newBuilder().setName(request.getName()).setJson(json).build());
        });
    }

    @Override
    public Uni<ListAttemptEventsResponse> listAttemptEvents(ListAttemptEventsRequest request) {
        return call(() -> {
            BenchCaller caller = callers.reader();
            String[] ids = BenchResourceNames.attemptIds(request.getParent());
            return runs.listAttemptEvents(caller, ids[0], ids[1], request.getPageSize(), request.getPageToken())
                    .map(BenchProtoMapper::events);
        });
    }

    @Override
    public Uni<ListRunsResponse> listRuns(ListRunsRequest request) {
        return call(() -> runs.listRuns(callers.reader(), request.getPageSize(), request.getPageToken()).map(BenchProtoMapper::runs));
    }

    @Override
    public Uni<Run> cancelRun(CancelRunRequest request) {
        return call(() -> {
            BenchCaller caller = callers.runner();
            return runs.cancelRun(caller, BenchResourceNames.runId(request.getName())).map(BenchProtoMapper::run);
        });
    }

    @Override
    public Uni<Empty> deleteRun(DeleteRunRequest request) {
        return call(() -> {
            BenchCaller caller = callers.runner();
            return runs.deleteRun(caller, BenchResourceNames.runId(request.getName())).replaceWith(Empty.getDefaultInstance());
        });
    }

    @Override
    public Uni<RegradeRunResponse> regradeRun(RegradeRunRequest request) {
        return call(() -> {
            BenchCaller caller = callers.runner();
            return runs.regradeRun(caller, BenchResourceNames.runId(request.getName())).map(BenchProtoMapper::regrade);
        });
    }

    private static <T> Uni<T> call(Supplier<Uni<? extends T>> body) {
        return Uni.createFrom().deferred(body).onFailure().transform(BenchGrpcErrors::toStatus);
    }
}
