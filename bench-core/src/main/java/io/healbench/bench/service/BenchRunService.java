package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptEvent;
import io.healbench.bench.repository.BenchAttemptEventRepository;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.healbench.bench.repository.BenchOutboxRepository;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchRunRepository;
import io.healbench.bench.repository.BenchTrajectoryRepository;
import io.healbench.common.dataset.Instance;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.common.paging.OpaquePageToken;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/** Creates runs and reads them back, always within the caller's tenant. */
@ApplicationScoped
public class BenchRunService {

    static final int DEFAULT_PAGE_SIZE = 100;
    static final int MAX_PAGE_SIZE = 1000;

    /** The first part of each listing's page tokens, so one listing's token is refused by another. */
    private static final String ATTEMPTS_PAGE = "attempts";
    private static final String RUNS_PAGE = "runs";
    private static final String EVENTS_PAGE = "events";

    private final BenchRunRepository runs;
    private final BenchAttemptRepository attempts;
    private final BenchAttemptEventRepository events;
    private final BenchInstanceSource instances;
    private final BenchRunManifest manifests;
    private final BenchOutbox outbox;
    private final BenchOutboxRepository outboxEntries;
    private final BenchBackbones backbones;
    private final BenchTrajectoryRepository trajectories;
    private final BenchStoredEvents storedEvents;
    private final BenchRunNotifier notifier;
    private final BenchMetrics metrics;

    public BenchRunService(BenchRunRepository runs, BenchAttemptRepository attempts, BenchAttemptEventRepository events,
            BenchInstanceSource instances, BenchRunManifest manifests, BenchOutbox outbox, BenchOutboxRepository outboxEntries,
            BenchBackbones backbones, BenchTrajectoryRepository trajectories, BenchStoredEvents storedEvents,
            BenchRunNotifier notifier, BenchMetrics metrics) {
        this.runs = runs;
        this.attempts = attempts;
        this.events = events;
        this.instances = instances;
        this.manifests = manifests;
        this.outbox = outbox;
        this.outboxEntries = outboxEntries;
        this.backbones = backbones;
        this.trajectories = trajectories;
        this.storedEvents = storedEvents;
        this.notifier = notifier;
        this.metrics = metrics;
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
        run.seed = spec.seed();
        run.agentPool = spec.agentPool();
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
        // An external run's attempts wait here for agents to claim them through the gateway (BenchClaims); every other
        // attempt's message is written to the outbox in the same transaction, and sent by its relay once committed.
        boolean queue = !BenchClaims.external(run.agent);
        return Panache.withTransaction(() -> runs.persist(run).chain(() -> attempts.persist(queued))
                        .chain(() -> queue ? outboxEntries.persist(BenchOutbox.entries(queued)) : Uni.createFrom().voidItem()))
                .invoke(() -> {
                    metrics.runCreated(run.agent);
                    if (queue) {
                        outbox.relaySoon();
                    }
                })
                .replaceWith(run);
    }

    /** An attempt's trajectory, within the caller's tenant; NOT_FOUND when there is none (or no such attempt). */
    public Uni<String> trajectory(BenchCaller caller, String runId, String attemptId) {
        return Panache.withSession(() -> trajectories.findInTenant(caller.tenant(), attemptId))
                .map(kept -> kept == null || !kept.runId.equals(runId) ? null : kept.json)
                .onItem().ifNull().failWith(() -> new BenchException(BenchException.Kind.NOT_FOUND, "TRAJECTORY_NOT_FOUND",
                        "attempt runs/" + runId + "/attempts/" + attemptId + " has no trajectory"));
    }

    /** One page of an attempt's stored events, within the caller's tenant; NOT_FOUND when the run has no such attempt. */
    public Uni<BenchEventPage> listAttemptEvents(BenchCaller caller, String runId, String attemptId, int pageSize, String pageToken) {
        int size = pageSize(pageSize);
        int offset = pageToken == null || pageToken.isEmpty() ? 0 : offset(decodePageToken(pageToken, EVENTS_PAGE, 2)[1]);
        return Panache.withSession(() -> attempts.findById(attemptId)
                .map(attempt -> attempt != null && attempt.tenant.equals(caller.tenant()) && attempt.runId.equals(runId) ? attempt : null)
                .onItem().ifNull().failWith(() -> new BenchException(BenchException.Kind.NOT_FOUND, "ATTEMPT_NOT_FOUND",
                        "runs/" + runId + "/attempts/" + attemptId + " not found"))
                .chain(attempt -> events.pageOfAttempt(caller.tenant(), attemptId, offset, size + 1))
                .map(page -> new BenchEventPage(page.size() > size ? page.subList(0, size) : page,
                        page.size() > size ? OpaquePageToken.encode(EVENTS_PAGE, Integer.toString(offset + size)) : "")));
    }

