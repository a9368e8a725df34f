package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.healbench.auth.ServiceTokens;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.GetRunRequest;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.OutcomeClass;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.healbench.testsupport.ServiceProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Nothing is lost when a part dies: a 20-attempt run through the distributed deployment (real PostgreSQL and RabbitMQ,
 * each service its own JVM) while one part is killed with SIGKILL halfway, or the broker is restarted. Every attempt
 * must end, once, with no attempt left queued or running, and no guard decision recorded twice.
 *
 * <p>The deployment has a RabbitMQ virtual host and a PostgreSQL database of its own (the test resources', made for this
 * class), and ports of its own, so that it shares nothing with the other tests' deployments. Each test starts it
 * afresh.
 */
class KillRecoveryIT {

    private static final RabbitMqTestResource BROKER = new RabbitMqTestResource();
    private static final PostgresTestResource DATABASE = new PostgresTestResource();
    private static final int GUARD = 8121;
    private static final int SANDBOX = 8122;
    private static final int AGENT = 8123;
    private static final int BENCH = 8124;
    private static final int ATTEMPTS = 20;
    private static final Duration RUN_LIMIT = Duration.ofMinutes(8);
    private static final byte[] SERVICE_KEY = ServiceTokens.randomKey();

    private static Path root;
    private static List<String> instances;
    /** Where every service finds the deployment's broker and database. */
    private static final Map<String, String> BROKER_AND_DATABASE = new LinkedHashMap<>();

    private final Map<String, ServiceProcess> services = new LinkedHashMap<>();
    private ManagedChannel channel;

    @BeforeAll
    static void isolate() throws Exception {
        root = ProcessRunner.repoRoot();
        // Ten instances twice each: 20 attempts.
        instances = ProcessRunner.firstStdlibInstances(root, ATTEMPTS / 2);
        // The services resolve their Keycloak tenants at start, even when bench-service's own checks are off.
        ProcessRunner.Result keycloak = ProcessRunner.run(List.of("bash", root.resolve("deploy/local/keycloak.sh").toString(), "start"),
                Map.of(), root, 600);
        assertEquals(0, keycloak.exitCode(), "Keycloak did not start:\n" + keycloak.stdout() + keycloak.stderr());
        BROKER_AND_DATABASE.putAll(BROKER.start());
        BROKER_AND_DATABASE.putAll(DATABASE.start());
    }

    @AfterAll
    static void release() {
        DATABASE.stop();
        BROKER.stop();
    }

    @BeforeEach
    void startDeployment() throws Exception {
        // The call graph's order, so each client finds its server, and the agent declares the work queue bench sends to.
        start("guard-service", GUARD);
        start("sandbox-service", SANDBOX);
        start("agent-service", AGENT);
        start("bench-service", BENCH);
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", BENCH).usePlaintext().build();
    }

