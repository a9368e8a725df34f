package io.healbench.standalone;

import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.healbench.proto.agent.v1.AgentGatewayServiceGrpc;
import io.healbench.proto.agent.v1.ClaimRequest;
import io.healbench.proto.agent.v1.ConnectRequest;
import io.healbench.proto.agent.v1.ConnectResponse;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One AgentGateway stream driven one request at a time, as an external agent would: {@link #call} sends a request and
 * waits for its one response; a fatal error ends the stream and is thrown as the {@link StatusRuntimeException}.
 */
final class GatewayTestClient implements AutoCloseable {

    private static final Object COMPLETED = new Object();

    private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private final ClientCallStreamObserver<ConnectRequest> requests;
    private int sequence;

    GatewayTestClient(Channel channel, String token) {
        Metadata headers = new Metadata();
        if (token != null) {
            headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        }
        Channel authed = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        ClientCallStreamObserver<ConnectRequest>[] opened = new ClientCallStreamObserver[1];
        AgentGatewayServiceGrpc.newStub(authed).connect(new ClientResponseObserver<ConnectRequest, ConnectResponse>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<ConnectRequest> stream) {
                opened[0] = stream;
            }

            @Override
            public void onNext(ConnectResponse response) {
                received.add(response);
            }

            @Override
            public void onError(Throwable t) {
                received.add(t);
            }

            @Override
            public void onCompleted() {
                received.add(COMPLETED);
            }
        });
        this.requests = opened[0];
    }

    /** Sends {@code request} with a fresh request id and returns its response (which must echo the id). */
    ConnectResponse call(ConnectRequest.Builder request) throws Exception {
        String id = "r" + (++sequence);
        requests.onNext(request.setRequestId(id).build());
        Object next = received.poll(300, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("no response to request " + id + " within 300 s");
        }
        if (next instanceof StatusRuntimeException fatal) {
            throw fatal;
        }
        if (next instanceof Throwable other) {
            throw new AssertionError("the stream failed: " + other, other);
        }
        if (next == COMPLETED) {
            throw new AssertionError("the stream completed before answering request " + id);
        }
        ConnectResponse response = (ConnectResponse) next;
        if (!response.getRequestId().equals(id)) {
            throw new AssertionError("response to " + response.getRequestId() + " came for request " + id);
        }
        return response;
    }

    ConnectResponse claim(String target) throws Exception {
        ClaimRequest.Builder claim = ClaimRequest.newBuilder();
        if (target.contains("/attempts/")) {
            claim.setAttempt(target);
        } else {
            claim.setRun(target);
        }
        return call(ConnectRequest.newBuilder().setClaim(claim));
    }

    /** Whether the server ended the stream (completed, or failed) within {@code seconds}. */
    boolean endedWithin(long seconds) throws InterruptedException {
        Object next = received.poll(seconds, TimeUnit.SECONDS);
        return next == COMPLETED || next instanceof Throwable;
    }

    /** Breaks the stream off from the client's side, as a crashed or disconnected agent does. */
    void cancel() {
        requests.cancel("the agent went away", null);
    }

    @Override
    public void close() {
        try {
            requests.onCompleted();
        } catch (IllegalStateException alreadyClosed) {
            // The stream ended already.
        }
    }

    /** The ErrorInfo reason of a per-message error (empty when the response carries none). */
    static String reason(ConnectResponse response) throws Exception {
        for (com.google.protobuf.Any detail : response.getError().getDetailsList()) {
            if (detail.is(com.google.rpc.ErrorInfo.class)) {
                return detail.unpack(com.google.rpc.ErrorInfo.class).getReason();
            }
        }
        return "";
    }

    static String reason(StatusRuntimeException fatal) throws Exception {
        com.google.rpc.Status status = io.grpc.protobuf.StatusProto.fromThrowable(fatal);
        if (status != null) {
            for (com.google.protobuf.Any detail : status.getDetailsList()) {
                if (detail.is(com.google.rpc.ErrorInfo.class)) {
                    return detail.unpack(com.google.rpc.ErrorInfo.class).getReason();
                }
            }
        }
        return "";
    }
}
