package io.healbench.bench.rest;

import io.healbench.bench.service.BenchCallerContext;
import io.healbench.bench.service.BenchRunService;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** REST view of runs; the same tenancy and roles as the gRPC API. */
@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
public class BenchRunResource {

    private final BenchCallerContext callers;
    private final BenchRunService runs;

    public BenchRunResource(BenchCallerContext callers, BenchRunService runs) {
        this.callers = callers;
        this.runs = runs;
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "A run of the caller's tenant, with its counters and manifest")
    public Uni<BenchRunView> get(@PathParam("id") String id) {
        return runs.getRun(callers.reader(), id).map(BenchRunView::of);
    }
}
