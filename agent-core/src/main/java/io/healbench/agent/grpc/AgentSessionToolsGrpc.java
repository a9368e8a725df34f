package io.healbench.agent.grpc;

import io.grpc.Status;
import io.healbench.agent.service.SessionTools;
import io.healbench.proto.sandbox.v1.ListFilesRequest;
import io.healbench.proto.sandbox.v1.ListFilesResponse;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ReadFileRequest;
import io.healbench.proto.sandbox.v1.ReadFileResponse;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.SearchCodeRequest;
import io.healbench.proto.sandbox.v1.SearchCodeResponse;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@link SessionTools} of one session over sandbox-service's gRPC API. A refusal the agent caused (a bad path or
 * pattern, a file that is not there, no crash paused) becomes {@link SessionTools.Refused}; anything else is the
 * sandbox failing.
 */
final class AgentSessionToolsGrpc implements SessionTools {

    private static final Set<Status.Code> REFUSALS = EnumSet.of(
            Status.Code.INVALID_ARGUMENT, Status.Code.NOT_FOUND, Status.Code.FAILED_PRECONDITION,
            Status.Code.OUT_OF_RANGE, Status.Code.PERMISSION_DENIED);
    /** One page of a listing or a search is what an agent gets; it narrows the glob for more. */
    private static final int PAGE = 200;

    private final SandboxService sandbox;
    private final String session;
    private final Duration callTimeout;

    AgentSessionToolsGrpc(SandboxService sandbox, String session, Duration callTimeout) {
        this.sandbox = sandbox;
        this.session = session;
        this.callTimeout = callTimeout;
    }

    @Override
    public ProbeReply probe(String code, Duration timeout) {
        ProbeResult result = call("ProbeSession", sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session).setCode(code)
                .setTimeoutSeconds(timeout.toMillis() / 1000.0).build()));
        return new ProbeReply(result.getOk(), result.getOutput(), result.getValueRepr(), result.getError());
    }

    @Override
    public FileView readFile(String path, int start, int end) {
        ReadFileResponse file = call("ReadFile", sandbox.readFile(ReadFileRequest.newBuilder().setParent(session)
                .setPath(path).setStartLine(start).setEndLine(end).build()));
        return new FileView(file.getPath(), file.getContent(), file.getTotalLines(), file.getStartLine(),
                file.getEndLine(), file.getTruncated());
    }

    @Override
    public FileListing listFiles(String directory, String glob) {
        ListFilesResponse listing = call("ListFiles", sandbox.listFiles(ListFilesRequest.newBuilder().setParent(session)
                .setDirectory(directory).setGlob(glob).setRecursive(true).setPageSize(PAGE).build()));
        return new FileListing(listing.getFilesList().stream()
                .map(entry -> new FileEntry(entry.getPath(), entry.getSize(), entry.getIsDir())).toList(),
                !listing.getNextPageToken().isEmpty());
    }

    @Override
    public CodeMatches searchCode(String pattern, String glob) {
        SearchCodeResponse found = call("SearchCode", sandbox.searchCode(SearchCodeRequest.newBuilder()
                .setParent(session).setQuery(pattern).setRegex(true).setCaseSensitive(true).setPathGlob(glob)
                .setPageSize(PAGE).build()));
        return new CodeMatches(found.getMatchesList().stream()
                .map(match -> new CodeMatch(match.getPath(), match.getLine(), match.getText())).toList(),
                !found.getNextPageToken().isEmpty(), found.getFilesSkipped());
    }

    private <T> T call(String what, Uni<T> call) {
        try {
            // A probe may take the sandbox's whole probe limit; the call timeout is the longer bound.
            return call.await().atMost(callTimeout);
        } catch (RuntimeException e) {
            Status status = Status.fromThrowable(e);
            if (REFUSALS.contains(status.getCode())) {
                throw new Refused(status.getDescription() == null ? status.getCode().name() : status.getDescription());
            }
            throw AgentSandboxCallFailures.of(what + " " + session, e);
        }
    }
}
