package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.healbench.agent.llmstub.LlmStubServer;
import io.healbench.auth.ServiceTokens;
import io.healbench.cli.ExitStatus;
import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import io.healbench.proto.agent.v1.AgentConfig;
import io.healbench.proto.agent.v1.CassetteMode;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.bench.v1.CancelRunRequest;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.DeleteRunRequest;
import io.healbench.proto.bench.v1.GetAttemptTrajectoryRequest;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.ListRunsRequest;
import io.healbench.proto.bench.v1.RegradeRunRequest;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.WatchRunRequest;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.guard.v1.GuardStage;
import io.healbench.proto.outcome.v1.FailureClass;
import io.healbench.testsupport.JavaCommand;
import io.healbench.testsupport.PostgresTestResource;
import io.healbench.testsupport.RabbitMqTestResource;
import io.healbench.testsupport.ServiceProcess;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The distributed deployment: the four services as separate Quarkus apps on the machine's real
 * PostgreSQL and RabbitMQ, authenticated by a real Keycloak. A run created over gRPC with a token
 * must travel bench → RabbitMQ → agent → sandbox (→ guard) → RabbitMQ → bench → PostgreSQL, and
 * be streamed back by WatchRun. The deployment has a database and a RabbitMQ virtual host of its own (the test
 * resources', made for this class).
 */
class DistributedRunIT {

    private static final String KEYCLOAK = "http://127.0.0.1:8180";
    private static final RabbitMqTestResource BROKER = new RabbitMqTestResource();
    private static final PostgresTestResource DATABASE = new PostgresTestResource();
    /** Where every service finds the deployment's broker and database. */
    private static final Map<String, String> BROKER_AND_DATABASE = new HashMap<>();
    private static final List<ServiceProcess> SERVICES = new ArrayList<>();
    /** The deployment's service-token key, as a Kubernetes Secret would give it to every service. */
    private static final byte[] SERVICE_KEY = ServiceTokens.randomKey();
    /** An LLM provider key in every service's environment: it must end up in no row and no log. */
    private static final String LLM_KEY = "sk-healbench-distributed-" + UUID.randomUUID();
    private static ManagedChannel channel;
    /** agent-service's AgentGateway, where external agents connect. */
    private static ManagedChannel gateway;
    /** The scripted provider the toolloop run talks to, through the backbones file bench and agent read. */
    private static LlmStubServer llm;
    /** The collector every service sends its spans to (healbench.otlp.endpoint). */
    private static OtlpTraceReceiver traces;
    /** Two instances the rules agent heals, so each attempt reaches the gate, the static stage and the live process. */
    private static final List<String> HEALED_BY_RULES = List.of("stdlib-colorsys-zerodivisionerror-rgb-to-hls",
            "stdlib-getopt-indexerror-short-has-arg");
    private static final Pattern SAMPLE_LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    @BeforeAll
    static void startDeployment() throws Exception {
        Path root = ProcessRunner.repoRoot();
        ProcessRunner.Result keycloak = ProcessRunner.run(List.of("bash", root.resolve("deploy/local/keycloak.sh").toString(), "start"),
                Map.of(), root, 600);
        assertEquals(0, keycloak.exitCode(), "Keycloak did not start:\n" + keycloak.stdout() + keycloak.stderr());
        BROKER_AND_DATABASE.putAll(BROKER.start());
        BROKER_AND_DATABASE.putAll(DATABASE.start());
        traces = OtlpTraceReceiver.start();
        llm = StubBackbone.serve(root.resolve("scripts/llm-stub/toolloop-heal.yaml"));
        Path backbones = Files.createTempFile("healbench-backbones", ".yaml");
        StubBackbone.write(backbones, "openai", llm.openAiBaseUrl(), "api_key_env: HEALBENCH_IT_LLM_KEY",
                "prices: {input: 1.0, output: 4.0}");
        // Start order follows the call graph so each client finds its server; the agent declares its work queue
        // before bench-service publishes to it.
        start(root, "guard-service", 8101, Map.of());
        start(root, "sandbox-service", 8102, Map.of());
        // A short lease, so that the lease tests see claims lapse within seconds.
        start(root, "agent-service", 8103, Map.of("healbench.agent.backbones-file", backbones.toString(),
                "healbench.agent.gateway.lease", "6s"));
        start(root, "bench-service", 8104, Map.of("healbench.bench.backbones-file", backbones.toString()));
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", 8104).usePlaintext().build();
        gateway = ManagedChannelBuilder.forAddress("127.0.0.1", 8103).usePlaintext().build();
    }

    private static void start(Path root, String module, int port, Map<String, String> properties) throws Exception {
        Map<String, String> traced = new HashMap<>(properties);
        traced.putAll(BROKER_AND_DATABASE);
        traced.put("healbench.otlp.endpoint", traces.endpoint());
        ServiceProcess service = ServiceProcess.start(root, module, port, traced,
                Map.of("HEALBENCH_SERVICE_AUTH_KEY", Base64.getEncoder().encodeToString(SERVICE_KEY),
                        "HEALBENCH_IT_LLM_KEY", LLM_KEY));
        SERVICES.add(service);
        service.awaitReady(Duration.ofSeconds(180));
    }

    @AfterAll
    static void stopDeployment() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (gateway != null) {
            gateway.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        for (int i = SERVICES.size() - 1; i >= 0; i--) {
            SERVICES.get(i).close();
        }
        if (llm != null) {
            llm.close();
        }
        if (traces != null) {
            traces.close();
        }
        DATABASE.stop();
        BROKER.stop();
    }

    @Test
    void runTravelsThroughAllFourServicesAndIsStoredAndStreamed() throws Exception {
        // The catalog must still hold the instances the rules agent heals.
        List<String> ids = HEALED_BY_RULES;
        Set<String> known = InstanceCatalog.load(ProcessRunner.repoRoot().resolve("dataset")).all().stream()
                .map(Instance::id).collect(Collectors.toSet());
        assertTrue(known.containsAll(ids), "the bundled dataset holds " + ids);
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));

        Run created = alice.createRun(CreateRunRequest.newBuilder().addAllInstanceIds(ids).setAgent("rules")
                .setGuardMode(GuardMode.ENFORCE).setRepeats(1).setRequestId(UUID.randomUUID().toString()).build());
        assertEquals(ids.size(), created.getAttemptsTotal());

        List<Run> streamed = new ArrayList<>();
        Iterator<Run> updates = alice.withDeadlineAfter(10, TimeUnit.MINUTES)
                .watchRun(WatchRunRequest.newBuilder().setName(created.getName()).build());
        updates.forEachRemaining(streamed::add);
        Run last = streamed.get(streamed.size() - 1);
        assertEquals(Run.State.SUCCEEDED, last.getState(), "WatchRun ends with the finished run: " + streamed);
        assertEquals(ids.size(), last.getAttemptsDone());
        assertEquals(0, last.getAttemptsFailed(), "no infrastructure failure in a healthy deployment");

        List<Attempt> attempts = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build()).getAttemptsList();
        assertEquals(ids.size(), attempts.size());
        for (Attempt attempt : attempts) {
            assertEquals(Attempt.State.COMPLETED, attempt.getState(), attempt.toString());
            assertTrue(attempt.getSummary().getHealPoints() >= 1, "the BUGGY run crashed and paused: " + attempt);
            assertTrue(attempt.getGuardDecisionsList().stream().anyMatch(d -> d.getStage() == GuardStage.GATE),
                    "guard-service's gate decided on the heal: " + attempt);
        }

        String runId = created.getName().substring("runs/".length());
        try (Connection db = DATABASE.connect()) {
            assertEquals(ids.size(), count(db, "select count(*) from bench_attempt where run_id = ? and state = 'COMPLETED'", runId));
            Set<String> kinds = new HashSet<>();
            try (PreparedStatement query = db.prepareStatement("select distinct kind from bench_attempt_event where run_id = ?")) {
                query.setString(1, runId);
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        kinds.add(rows.getString(1));
                    }
                }
            }
            // started/completed come from agent-service, heal_applied/guard_decision from sandbox-service: both only
            // reach bench-service through RabbitMQ, since each runs in its own process.
            assertTrue(kinds.containsAll(Set.of("started", "completed", "heal_applied", "guard_decision")), kinds.toString());
        }
    }

    /**
     * An LLM agent's run through the whole deployment: toolloop over the scripted provider, its trajectory stored by
     * bench-service and served by GetAttemptTrajectory. The provider key sat in every service's environment; no row
     * of any table and no service's log holds it.
     */
    @Test
    void anLlmRunKeepsItsTrajectoryAndItsKeyIsInNoRowAndNoLog() throws Exception {
        List<String> ids = ProcessRunner.firstStdlibInstances(ProcessRunner.repoRoot(), 2);
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        int served = llm.requestsServed();
        Run created = alice.createRun(CreateRunRequest.newBuilder().addAllInstanceIds(ids).setAgent("toolloop")
                .setAgentConfig(AgentConfig.newBuilder().setBackbone("stub").setCassetteMode(CassetteMode.CASSETTE_OFF))
                .setGuardMode(GuardMode.ENFORCE).setRepeats(1).setRequestId(UUID.randomUUID().toString()).build());
        List<Run> streamed = new ArrayList<>();
        alice.withDeadlineAfter(10, TimeUnit.MINUTES).watchRun(WatchRunRequest.newBuilder().setName(created.getName())
                .build()).forEachRemaining(streamed::add);
        Run last = streamed.get(streamed.size() - 1);
        assertEquals(Run.State.SUCCEEDED, last.getState(), streamed.toString());
        assertTrue(last.getUsage().getLlmCalls() > 0 && last.getUsage().getCostUsd() > 0, last.getUsage().toString());
        assertEquals(last.getUsage().getLlmCalls(), llm.requestsServed() - served, "every call the run counts reached the model");

        for (Attempt attempt : alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build())
                .getAttemptsList()) {
            String trajectory = alice.getAttemptTrajectory(GetAttemptTrajectoryRequest.newBuilder()
                    .setName(attempt.getName()).build()).getJson();
            assertEquals("ATIF-v1.4", new ObjectMapper().readTree(trajectory).path("schema_version").asText(),
                    attempt.getName() + ": " + trajectory.substring(0, Math.min(300, trajectory.length())));
            assertTrue(attempt.getUsage().getLlmCalls() > 0, attempt.toString());
        }

        List<String> leaks = new ArrayList<>();
        try (Connection db = DATABASE.connect()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rows = db.createStatement().executeQuery(
                    "select quote_ident(table_schema) || '.' || quote_ident(table_name) from information_schema.tables"
                            + " where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')")) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
            assertTrue(tables.stream().anyMatch(t -> t.endsWith("bench_trajectory")), "the trajectories' table is searched: " + tables);
            for (String table : tables) {
                // Each row as its whole text form: every column, whatever its type.
                if (count(db, "select count(*) from " + table + " t where strpos(t::text, ?) > 0", LLM_KEY) > 0) {
                    leaks.add(table);
                }
            }
        }
        for (ServiceProcess service : SERVICES) {
            if (service.logContains(LLM_KEY)) {
                leaks.add(service + " log");
            }
        }
        assertTrue(llm.requestBodies().stream().noneMatch(body -> body.contains(LLM_KEY)), "no request body carries the key");
        assertEquals(List.of(), leaks, "the key leaked");
    }

    /**
     * Every service's meters, at /q/metrics without a token, count what a rules run of two instances did: bench-service
     * the run and the ends of its attempts by outcome class, agent-service the attempts it ran, sandbox-service their
     * sessions and timed heals, guard-service the gate's decisions on those heals.
     */
    @Test
    void theServicesMetricsCountWhatARunDid() throws Exception {
        Map<Integer, String> before = metricsOfEachService();
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        Run created = alice.createRun(CreateRunRequest.newBuilder().addAllInstanceIds(HEALED_BY_RULES).setAgent("rules")
                .setGuardMode(GuardMode.ENFORCE).setRepeats(1).setRequestId(UUID.randomUUID().toString()).build());
        Run last = finished(alice, created);
        assertEquals(Run.State.SUCCEEDED, last.getState(), last.toString());

        List<Rise> rises = new ArrayList<>(List.of(
                new Rise(8104, "healbench_runs_created_total", Map.of("agent", "rules"), 1),
                new Rise(8104, "healbench_attempts_ended_total", Map.of("agent", "rules"), HEALED_BY_RULES.size()),
                new Rise(8103, "healbench_agent_attempts_total", Map.of("agent", "rules", "failure_class", "none"),
                        HEALED_BY_RULES.size()),
                new Rise(8102, "healbench_sandbox_sessions_opened_total", Map.of("variant", "buggy"), HEALED_BY_RULES.size()),
                new Rise(8102, "healbench_heal_latency_seconds_count", Map.of(), HEALED_BY_RULES.size()),
                new Rise(8101, "healbench_guard_decisions_total", Map.of("stage", "gate"), HEALED_BY_RULES.size())));
        // Each attempt's end is counted under its own outcome class.
        alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build()).getAttemptsList().stream()
                .collect(Collectors.groupingBy(a -> a.getOutcomeClass().name().toLowerCase(Locale.ROOT), Collectors.counting()))
                .forEach((outcomeClass, attempts) -> rises.add(new Rise(8104, "healbench_attempts_ended_total",
                        Map.of("agent", "rules", "outcome_class", outcomeClass), attempts)));
        // agent-service counts an attempt once the broker confirmed its end, which bench-service may have seen first.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> unmet;
        do {
            Map<Integer, String> after = metricsOfEachService();
            unmet = rises.stream().filter(rise -> !rise.seen(before, after)).map(rise -> rise.describe(before, after)).toList();
        } while (!unmet.isEmpty() && System.nanoTime() < deadline && sleptASecond());
        assertEquals(List.of(), unmet, "counters that did not rise by the run");
        assertTrue(metrics(8104).lines().anyMatch(line -> line.startsWith("healbench_attempts_queued ")),
                "bench-service's gauge of queued attempts");
    }

    /**
     * One attempt is one trace: the agent's span for the attempt starts it, and the spans of that attempt's gRPC calls
     * and RabbitMQ events in sandbox-service, guard-service and bench-service join it, with no other attempt's; the
     * attempt's span links to the trace of the message bench-service queued it with. No service complains of its exports.
     */
    @Test
    void oneAttemptIsOneTraceAcrossTheServices() throws Exception {
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        Run created = alice.createRun(CreateRunRequest.newBuilder().addAllInstanceIds(HEALED_BY_RULES).setAgent("rules")
                .setGuardMode(GuardMode.ENFORCE).setRepeats(1).setRequestId(UUID.randomUUID().toString()).build());
        assertEquals(Run.State.SUCCEEDED, finished(alice, created).getState());
        String attemptName = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build())
                .getAttempts(0).getName();
        String attemptId = attemptName.substring(attemptName.lastIndexOf('/') + 1);

        // Spans leave each service in batches, every few seconds.
        Set<String> expected = Set.of("agent-service", "sandbox-service", "guard-service", "bench-service");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<OtlpTraceReceiver.ReceivedSpan> trace;
        OtlpTraceReceiver.ReceivedSpan attempt;
        do {
            List<OtlpTraceReceiver.ReceivedSpan> spans = traces.spans();
            attempt = spans.stream().filter(span -> span.service().equals("agent-service")
                    && attemptId.equals(span.attributes().get("healbench.attempt.id"))).findFirst().orElse(null);
            String traceId = attempt == null ? "" : attempt.traceId();
            trace = spans.stream().filter(span -> span.traceId().equals(traceId)).toList();
        } while (!trace.stream().map(OtlpTraceReceiver.ReceivedSpan::service).collect(Collectors.toSet()).containsAll(expected)
                && System.nanoTime() < deadline && sleptASecond());
        assertTrue(attempt != null, "agent-service exported the attempt's span: " + traces.spans().size() + " spans in all");
        Set<String> services = trace.stream().map(OtlpTraceReceiver.ReceivedSpan::service).collect(Collectors.toSet());
        assertTrue(services.containsAll(expected), "the attempt's trace reaches every service: " + trace);
        assertEquals(Set.of(attemptId), trace.stream().filter(span -> span.name().equals("attempt"))
                .map(span -> span.attributes().get("healbench.attempt.id")).collect(Collectors.toSet()), "one attempt per trace");

        assertEquals(1, attempt.linkedTraceIds().size(), attempt.toString());
        String queuedIn = attempt.linkedTraceIds().get(0);
        assertTrue(traces.spans().stream().anyMatch(span -> span.traceId().equals(queuedIn) && span.service().equals("bench-service")),
                "the attempt's span links to the trace of bench-service's message");
        for (ServiceProcess service : SERVICES) {
            assertTrue(!service.logContains("Failed to export"), service + " could not export its spans");
        }
    }

    /** bench-service refuses a money limit on an unpriced backbone before it makes the run: no run, no call. */
    @Test
    void aCostLimitOnAnUnpricedBackboneIsRefusedBeforeTheRunIsMade() throws Exception {
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        int served = llm.requestsServed();
        long runsBefore = runRows();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> alice.createRun(CreateRunRequest.newBuilder()
                .addInstanceIds(ProcessRunner.firstStdlibInstances(ProcessRunner.repoRoot(), 1).get(0)).setAgent("toolloop")
                .setAgentConfig(AgentConfig.newBuilder().setBackbone("openai:stub-model@" + llm.openAiBaseUrl())
                        .setLimits(io.healbench.proto.agent.v1.Limits.newBuilder().setCostUsdPerAttempt(0.5)))
                .setGuardMode(GuardMode.ENFORCE).setRepeats(1).setRequestId(UUID.randomUUID().toString()).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.getStatus().toString());
        assertEquals("UNPRICED_BACKBONE", new Ended(e.getStatus(), e.getTrailers()).reason());
        assertEquals(runsBefore, runRows(), "no run was made");
        assertEquals(served, llm.requestsServed(), "no model call was made");
    }

    private static long runRows() throws Exception {
        try (Connection db = DATABASE.connect()) {
            return count(db, "select count(*) from bench_run");
        }
    }

    @Test
    void callsWithoutATokenAreRefused() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> BenchServiceGrpc.newBlockingStub(channel)
                .createRun(CreateRunRequest.newBuilder().setAgent("rules").setGuardMode(GuardMode.ENFORCE).setRepeats(1).build()));
        assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
    }

    @Test
    void sandboxGuardAndTheClaimsLedgerRefuseCallsWithoutAValidServiceToken() throws Exception {
        ServiceTokens ours = new ServiceTokens(SERVICE_KEY, Clock.systemUTC());
        ServiceTokens stranger = new ServiceTokens(ServiceTokens.randomKey(), Clock.systemUTC());
        Map<Integer, String> services = Map.of(8102, "healbench.sandbox.v1.SandboxService", 8101, "healbench.guard.v1.GuardService",
                8104, "healbench.bench.v1.AttemptClaimsService");
        for (Map.Entry<Integer, String> service : services.entrySet()) {
            ManagedChannel direct = ManagedChannelBuilder.forAddress("127.0.0.1", service.getKey()).usePlaintext().build();
            try {
                String other = service.getValue().equals("healbench.guard.v1.GuardService") ? "healbench.sandbox.v1.SandboxService"
                        : "healbench.guard.v1.GuardService";
                Map<String, String> refusals = new java.util.LinkedHashMap<>();
                refusals.put("SERVICE_TOKEN_REQUIRED", null);
                refusals.put("SERVICE_TOKEN_INVALID", stranger.mint("intruder", service.getValue()));
                refusals.put("SERVICE_TOKEN_AUDIENCE", ours.mint("agent-service", other));
                for (Map.Entry<String, String> attempt : refusals.entrySet()) {
                    Ended refused = anyCall(direct, service.getValue(), attempt.getValue());
                    assertEquals(Status.Code.UNAUTHENTICATED, refused.status().getCode(), service.getValue() + ": " + refused.status());
                    assertEquals(attempt.getKey(), refused.reason(), service.getValue() + ": " + refused.status());
                }
                // The control: a token of the deployment's for this service gets past the check, to the method's own answer.
                Ended answered = anyCall(direct, service.getValue(), ours.mint("agent-service", service.getValue()));
                assertTrue(answered.status().getCode() != Status.Code.UNAUTHENTICATED, service.getValue() + ": " + answered.status());
            } finally {
                direct.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    /** How a call ended, with the trailers that carry its error's details. */
    private record Ended(Status status, Metadata trailers) {
        String reason() throws Exception {
            com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromStatusAndTrailers(status, trailers);
            for (com.google.protobuf.Any detail : details.getDetailsList()) {
                if (detail.is(com.google.rpc.ErrorInfo.class)) {
                    return detail.unpack(com.google.rpc.ErrorInfo.class).getReason();
                }
            }
            return "";
        }
    }

    /** One call of the service with an empty request: how it ended (OK, the method's own error, or the token check's). */
    private static Ended anyCall(ManagedChannel channel, String service, String token) throws Exception {
        Metadata headers = new Metadata();
        if (token != null) {
            headers.put(Metadata.Key.of("x-healbench-service-token", Metadata.ASCII_STRING_MARSHALLER), token);
        }
        io.grpc.Channel authed = io.grpc.ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        try {
            switch (service) {
                case "healbench.sandbox.v1.SandboxService" -> io.healbench.proto.sandbox.v1.SandboxServiceGrpc.newBlockingStub(authed)
                        .withDeadlineAfter(30, TimeUnit.SECONDS).closeSession(io.healbench.proto.sandbox.v1.CloseSessionRequest.newBuilder()
                                .setName("sessions/none").build());
                case "healbench.guard.v1.GuardService" -> io.healbench.proto.guard.v1.GuardServiceGrpc.newBlockingStub(authed)
                        .withDeadlineAfter(30, TimeUnit.SECONDS).checkHealCode(io.healbench.proto.guard.v1.CheckHealCodeRequest.getDefaultInstance());
                default -> io.healbench.proto.bench.v1.AttemptClaimsServiceGrpc.newBlockingStub(authed)
                        .withDeadlineAfter(30, TimeUnit.SECONDS).renewClaim(io.healbench.proto.bench.v1.RenewClaimRequest.newBuilder()
                                .setTenant("acme").setAttemptId("none").setClaimId("none").build());
            }
            return new Ended(Status.OK, new Metadata());
        } catch (StatusRuntimeException e) {
            return new Ended(e.getStatus(), e.getTrailers());
        }
    }


    @Test
    void anotherTenantCannotSeeTheRun() throws Exception {
        List<Instance> instances = InstanceCatalog.load(ProcessRunner.repoRoot().resolve("dataset")).all();
        Run created = stub(token("healbench-acme", "alice")).createRun(CreateRunRequest.newBuilder()
                .addInstanceIds(instances.get(0).id()).setAgent("rules").setGuardMode(GuardMode.ENFORCE).setRepeats(1)
                .setRequestId(UUID.randomUUID().toString()).build());
        BenchServiceGrpc.BenchServiceBlockingStub gina = stub(token("healbench-globex", "gina"));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> gina
                .getRun(io.healbench.proto.bench.v1.GetRunRequest.newBuilder().setName(created.getName()).build()));
        assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
        // Nor list it, nor touch it: each call answers as if the run did not exist.
        assertTrue(gina.listRuns(ListRunsRequest.newBuilder().setPageSize(1000).build()).getRunsList().stream()
                .noneMatch(run -> run.getName().equals(created.getName())), "globex's list holds no acme run");
        List<Runnable> touches = List.of(
                () -> gina.cancelRun(CancelRunRequest.newBuilder().setName(created.getName()).build()),
                () -> gina.deleteRun(DeleteRunRequest.newBuilder().setName(created.getName()).build()),
                () -> gina.regradeRun(RegradeRunRequest.newBuilder().setName(created.getName()).build()));
        for (Runnable touch : touches) {
            assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class, touch::run).getStatus().getCode());
        }

        // The runs command against the server: alice sees her run, gina cannot delete it.
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        finished(alice, created);
        String runId = created.getName().substring("runs/".length());
        ProcessRunner.Result listed = runsCommand(token("healbench-acme", "alice"), "list", "--json");
        assertEquals(ExitStatus.COMPLETED, listed.exitCode(), listed.stderr());
        assertTrue(listed.stdout().contains(runId), listed.stdout());
        ProcessRunner.Result refused = runsCommand(token("healbench-globex", "gina"), "delete", runId);
        assertEquals(ExitStatus.USAGE, refused.exitCode(), refused.stdout() + refused.stderr());
        assertTrue(refused.stderr().contains("no run matches"), refused.stderr());
        ProcessRunner.Result regraded = runsCommand(token("healbench-acme", "alice"), "regrade", runId, "--json");
        assertEquals(ExitStatus.COMPLETED, regraded.exitCode(), regraded.stderr());
        assertEquals(0, new ObjectMapper().readTree(regraded.stdoutLines().get(regraded.stdoutLines().size() - 1))
                .get("attempts_changed").asInt(), regraded.stdout());
    }

    /**
     * {@code healbench runs ARGS} against this deployment's bench-service, as a user of the server would run it: with the
     * thin client (cli.jar), which carries none of the services.
     */
    private static ProcessRunner.Result runsCommand(String token, String... args) throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> arguments = new ArrayList<>(List.of("runs", "--server", "127.0.0.1:8104", "--token", token));
        arguments.addAll(List.of(args));
        return ProcessRunner.run(JavaCommand.forJar(root.resolve("cli/target/cli.jar"), List.of(), arguments),
                Map.of("HEALBENCH_HOME", root.toString()), root, 300);
    }

    /**
     * External agents heal through the API: a run made for `external` waits; our Python reference client, with an
     * agent's token of the tenant, claims its attempts one by one over AgentGateway and heals them; the run completes
     * with the attempts graded as any other's, their actions counted and their trajectories kept.
     */
    @Test
    void thePythonGrpcClientHealsAnExternalRunThroughTheGateway() throws Exception {
        List<String> ids = ProcessRunner.firstStdlibInstances(ProcessRunner.repoRoot(), 4);
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        Run created = externalRun(alice, ids);
        ProcessRunner.Result client = ProcessRunner.run(List.of(ProcessRunner.clientPython(), "-m", "healbench_client", "grpc",
                        "--endpoint", "127.0.0.1:8103", "--token", agentToken("healbench-acme", "otto"),
                        "--run", created.getName(), "--json"),
                ProcessRunner.clientEnvironment(), ProcessRunner.repoRoot(), 900);
        assertEquals(0, client.exitCode(), "the client failed:\n" + client.stdout() + client.stderr());

        Run last = finished(alice, created);
        assertEquals(Run.State.SUCCEEDED, last.getState(), last.toString());
        assertEquals(ids.size(), last.getAttemptsDone());
        assertEquals(0, last.getAttemptsFailed(), last.toString());
        List<Attempt> attempts = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build())
                .getAttemptsList();
        long healed = attempts.stream().filter(a -> a.getSummary().getHealsApplied() > 0).count();
        assertTrue(healed >= 3, "the client healed at least 3 of " + ids.size() + ": " + client.stdout() + attempts);
        for (Attempt attempt : attempts) {
            assertTrue(attempt.getUsage().getHeals() + attempt.getUsage().getReraises() >= 1, attempt.toString());
            String trajectory = alice.getAttemptTrajectory(GetAttemptTrajectoryRequest.newBuilder().setName(attempt.getName())
                    .build()).getJson();
            assertTrue(trajectory.contains("\"function_name\" : \"heal\"") || trajectory.contains("\"function_name\" : \"reraise\""),
                    "the trajectory holds the actions the server saw: " + trajectory);
        }
    }

    /** Another tenant's agent can neither claim the attempts nor tell them from none; tokens not for agents open nothing. */
    @Test
    void anotherTenantsAgentCannotClaimOrSeeTheAttempts() throws Exception {
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        Run created = externalRun(alice, ProcessRunner.firstStdlibInstances(ProcessRunner.repoRoot(), 1));
        String attempt = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build())
                .getAttempts(0).getName();
        try (GatewayTestClient olga = new GatewayTestClient(gateway, agentToken("healbench-globex", "olga"))) {
            assertEquals("ATTEMPT_NOT_FOUND", GatewayTestClient.reason(olga.claim(created.getName())));
            assertEquals("ATTEMPT_NOT_FOUND", GatewayTestClient.reason(olga.claim(attempt)));
            // Not claimed by this stream, the attempt cannot be acted on either.
            assertEquals("NOT_CLAIMED", GatewayTestClient.reason(olga.call(io.healbench.proto.agent.v1.ConnectRequest.newBuilder()
                    .setGetCrash(io.healbench.proto.agent.v1.GetCrashRequest.getDefaultInstance()))));
        }
        for (String notAnAgent : new String[] {null, token("healbench-acme", "alice"), "not-a-token"}) {
            try (GatewayTestClient stranger = new GatewayTestClient(gateway, notAnAgent)) {
                StatusRuntimeException refused = assertThrows(StatusRuntimeException.class, () -> stranger.claim(created.getName()));
                assertEquals(Status.Code.UNAUTHENTICATED, refused.getStatus().getCode(), refused.toString());
            }
        }
        // The control: the tenant's own agent claims it, and reraises it to its end.
        try (GatewayTestClient otto = new GatewayTestClient(gateway, agentToken("healbench-acme", "otto"))) {
            io.healbench.proto.agent.v1.ConnectResponse claimed = otto.claim(created.getName());
            assertEquals(attempt, claimed.getClaim().getAttempt(), claimed.toString());
            reraiseToTheEnd(otto, claimed.getClaim().getStep());
        }
        assertEquals(Run.State.SUCCEEDED, finished(alice, created).getState());
    }

    /**
     * dm_env_rpc's discipline: every request gets one response echoing its id, in order; a mistake is that request's
     * error and the stream goes on. The agent's own usage report is kept, flagged as self-reported.
     */
    @Test
    void badRequestsGetPerMessageErrorsWhileTheStreamStaysOpen() throws Exception {
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        Run created = externalRun(alice, ProcessRunner.firstStdlibInstances(ProcessRunner.repoRoot(), 1));
        try (GatewayTestClient otto = new GatewayTestClient(gateway, agentToken("healbench-acme", "otto"))) {
            var request = io.healbench.proto.agent.v1.ConnectRequest.newBuilder();
            assertEquals("NOT_CLAIMED", GatewayTestClient.reason(otto.call(request.clone()
                    .setGetCrash(io.healbench.proto.agent.v1.GetCrashRequest.getDefaultInstance()))));
            assertEquals("ARGUMENT_INVALID", GatewayTestClient.reason(otto.call(request.clone())));
            io.healbench.proto.agent.v1.ConnectResponse claimed = otto.claim(created.getName());
            assertTrue(claimed.getClaim().getStep().hasCrash(), claimed.toString());
            assertEquals(6, claimed.getClaim().getLeaseSeconds());
            assertTrue(claimed.getBudget().getWallMsLeft() > 0, claimed.toString());
            assertEquals("ALREADY_CLAIMED", GatewayTestClient.reason(otto.claim(created.getName())));
            assertEquals("ARGUMENT_INVALID", GatewayTestClient.reason(otto.call(request.clone()
                    .setHeal(io.healbench.proto.agent.v1.HealRequest.newBuilder().setCode("pass")))));
            io.healbench.proto.agent.v1.ConnectResponse probe = otto.call(request.clone()
                    .setProbe(io.healbench.proto.agent.v1.ProbeRequest.newBuilder().setCode("6 * 7")));
            assertEquals("42", probe.getProbe().getValueRepr(), probe.toString());
            assertEquals("TOOL_REFUSED", GatewayTestClient.reason(otto.call(request.clone()
                    .setReadFile(io.healbench.proto.agent.v1.ReadFileRequest.newBuilder().setPath("../../../../../etc/passwd")))));
            assertEquals("HEAL_REJECTED", GatewayTestClient.reason(otto.call(request.clone()
                    .setHeal(io.healbench.proto.agent.v1.HealRequest.newBuilder().setCode("import subprocess")
                            .setResume(io.healbench.proto.agent.v1.Resume.RESUME_SKIP)))));
            io.healbench.proto.agent.v1.ConnectResponse reported = otto.call(request.clone()
                    .setReportUsage(io.healbench.proto.agent.v1.ReportUsageRequest.newBuilder().setLlmCalls(2)
                            .setInputTokens(1500).setOutputTokens(120).setCostUsd(0.012).setModel("their-model")));
            assertTrue(reported.hasReportUsage() && !reported.hasError(), reported.toString());
            reraiseToTheEnd(otto, claimed.getClaim().getStep());
        }
        finished(alice, created);
        Attempt attempt = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build()).getAttempts(0);
        assertTrue(attempt.getUsage().getSelfReported(), attempt.toString());
        assertEquals(2, attempt.getUsage().getLlmCalls());
        assertEquals(1, attempt.getSummary().getHealsRejected(), "the refused heal was counted: " + attempt);
        String trajectory = alice.getAttemptTrajectory(GetAttemptTrajectoryRequest.newBuilder().setName(attempt.getName())
                .build()).getJson();
        assertTrue(trajectory.contains("their-model") && trajectory.contains("\"self_reported\" : true"), trajectory);
    }

    /**
     * The lease rule: an agent that goes away before it heals or reraises gives the attempt back to the queue, where
     * another stream claims it afresh; one that goes away after it acted fails the attempt as its own failure. Either
     * way the attempt is counted once.
     */
    @Test
    void aClientThatDisconnectsLosesNothingAndIsCountedOnce() throws Exception {
        BenchServiceGrpc.BenchServiceBlockingStub alice = stub(token("healbench-acme", "alice"));
        Run created = externalRun(alice, ProcessRunner.firstStdlibInstances(ProcessRunner.repoRoot(), 1));
        String otto = agentToken("healbench-acme", "otto");
        GatewayTestClient first = new GatewayTestClient(gateway, otto);
        String attempt = first.claim(created.getName()).getClaim().getAttempt();
        first.cancel();
        assertEquals(Attempt.State.QUEUED, awaitState(alice, created, Attempt.State.QUEUED, Duration.ofSeconds(60)),
                "after the lease the untouched attempt is queued again");

        GatewayTestClient second = new GatewayTestClient(gateway, otto);
        io.healbench.proto.agent.v1.ConnectResponse again = second.claim(attempt);
        assertEquals(attempt, again.getClaim().getAttempt(), again.toString());
        assertTrue(again.getClaim().getStep().hasCrash(), "the attempt starts afresh: " + again);
        // A heal submitted (and refused: subprocess is not in HealCore's allowlist) is an action on the program; the
        // crash stays paused, and the agent leaves.
        io.healbench.proto.agent.v1.ConnectResponse refused = second.call(io.healbench.proto.agent.v1.ConnectRequest.newBuilder()
                .setHeal(io.healbench.proto.agent.v1.HealRequest.newBuilder().setCode("import subprocess")
                        .setResume(io.healbench.proto.agent.v1.Resume.RESUME_SKIP)));
        assertEquals("HEAL_REJECTED", GatewayTestClient.reason(refused), refused.toString());
        second.cancel();

        Run last = finished(alice, created);
        assertEquals(1, last.getAttemptsDone(), "counted once: " + last);
        Attempt ended = alice.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build()).getAttempts(0);
        assertEquals(FailureClass.AGENT, ended.getFailureClass(), ended.toString());
        assertTrue(ended.getDetail().contains("lapsed"), ended.toString());
    }

    private static Run externalRun(BenchServiceGrpc.BenchServiceBlockingStub runner, List<String> ids) {
        return runner.createRun(CreateRunRequest.newBuilder().addAllInstanceIds(ids).setAgent("external")
                .setGuardMode(GuardMode.ENFORCE).setRepeats(1).setRequestId(UUID.randomUUID().toString()).build());
    }

    /** Reraises every crash from {@code step} on, until the program ends and the server closes the stream. */
    private static void reraiseToTheEnd(GatewayTestClient client, io.healbench.proto.agent.v1.Step step) throws Exception {
        while (step.hasCrash()) {
            io.healbench.proto.agent.v1.ConnectResponse next = client.call(io.healbench.proto.agent.v1.ConnectRequest.newBuilder()
                    .setReraise(io.healbench.proto.agent.v1.ReraiseRequest.newBuilder().setReason("test")));
            assertTrue(next.hasReraise(), next.toString());
            step = next.getReraise().getStep();
        }
        assertTrue(client.endedWithin(30), "the stream ends with the attempt");
    }

    private static Run finished(BenchServiceGrpc.BenchServiceBlockingStub runner, Run created) {
        List<Run> streamed = new ArrayList<>();
        runner.withDeadlineAfter(10, TimeUnit.MINUTES).watchRun(WatchRunRequest.newBuilder().setName(created.getName()).build())
                .forEachRemaining(streamed::add);
        return streamed.get(streamed.size() - 1);
    }

    private static Attempt.State awaitState(BenchServiceGrpc.BenchServiceBlockingStub runner, Run created, Attempt.State wanted,
            Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        Attempt.State state;
        do {
            Thread.sleep(1000);
            state = runner.listAttempts(ListAttemptsRequest.newBuilder().setParent(created.getName()).build()).getAttempts(0).getState();
        } while (state != wanted && System.nanoTime() < deadline);
        return state;
    }

    private static BenchServiceGrpc.BenchServiceBlockingStub stub(String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return BenchServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    private static String token(String realm, String user) throws Exception {
        return token(realm, user, "healbench-cli");
    }

    /** A token for the agent API (client healbench-agent, audience healbench-agent). */
    private static String agentToken(String realm, String user) throws Exception {
        return token(realm, user, "healbench-agent");
    }

    private static String token(String realm, String user, String client) throws Exception {
        String form = "grant_type=password&client_id=" + client + "&username=" + user + "&password="
                + URLEncoder.encode(user + "-test-pw", StandardCharsets.UTF_8);
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(KEYCLOAK + "/realms/" + realm + "/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return new ObjectMapper().readTree(response.body()).get("access_token").asText();
    }

    /** A counter's or timer's rise by at least {@code atLeast} over the samples whose labels include {@code labels}. */
    private record Rise(int port, String metric, Map<String, String> labels, double atLeast) {
        boolean seen(Map<Integer, String> before, Map<Integer, String> after) {
            return rise(before, after) >= atLeast;
        }

        double rise(Map<Integer, String> before, Map<Integer, String> after) {
            return sampleSum(after.get(port), metric, labels) - sampleSum(before.get(port), metric, labels);
        }

        String describe(Map<Integer, String> before, Map<Integer, String> after) {
            return port + " " + metric + labels + " rose by " + rise(before, after) + ", not " + atLeast;
        }
    }

    /** Each service's Prometheus exposition, by port. */
    private static Map<Integer, String> metricsOfEachService() throws Exception {
        Map<Integer, String> all = new HashMap<>();
        for (int port : new int[] {8101, 8102, 8103, 8104}) {
            all.put(port, metrics(port));
        }
        return all;
    }

    /** GET /q/metrics as an anonymous scraper: it needs no token. */
    private static String metrics(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/q/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), port + ": " + response.body());
        return response.body();
    }

    /**
     * The sum of a metric's samples whose labels include {@code labels}, in Prometheus's text format. A sample's value is
     * the first field after its name and labels; an exemplar (the span it was counted in) may follow it.
     */
    private static double sampleSum(String exposition, String metric, Map<String, String> labels) {
        double sum = 0;
        for (String line : exposition.split("\n")) {
            if (!line.startsWith(metric + "{") && !line.startsWith(metric + " ")) {
                continue;
            }
            int valueAt = metric.length();
            Map<String, String> sampleLabels = new HashMap<>();
            if (line.charAt(valueAt) == '{') {
                int close = line.indexOf("} ", valueAt);
                Matcher label = SAMPLE_LABEL.matcher(line.substring(valueAt + 1, close));
                while (label.find()) {
                    sampleLabels.put(label.group(1), label.group(2));
                }
                valueAt = close + 1;
            }
            if (sampleLabels.entrySet().containsAll(labels.entrySet())) {
                sum += Double.parseDouble(line.substring(valueAt).trim().split(" ")[0]);
            }
        }
        return sum;
    }

    private static boolean sleptASecond() throws InterruptedException {
        Thread.sleep(1000);
        return true;
    }

    private static long count(Connection db, String sql, String... parameters) throws Exception {
        try (PreparedStatement query = db.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                query.setString(i + 1, parameters[i]);
            }
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
