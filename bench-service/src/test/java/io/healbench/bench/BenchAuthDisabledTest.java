package io.healbench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.GetRunRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The standalone CLI's setting: no Keycloak, every caller is tenant "local" with every role. */
@QuarkusTest
@TestProfile(BenchAuthDisabledTest.AuthDisabled.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(RabbitMqTestResource.class)
class BenchAuthDisabledTest {

    public static class AuthDisabled implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // No Keycloak either: the OIDC tenants are switched off with the auth switch.
            return Map.of("healbench.bench.auth.enabled", "false",
                    "quarkus.oidc.acme.tenant-enabled", "false",
                    "quarkus.oidc.globex.tenant-enabled", "false");
        }
    }

    @Test
    void anAnonymousCallerRunsAndReadsAsTenantLocal() throws Exception {
        try (BenchTestClients clients = new BenchTestClients()) {
            Run run = clients.anonymous().createRun(CreateRunRequest.newBuilder()
                    .addInstanceIds("bench-test-alpha").setAgent("rules").build());
            assertEquals(run, clients.anonymous().getRun(GetRunRequest.newBuilder().setName(run.getName()).build()));
            String id = run.getName().substring("runs/".length());
            assertEquals(200, clients.restGet("/api/v1/runs/" + id, null).statusCode());
        }
    }
}
