package io.healbench.bench.service;

import io.healbench.bench.messaging.BenchAttemptPublisher;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptEvent;
import io.healbench.bench.repository.BenchAttemptEventRepository;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchRunRepository;
import io.healbench.bench.repository.BenchTrajectoryRepository;
import io.healbench.common.dataset.Instance;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/** Creates runs and reads them back, always within the caller's tenant. */
@ApplicationScoped
public class BenchRunService {

    private static final Logger LOG = Logger.getLogger(BenchRunService.class);

    static final int DEFAULT_PAGE_SIZE = 100;
    static final int MAX_PAGE_SIZE = 1000;

    private final BenchRunRepository runs;
    private final BenchAttemptRepository attempts;
    private final BenchAttemptEventRepository events;
    private final BenchInstanceSource instances;
    private final BenchRunManifest manifests;
    private final BenchAttemptPublisher publisher;
    private final BenchEventIngestor ingestor;
    private final BenchContexts contexts;
    private final BenchBackbones backbones;
    private final BenchTrajectoryRepository trajectories;

    public BenchRunService(BenchRunRepository runs, BenchAttemptRepository attempts, BenchAttemptEventRepository events,
            BenchInstanceSource instances, BenchRunManifest manifests, BenchAttemptPublisher publisher, BenchEventIngestor ingestor,
            BenchContexts contexts, BenchBackbones backbones, BenchTrajectoryRepository trajectories) {
        this.runs = runs;
        this.attempts = attempts;
        this.events = events;
        this.instances = instances;
        this.manifests = manifests;
        this.publisher = publisher;
        this.ingestor = ingestor;
        this.contexts = contexts;
        this.backbones = backbones;
        this.trajectories = trajectories;
    }

    /**
     * Persists the run with one QUEUED attempt per (instance, repeat), then queues one work item per
     * attempt and returns without waiting for the queue (in standalone mode its confirms are the attempts'
     * ends). A request id seen before in the tenant returns that run instead.
     */
    public Uni<BenchRun> createRun(BenchCaller caller, BenchRunSpec request) {
        BenchRunSpec spec = request.normalized();
        backbones.check(spec.agentConfig());
        Uni<BenchRun> earlier = spec.requestId() == null
                ? Uni.createFrom().nullItem()
                : Panache.withSession(() -> runs.findByRequestId(caller.tenant(), spec.requestId()));
        return earlier.chain(run -> run != null
                ? Uni.createFrom().item(run)
                : instances.resolve(spec.instanceIds()).chain(selected -> persistAndQueue(caller, spec, selected)));
    }

