package io.healbench.sandbox.grpc;

import io.healbench.common.guard.GuardMode;
import io.healbench.proto.guard.v1.GuardProtos;
import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.GetReferenceRunRequest;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.ListFilesRequest;
import io.healbench.proto.sandbox.v1.ListFilesResponse;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ReadFileRequest;
import io.healbench.proto.sandbox.v1.ReadFileResponse;
import io.healbench.proto.sandbox.v1.ReferenceRun;
import io.healbench.proto.sandbox.v1.ReraiseSessionRequest;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.SearchCodeRequest;
import io.healbench.proto.sandbox.v1.SearchCodeResponse;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.WatchSessionRequest;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.session.CreateSessionCommand;
import io.healbench.sandbox.service.reference.ReferenceRuns;
import io.healbench.sandbox.service.session.SandboxSessions;
import io.healbench.sandbox.service.workspace.CodeQuery;
import io.healbench.sandbox.service.workspace.CodeSearch;
import io.healbench.sandbox.service.workspace.WorkspaceFiles;
import io.healbench.sandbox.service.workspace.WorkspaceListing;
import io.quarkus.grpc.GrpcService;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** gRPC adapter of the sandbox's sessions, repository view and reference runs: maps messages and errors, nothing else. */
@GrpcService
public class SandboxGrpcService implements SandboxService {

    /** AIP-156: an instance's reference run is a singleton resource under it. */
    private static final Pattern REFERENCE_RUN_NAME = Pattern.compile("instances/([^/]+)/referenceRun");

    private final SandboxSessions sessions;
    private final WorkspaceFiles files;
    private final WorkspaceListing listing;
    private final CodeSearch search;
    private final ReferenceRuns references;

    public SandboxGrpcService(SandboxSessions sessions, WorkspaceFiles files, WorkspaceListing listing, CodeSearch search,
                              ReferenceRuns references) {
        this.sessions = sessions;
        this.files = files;
        this.listing = listing;
        this.search = search;
        this.references = references;
    }

    @Override
    @Blocking
    public Uni<Session> createSession(CreateSessionRequest request) {
        return call(() -> SandboxProtoMapper.session(sessions.create(new CreateSessionCommand(request.getInstanceId(),
                SandboxProtoMapper.variant(request.getVariant()), request.getRequestId(), request.getIntercept(), request.getLabelsMap(),
                guardMode(request), request.getExpectedDigest()))));
    }

    private static GuardMode guardMode(CreateSessionRequest request) {
        try {
            return GuardProtos.mode(request.getGuardMode());
        } catch (IllegalArgumentException e) {
            throw new SandboxException(SandboxException.Kind.INVALID_ARGUMENT, "GUARD_MODE_INVALID", e.getMessage());
        }
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
    public Uni<ProbeResult> probeSession(ProbeSessionRequest request) {
        return call(() -> SandboxProtoMapper.probe(sessions.probe(request.getName(), request.getCode(), request.getInplace(),
                Duration.ofMillis(Math.round(request.getTimeoutSeconds() * 1000)))));
    }

    @Override
    @Blocking
    public Uni<HealResult> healSession(HealSessionRequest request) {
        return call(() -> SandboxProtoMapper.heal(sessions.heal(request.getName(), request.getCode(), SandboxProtoMapper.resume(request.getResume()))));
    }

    @Override
    @Blocking
    public Uni<Session> reraiseSession(ReraiseSessionRequest request) {
        return call(() -> SandboxProtoMapper.session(sessions.reraise(request.getName())));
    }

    @Override
    @Blocking
    public Uni<ReadFileResponse> readFile(ReadFileRequest request) {
        return call(() -> SandboxProtoMapper.file(files.read(sessions.workspace(request.getParent()), request.getPath(),
                request.getStartLine(), request.getEndLine())));
    }

    @Override
    @Blocking
    public Uni<ListFilesResponse> listFiles(ListFilesRequest request) {
        return call(() -> SandboxProtoMapper.listing(listing.list(sessions.workspace(request.getParent()), request.getDirectory(),
                request.getGlob(), request.getRecursive(), request.getPageSize(), request.getPageToken())));
    }

    @Override
    @Blocking
    public Uni<SearchCodeResponse> searchCode(SearchCodeRequest request) {
        CodeQuery query = new CodeQuery(request.getQuery(), request.getRegex(), request.getCaseSensitive(), request.getPathGlob(),
                request.getPageSize(), request.getPageToken());
        return call(() -> SandboxProtoMapper.search(search.search(sessions.workspace(request.getParent()), query)));
    }

    @Override
    @Blocking
    public Uni<ReferenceRun> getReferenceRun(GetReferenceRunRequest request) {
        return call(() -> SandboxProtoMapper.reference(references.get(referencedInstance(request.getName()))));
    }

    /** The instance of a reference run's resource name, {@code instances/{instance_id}/referenceRun}. */
    private static String referencedInstance(String name) {
        Matcher matcher = REFERENCE_RUN_NAME.matcher(name);
        if (!matcher.matches()) {
            throw new SandboxException(SandboxException.Kind.INVALID_ARGUMENT, "REFERENCE_RUN_NAME_INVALID",
                    "name must be instances/{instance_id}/referenceRun, got '" + name + "'");
        }
        return matcher.group(1);
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
