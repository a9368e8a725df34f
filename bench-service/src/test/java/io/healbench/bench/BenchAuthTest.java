package io.healbench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.bench.v1.BenchServiceGrpc.BenchServiceBlockingStub;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.GetRunRequest;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.WatchRunRequest;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Authentication, roles and tenant isolation, with real Keycloak tokens over gRPC and REST. */
@QuarkusTest
@WithTestResource(KeycloakTestResource.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(RabbitMqTestResource.class)
class BenchAuthTest extends BenchClientTest {

    private static final CreateRunRequest ONE_ATTEMPT =
            CreateRunRequest.newBuilder().addInstanceIds("bench-test-alpha").setAgent("rules").build();

    @Test
    void callsWithoutAValidTokenAreUnauthenticated() {
        assertStatus(Status.Code.UNAUTHENTICATED, () -> clients.anonymous().createRun(ONE_ATTEMPT));
        assertStatus(Status.Code.UNAUTHENTICATED,
                () -> clients.anonymous().getRun(GetRunRequest.newBuilder().setName("runs/anything").build()));
        assertStatus(Status.Code.UNAUTHENTICATED, () -> clients.withBearer("not-a-jwt").createRun(ONE_ATTEMPT));
    }

    @Test
    void aTokenOfTheRealmMadeForAnotherAudienceIsUnauthenticated() {
        // Signed by the tenant's realm, for a real user with the runner role, but made for another app of that realm.
        BenchServiceBlockingStub elsewhere = clients.withBearer(clients.token("healbench-acme", "alice", "healbench-untrusted-app"));
        assertStatus(Status.Code.UNAUTHENTICATED, () -> elsewhere.createRun(ONE_ATTEMPT));
        assertStatus(Status.Code.UNAUTHENTICATED, () -> elsewhere.getRun(GetRunRequest.newBuilder().setName("runs/anything").build()));
        // The control: the same user through the bench's own client is let in.
        assertTrue(clients.as("healbench-acme", "alice").createRun(ONE_ATTEMPT).getName().startsWith("runs/"));
    }

    @Test
    void aWatchEndsWhenItsTokenExpires() {
        Run run = clients.as("healbench-acme", "alice").createRun(ONE_ATTEMPT);
        // healbench-cli-short's tokens live 5 s; nothing runs the attempt here, so only the expiry can end the stream.
        BenchServiceBlockingStub shortLived = clients.withBearer(clients.token("healbench-acme", "alice", "healbench-cli-short"));
        long started = System.nanoTime();
        StatusRuntimeException ended = assertThrows(StatusRuntimeException.class, () -> shortLived.withDeadlineAfter(60, TimeUnit.SECONDS)
                .watchRun(WatchRunRequest.newBuilder().setName(run.getName()).build()).forEachRemaining(update -> { }));
        assertEquals(Status.Code.UNAUTHENTICATED, ended.getStatus().getCode(), ended.toString());
        assertTrue(ended.getStatus().getDescription().contains("expired"), ended.toString());
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertTrue(seconds <= 30, "ended " + seconds + " s after it opened, with a 5 s token");
    }

    @Test
    void aViewerReadsButCannotCreateRuns() {
        BenchServiceBlockingStub victor = clients.as("healbench-acme", "victor");
        assertStatus(Status.Code.PERMISSION_DENIED, () -> victor.createRun(ONE_ATTEMPT));

        Run run = clients.as("healbench-acme", "alice").createRun(ONE_ATTEMPT);
        assertEquals(run.getName(), victor.getRun(GetRunRequest.newBuilder().setName(run.getName()).build()).getName());
    }

    @Test
    void anotherTenantCannotSeeTheRun() throws Exception {
        Run run = clients.as("healbench-acme", "alice").createRun(ONE_ATTEMPT);
        BenchServiceBlockingStub gina = clients.as("healbench-globex", "gina");

        assertStatus(Status.Code.NOT_FOUND, () -> gina.getRun(GetRunRequest.newBuilder().setName(run.getName()).build()));
        assertStatus(Status.Code.NOT_FOUND,
                () -> gina.listAttempts(ListAttemptsRequest.newBuilder().setParent(run.getName()).build()));
        assertStatus(Status.Code.NOT_FOUND,
                () -> gina.watchRun(WatchRunRequest.newBuilder().setName(run.getName()).build()).next());

        String runPath = "/api/v1/runs/" + run.getName().substring("runs/".length());
        HttpResponse<String> asGina = clients.restGet(runPath, clients.token("healbench-globex", "gina"));
        assertEquals(404, asGina.statusCode(), asGina.body());
        assertEquals(401, clients.restGet(runPath, null).statusCode());
        assertEquals(200, clients.restGet(runPath, clients.token("healbench-acme", "victor")).statusCode());
    }

    @Test
    void theRestApiIsDescribedByOpenApi() throws Exception {
        HttpResponse<String> openapi = clients.restGet("/q/openapi?format=json", null);
        assertEquals(200, openapi.statusCode());
        assertTrue(openapi.body().contains("/api/v1/runs/{id}"), openapi.body());
    }

    private static void assertStatus(Status.Code expected, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(expected, e.getStatus().getCode(), e.getStatus().toString());
    }
}