    public Uni<BenchRun> getRun(BenchCaller caller, String runId) {
        return Panache.withSession(() -> runs.findInTenant(caller.tenant(), runId))
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId));
    }

    /** One page of a run's attempts with their guard decisions; the page token is an opaque offset. */
    public Uni<BenchAttemptPage> listAttempts(BenchCaller caller, String runId, int pageSize, String pageToken) {
        int size = pageSize(pageSize);
        int offset = parsePageToken(pageToken);
        return Panache.withSession(() -> runs.findInTenant(caller.tenant(), runId)
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId))
                .chain(run -> attempts.pageOfRun(caller.tenant(), runId, offset, size + 1))
                .chain(page -> {
                    List<BenchAttempt> shown = page.size() > size ? page.subList(0, size) : page;
                    String next = page.size() > size ? OpaquePageToken.encode(ATTEMPTS_PAGE, Integer.toString(offset + size)) : "";
                    List<String> ids = shown.stream().map(a -> a.id).toList();
                    return events.ofKind(caller.tenant(), ids, BenchIncomingEvent.Kind.GUARD_DECISION.wireName())
                            .map(decisions -> new BenchAttemptPage(withDecisions(shown, decisions), next));
                }));
    }

    private static List<BenchAttemptPage.Entry> withDecisions(List<BenchAttempt> shown, List<BenchAttemptEvent> decisions) {
        Map<String, List<GuardDecision>> byAttempt = new LinkedHashMap<>();
        for (BenchAttemptEvent decision : decisions) {
            byAttempt.computeIfAbsent(decision.attemptId, id -> new ArrayList<>()).add(new GuardDecision(
                    decision.guardHealPoint == null ? 0 : decision.guardHealPoint,
                    GuardStage.parse(decision.guardStage), GuardVerdict.parse(decision.guardVerdict), decision.guardReason));
        }
        return shown.stream()
                .map(a -> new BenchAttemptPage.Entry(a, byAttempt.getOrDefault(a.id, List.of())))
                .toList();
    }

    /** One page of the caller's runs, newest first; the page token is the position after the page's last run. */
    public Uni<BenchRunPage> listRuns(BenchCaller caller, int pageSize, String pageToken) {
        int size = pageSize(pageSize);
        String[] after = pageToken == null || pageToken.isEmpty() ? null : decodePageToken(pageToken, RUNS_PAGE, 3);
        Instant afterCreate;
        try {
            afterCreate = after == null ? null : Instant.parse(after[1]);
        } catch (DateTimeParseException e) {
            throw invalidPageToken();
        }
        return Panache.withSession(() -> runs.pageInTenant(caller.tenant(), afterCreate, after == null ? null : after[2], size + 1))
                .map(page -> {
                    List<BenchRun> shown = page.size() > size ? page.subList(0, size) : page;
                    BenchRun last = shown.isEmpty() ? null : shown.get(shown.size() - 1);
                    String next = page.size() > size ? OpaquePageToken.encode(RUNS_PAGE, last.createTime.toString(), last.id) : "";
                    return new BenchRunPage(shown, next);
                });
    }

    /**
     * Cancels a run: its attempts that have not started end CANCELLED and are never counted; those already running
     * finish and count. Refused once the run has ended.
     */
    public Uni<BenchRun> cancelRun(BenchCaller caller, String runId) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        return Panache.withTransaction(() -> runs.lockInTenant(caller.tenant(), runId)
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId))
                .chain(run -> {
                    if (run.state.done()) {
                        throw BenchException.runState("RUN_ENDED", "run '" + runId + "' has already ended (" + run.state + ")");
                    }
                    run.state = BenchRun.State.CANCELLED;
                    run.updateTime = now;
                    return attempts.cancelQueued(caller.tenant(), runId, now).replaceWith(run);
                }))
                .invoke(run -> notifier.changed(run.tenant, run.id));
    }

    /** Deletes an ended run with everything stored about it. */
    public Uni<Void> deleteRun(BenchCaller caller, String runId) {
        return Panache.withTransaction(() -> runs.lockInTenant(caller.tenant(), runId)
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId))
                .chain(run -> {
                    requireEnded(run);
                    return events.deleteOfRun(caller.tenant(), runId)
                            .chain(() -> trajectories.deleteOfRun(caller.tenant(), runId))
                            .chain(() -> outboxEntries.deleteOfRun(caller.tenant(), runId))
                            .chain(() -> attempts.deleteOfRun(caller.tenant(), runId))
                            .chain(() -> runs.delete(run));
                }));
    }

    /**
     * Re-grades an ended run from its stored completion events, through the code that graded them live
     * ({@link BenchGrading}): the first completion event received for each attempt is the one that counted.
     */
    public Uni<BenchRegrade> regradeRun(BenchCaller caller, String runId) {
        return Panache.withTransaction(() -> runs.lockInTenant(caller.tenant(), runId)
                .onItem().ifNull().failWith(() -> BenchException.runNotFound(runId))
                .chain(run -> {
                    requireEnded(run);
                    return events.ofRun(caller.tenant(), runId, BenchIncomingEvent.Kind.COMPLETED.wireName())
                            .chain(completions -> attempts.lockAllOfRun(caller.tenant(), runId)
                                    .map(all -> regrade(run, all, completions)));
                }));
    }

    private BenchRegrade regrade(BenchRun run, List<BenchAttempt> all, List<BenchAttemptEvent> completions) {
        Map<String, BenchAttemptEvent> applied = new LinkedHashMap<>();
        completions.forEach(event -> applied.putIfAbsent(event.attemptId, event));
        BenchGrading.resetCounts(run);
        int changed = 0;
        int withoutEvents = 0;
        for (BenchAttempt attempt : all) {
            BenchAttemptEvent completion = applied.get(attempt.id);
            if (completion == null) {
                withoutEvents++;
                continue;
            }
            String before = gradedFields(attempt);
            BenchGrading.grade(attempt, storedEvents.read(completion).outcome(), completion.eventTime);
            changed += before.equals(gradedFields(attempt)) ? 0 : 1;
            BenchGrading.count(run, attempt);
        }
        run.updateTime = Instant.now().truncatedTo(ChronoUnit.MICROS);
        return new BenchRegrade(run, changed, withoutEvents);
    }

    /** What grading decides about an attempt, to tell whether re-grading changed it. */
    private static String gradedFields(BenchAttempt a) {
        return String.join("|", String.valueOf(a.state), String.valueOf(a.outcomeClass), String.valueOf(a.proceeded),
                String.valueOf(a.passed), Double.toString(a.traceSimilarity), String.valueOf(a.failureClass),
                Integer.toString(a.healsApplied), Double.toString(a.usage.costUsd));
    }

    private static void requireEnded(BenchRun run) {
        if (!run.state.done()) {
            throw BenchException.runState("RUN_ACTIVE", "run '" + run.id + "' is still " + run.state + ": cancel it first");
        }
    }

    private static int pageSize(int requested) {
        if (requested < 0) {
            throw BenchException.invalidArgument("PAGE_SIZE_INVALID", "page_size must not be negative");
        }
        return requested == 0 ? DEFAULT_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE);
    }

    /** A token's parts after its kind; a token of another listing, or not one of ours, is the caller's error. */
    private static String[] decodePageToken(String token, String kind, int parts) {
        try {
            String[] decoded = OpaquePageToken.decode(token, parts);
            if (!decoded[0].equals(kind)) {
                throw invalidPageToken();
            }
            return decoded;
        } catch (IllegalArgumentException e) {
            throw invalidPageToken();
        }
    }

    private static BenchException invalidPageToken() {
        return BenchException.invalidArgument("PAGE_TOKEN_INVALID", "page_token is not one this service issued for this listing");
    }

    private static int parsePageToken(String token) {
        return token == null || token.isEmpty() ? 0 : offset(decodePageToken(token, ATTEMPTS_PAGE, 2)[1]);
    }

    /** An offset a page token carries. */
    private static int offset(String text) {
        try {
            int offset = Integer.parseInt(text);
            if (offset >= 0) {
                return offset;
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        throw invalidPageToken();
    }
}
