package io.healbench.agent.grpc;

import io.healbench.agent.service.external.ExternalAttempts;
import io.healbench.agent.service.external.ExternalCaller;
import io.healbench.agent.service.external.ExternalClaim;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.agent.service.external.ExternalReply;
import io.healbench.agent.service.external.SelfReportedUsage;
import io.healbench.proto.agent.v1.ConnectRequest;
import io.healbench.proto.agent.v1.ConnectResponse;
import io.healbench.proto.agent.v1.ReportUsageRequest;
import io.healbench.proto.agent.v1.ReportUsageResponse;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import io.smallrye.mutiny.subscription.MultiEmitter;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jboss.logging.Logger;

/**
 * One agent's stream, in the manner of dm_env_rpc: requests are answered one at a time, in order, each exactly once.
 * A recoverable failure is that request's answer (its {@code error}); a fatal one ends the stream with its status.
 * The stream holds at most one attempt: it claims it first, and its being open keeps the claim's lease alive.
 */
final class GatewayStream {

    private static final Logger LOG = Logger.getLogger(GatewayStream.class);
    private static final int MAX_REQUEST_ID_CHARS = 128;

    private final ExternalCaller caller;
    private final ExternalAttempts attempts;
    private final MultiEmitter<? super ConnectResponse> responses;
    /** The answers are blocking work, and in order: one thread of the stream's own. */
    private final ExecutorService serial = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "agent-gateway-stream");
        thread.setDaemon(true);
        return thread;
    });
    private String attempt;
    /** Whether this stream still counts as keeping its attempt's claim alive. */
    private boolean attached;
    private volatile boolean closed;

    GatewayStream(ExternalCaller caller, ExternalAttempts attempts, MultiEmitter<? super ConnectResponse> responses) {
        this.caller = caller;
        this.attempts = attempts;
        this.responses = responses;
    }

    void follow(Multi<ConnectRequest> requests) {
        Cancellable subscription = requests.subscribe().with(
                request -> serial.execute(() -> answer(request)),
                failure -> serial.execute(this::gone),
                () -> serial.execute(() -> {
                    gone();
                    if (!closed) {
                        closed = true;
                        responses.complete();
                    }
                }));
        responses.onTermination(() -> {
            subscription.cancel();
            serial.execute(this::gone);
            serial.shutdown();
        });
    }

    /** The agent closed or broke its side: the claim now lives on its lease alone. */
    private void gone() {
        if (attached) {
            attached = false;
            attempts.detach(caller, attempt);
        }
    }

    private void answer(ConnectRequest request) {
        if (closed) {
            return;
        }
        ConnectResponse.Builder out = ConnectResponse.newBuilder().setRequestId(request.getRequestId());
        boolean over = false;
        try {
            if (request.getRequestId().length() > MAX_REQUEST_ID_CHARS) {
                throw ExternalFailure.recoverable(ExternalFailure.Kind.INVALID_ARGUMENT, "ARGUMENT_INVALID",
                        "request_id is longer than " + MAX_REQUEST_ID_CHARS + " characters");
            }
            switch (request.getActionCase()) {
                case CLAIM -> over = claim(request, out);
                case REPORT_USAGE -> {
                    requireClaim();
                    ReportUsageRequest usage = request.getReportUsage();
                    out.setReportUsage(ReportUsageResponse.getDefaultInstance()).setBudget(AgentGatewayMapper.budget(
                            attempts.reportUsage(caller, attempt, new SelfReportedUsage(usage.getLlmCalls(),
                                    usage.getInputTokens(), usage.getOutputTokens(), usage.getCostUsd(), usage.getModel()))));
                }
                case ACTION_NOT_SET -> throw ExternalFailure.recoverable(ExternalFailure.Kind.INVALID_ARGUMENT,
                        "ARGUMENT_INVALID", "the request names no action");
                default -> {
                    requireClaim();
                    String tool = AgentGatewayMapper.tool(request);
                    ExternalReply reply = attempts.act(caller, attempt, AgentGatewayMapper.arguments(request), tool);
                    AgentGatewayMapper.reply(out, tool, reply);
                    over = reply.step() != null && reply.step().isFinished();
                }
            }
        } catch (ExternalFailure failure) {
            if (failure.fatal()) {
                close(failure);
                return;
            }
            out.clearResult().setError(AgentGatewayMapper.status(failure));
            if (attempt != null) {
                try {
                    out.setBudget(AgentGatewayMapper.budget(attempts.budget(caller, attempt)));
                } catch (ExternalFailure gone) {
                    // The attempt ended meanwhile; the next request hears so.
                }
            }
        } catch (RuntimeException bug) {
            LOG.errorf(bug, "the gateway failed a request of %s", caller.subject());
            close(ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE",
                    "the gateway failed: " + bug.getClass().getSimpleName()));
            return;
        }
        responses.emit(out.build());
        if (over) {
            // The attempt is over: this was the last response.
            closed = true;
            responses.complete();
        }
    }

    private boolean claim(ConnectRequest request, ConnectResponse.Builder out) {
        if (attempt != null) {
            throw ExternalFailure.recoverable(ExternalFailure.Kind.FAILED_PRECONDITION, "ALREADY_CLAIMED",
                    "this stream holds " + attempt + "; open another stream for another attempt");
        }
        String target = switch (request.getClaim().getTargetCase()) {
            case RUN -> request.getClaim().getRun();
            case ATTEMPT -> request.getClaim().getAttempt();
            case TARGET_NOT_SET -> null;
        };
        ExternalClaim claim = attempts.claim(caller, target, request.getClaim().getAgent(), true);
        attempt = claim.attempt();
        attached = true;
        AgentGatewayMapper.claim(out, claim);
        return claim.step().isFinished();
    }

    private void requireClaim() {
        if (attempt == null) {
            throw ExternalFailure.recoverable(ExternalFailure.Kind.FAILED_PRECONDITION, "NOT_CLAIMED",
                    "claim an attempt first: the stream's first request is a claim");
        }
    }

    private void close(ExternalFailure failure) {
        closed = true;
        gone();
        responses.fail(AgentGatewayMapper.fatal(failure));
    }
}
