package io.healbench.bench.rest;

import io.healbench.bench.service.BenchException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Maps refusals to HTTP statuses with a small JSON body: code, reason, message. */
public class BenchRestErrors {

    @ServerExceptionMapper
    public Response map(BenchException e) {
        int status = switch (e.kind()) {
            case INVALID_ARGUMENT -> 400;
            case UNAUTHENTICATED -> 401;
            case PERMISSION_DENIED -> 403;
            case NOT_FOUND -> 404;
            case FAILED_PRECONDITION, ABORTED -> 409;
        };
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON)
                .entity(Map.of("code", e.kind().name(), "reason", e.reason(), "message", e.getMessage()))
                .build();
    }
}