    private Uni<BenchRun> persistAndQueue(BenchCaller caller, BenchRunSpec spec, List<Instance> selected) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        BenchRun run = new BenchRun();
        run.id = UUID.randomUUID().toString();
        run.tenant = caller.tenant();
        run.state = BenchRun.State.PENDING;
        run.agent = spec.agent();
        run.guardMode = spec.guardMode();
        run.agentConfig = spec.agentConfig().json();
        run.repeats = spec.repeats();
        run.requestId = spec.requestId();
        run.instanceIds = selected.stream().map(Instance::id).collect(Collectors.joining("\n"));
        run.manifest = manifests.write(spec, selected);
        run.attemptsTotal = selected.size() * spec.repeats();
        run.createTime = now;
        run.updateTime = now;
        List<BenchAttempt> queued = new ArrayList<>();
        for (Instance instance : selected) {
            for (int repeat = 0; repeat < spec.repeats(); repeat++) {
                BenchAttempt attempt = new BenchAttempt();
                attempt.id = UUID.randomUUID().toString();
                attempt.runId = run.id;
                attempt.tenant = run.tenant;
                attempt.instanceId = instance.id();
                attempt.repeatIndex = repeat;
                attempt.state = BenchAttempt.State.QUEUED;
                attempt.createTime = now;
                queued.add(attempt);
            }
        }
        return Panache.withTransaction(() -> runs.persist(run).chain(() -> attempts.persist(queued)))
                // An external run's attempts wait here for agents to claim them through the gateway (BenchClaims).
                .invoke(() -> {
                    if (!BenchClaims.external(run.agent)) {
                        publisher.publish(run, queued, this::notQueued);
                    }
                })
                .replaceWith(run);
    }

    /** An attempt the queue refused ends as an infrastructure failure, so the run still ends and counts it once. */
    private void notQueued(BenchAttempt attempt, Throwable failure) {
        LOG.errorf("attempt %s of run %s could not be queued: %s", attempt.id, attempt.runId, failure.toString());
        String detail = "the attempt could not be queued: " + failure;
        BenchIncomingEvent event = BenchIncomingEvent.infrastructureFailure(attempt.tenant, attempt.runId, attempt.id, detail);
        contexts.onFreshContext(() -> ingestor.ingest(event)).subscribe().with(done -> { },
                error -> LOG.errorf("could not record that attempt %s was not queued: %s", attempt.id, error.toString()));
    }

    /** An attempt's trajectory, within the caller's tenant; NOT_FOUND when there is none (or no such attempt). */
    public Uni<String> trajectory(BenchCaller caller, String runId, String attemptId) {
        return Panache.withSession(() -> trajectories.findInTenant(caller.tenant(), attemptId))
                .map(kept -> kept == null || !kept.runId.equals(runId) ? null : kept.json)
                .onItem().ifNull().failWith(() -> new BenchException(BenchException.Kind.NOT_FOUND, "TRAJECTORY_NOT_FOUND",
                        "attempt runs/" + runId + "/attempts/" + attemptId + " has no trajectory"));
    }

    public Uni<BenchRun> getRun(BenchCaller caller, String runId) {
        return Panache.withSession(() -> runs.findInTenant(caller.tenant(), runId))
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId));
    }

    /** One page of a run's attempts with their guard decisions; the page token is an opaque offset. */
    public Uni<BenchAttemptPage> listAttempts(BenchCaller caller, String runId, int pageSize, String pageToken) {
        int size = pageSize <= 0 ? DEFAULT_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE);
        int offset = parsePageToken(pageToken);
        return Panache.withSession(() -> runs.findInTenant(caller.tenant(), runId)
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId))
                .chain(run -> attempts.pageOfRun(caller.tenant(), runId, offset, size + 1))
                .chain(page -> {
                    List<BenchAttempt> shown = page.size() > size ? page.subList(0, size) : page;
                    String next = page.size() > size ? Integer.toString(offset + size) : "";
                    List<String> ids = shown.stream().map(a -> a.id).toList();
                    return events.ofKind(caller.tenant(), ids, BenchIncomingEvent.Kind.GUARD_DECISION.wireName())
                            .map(decisions -> new BenchAttemptPage(withDecisions(shown, decisions), next));
                }));
    }

    private static List<BenchAttemptPage.Entry> withDecisions(List<BenchAttempt> shown, List<BenchAttemptEvent> decisions) {
        Map<String, List<BenchIncomingEvent.GuardDecision>> byAttempt = new LinkedHashMap<>();
        for (BenchAttemptEvent decision : decisions) {
            byAttempt.computeIfAbsent(decision.attemptId, id -> new ArrayList<>()).add(new BenchIncomingEvent.GuardDecision(
                    decision.guardHealPoint == null ? 0 : decision.guardHealPoint,
                    decision.guardStage, decision.guardVerdict, decision.guardReason));
        }
        return shown.stream()
                .map(a -> new BenchAttemptPage.Entry(a, byAttempt.getOrDefault(a.id, List.of())))
                .toList();
    }

    private static int parsePageToken(String token) {
        if (token == null || token.isEmpty()) {
            return 0;
        }
        try {
            int offset = Integer.parseInt(token);
            if (offset >= 0) {
                return offset;
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        throw BenchException.invalidArgument("BAD_PAGE_TOKEN", "page_token '" + token + "' was not issued by this service");
    }
}