    @AfterEach
    void stopDeployment() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        List<ServiceProcess> running = new ArrayList<>(services.values());
        for (int i = running.size() - 1; i >= 0; i--) {
            running.get(i).close();
        }
        services.clear();
    }

    @Test
    void aKilledAgentWorkerIsReplacedAndItsAttemptsRunAgainOnce() throws Exception {
        survives(() -> {
            services.get("agent-service").kill();
            start("agent-service", AGENT);
        });
    }

    @Test
    void aKilledSandboxServiceIsReplacedAndEveryAttemptStillEnds() throws Exception {
        survives(() -> {
            services.get("sandbox-service").kill();
            start("sandbox-service", SANDBOX);
        });
    }

    @Test
    void aKilledBenchServiceIsReplacedAndCatchesUpFromTheQueues() throws Exception {
        survives(() -> {
            services.get("bench-service").kill();
            start("bench-service", BENCH);
        });
    }

    @Test
    void aBrokerRestartLosesNothing() throws Exception {
        survives(() -> {
            rabbitmqctl("stop_app");
            Thread.sleep(3_000);
            rabbitmqctl("start_app");
            rabbitmqctl("await_startup");
        });
    }

    private interface Disruption {
        void apply() throws Exception;
    }

    /** Runs 20 attempts, disrupts the deployment once about halfway, and checks the bookkeeping. */
    private void survives(Disruption disruption) throws Exception {
        BenchServiceGrpc.BenchServiceBlockingStub bench = BenchServiceGrpc.newBlockingStub(channel);
        Run created = bench.createRun(CreateRunRequest.newBuilder().addAllInstanceIds(instances).setAgent("rules")
                .setGuardMode(GuardMode.ENFORCE).setRepeats(2).setRequestId(UUID.randomUUID().toString()).build());
        assertEquals(ATTEMPTS, created.getAttemptsTotal());
        GetRunRequest get = GetRunRequest.newBuilder().setName(created.getName()).build();

        long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
        while (bench.getRun(get).getAttemptsDone() < ATTEMPTS / 2 - 2) {
            assertTrue(System.nanoTime() < deadline, "the run did not get halfway: " + bench.getRun(get));
            Thread.sleep(250);
        }
        disruption.apply();

        Run last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = BenchServiceGrpc.newBlockingStub(channel).getRun(get);
                if (last.getState() != Run.State.PENDING && last.getState() != Run.State.RUNNING) {
                    break;
                }
            } catch (StatusRuntimeException unavailable) {
                // bench-service is starting again
            }
            Thread.sleep(500);
        }
        assertTrue(last != null && (last.getState() == Run.State.SUCCEEDED || last.getState() == Run.State.FAILED),
                "the run ended: " + last + "\n" + logs());
        assertEquals(ATTEMPTS, last.getAttemptsDone(), "every attempt ended, each counted once: " + last);

        List<Attempt> attempts = BenchServiceGrpc.newBlockingStub(channel)
                .listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).setPageSize(100).build()).getAttemptsList();
        assertEquals(ATTEMPTS, attempts.size());
        Set<String> slots = new HashSet<>();
        Map<OutcomeClass, Integer> byClass = new EnumMap<>(OutcomeClass.class);
        for (Attempt attempt : attempts) {
            assertTrue(attempt.getState() == Attempt.State.COMPLETED || attempt.getState() == Attempt.State.FAILED,
                    "nothing is left queued or running: " + attempt);
            assertTrue(slots.add(attempt.getInstanceId() + "#" + attempt.getRepeat()), "one attempt per instance and repeat");
            byClass.merge(attempt.getOutcomeClass(), 1, Integer::sum);
        }
        int failed = (int) attempts.stream().filter(a -> a.getState() == Attempt.State.FAILED).count();
        assertEquals(failed, last.getAttemptsFailed(), "the run counts each harness failure once");

        String runId = created.getName().substring("runs/".length());
        try (Connection db = DATABASE.connect()) {
            assertEquals(0, count(db, "select count(*) from (select attempt_id, guard_heal_point, guard_stage from bench_attempt_event "
                    + "where run_id = ? and kind = 'guard_decision' group by 1, 2, 3 having count(*) > 1) twice", runId),
                    "no guard decision is recorded twice");
            assertEquals(0, count(db, "select count(*) from bench_outbox where run_id = ? and publish_time is null", runId),
                    "every attempt message left the outbox");
            int rerun = count(db, "select count(*) from bench_attempt where run_id = ? and deliveries > 1", runId);
            // The figures the issue note reports.
            System.out.printf("KillRecoveryIT %s: %d attempts ended, by class %s, %d failed outside the agent, %d run again%n",
                    Thread.currentThread().getStackTrace()[2].getMethodName(), last.getAttemptsDone(), byClass, failed, rerun);
        }
    }

    private void start(String module, int port) throws Exception {
        Map<String, String> properties = new LinkedHashMap<>(BROKER_AND_DATABASE);
        properties.put("quarkus.grpc.clients.guard.port", Integer.toString(GUARD));
        properties.put("quarkus.grpc.clients.sandbox.port", Integer.toString(SANDBOX));
        properties.put("quarkus.grpc.clients.bench.port", Integer.toString(BENCH));
        // One tenant is enough here: what is under test is the bookkeeping, not who may call.
        properties.put("healbench.bench.auth.enabled", "false");
        // Room for the sessions a killed worker leaves paused until their wall-clock limit.
        properties.put("healbench.sandbox.max-sessions", "8");
        // Short enough that an attempt whose worker died unnoticed ends within the test, long past a real attempt.
        properties.put("healbench.bench.attempt-timeouts.running", "150s");
        properties.put("healbench.bench.outbox.resend-unconfirmed-after", "20s");
        ServiceProcess service = ServiceProcess.start(root, module, port, properties,
                Map.of("HEALBENCH_SERVICE_AUTH_KEY", Base64.getEncoder().encodeToString(SERVICE_KEY)));
        services.put(module, service);
        service.awaitReady(Duration.ofSeconds(180));
    }

    private String logs() throws Exception {
        StringBuilder all = new StringBuilder();
        for (ServiceProcess service : services.values()) {
            all.append("== ").append(service).append('\n').append(service.logTail()).append('\n');
        }
        return all.toString();
    }

    private static int count(Connection db, String sql, String runId) throws Exception {
        try (PreparedStatement query = db.prepareStatement(sql)) {
            query.setString(1, runId);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static void rabbitmqctl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl"));
        command.addAll(List.of(args));
        ProcessRunner.Result result = ProcessRunner.run(command, Map.of(), root, 120);
        assertEquals(0, result.exitCode(), command + ": " + result.stdout() + result.stderr());
    }
}
