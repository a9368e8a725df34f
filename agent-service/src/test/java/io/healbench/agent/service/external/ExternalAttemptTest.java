package io.healbench.agent.service.external;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.agent.cassette.CassetteMode;
import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.Limits;
import io.healbench.agent.service.LlmSettings;
import io.healbench.agent.service.ObservedStatement;
import io.healbench.agent.service.RejectedHeal;
import io.healbench.agent.service.SessionTools;
import io.healbench.agent.service.llm.Action;
import io.healbench.common.guard.GuardMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bridge between an external agent and the runner, without a sandbox: looks are answered at once and in order,
 * a heal is answered when the program stands still again (the next heal point, or its refusal), and the budgets and
 * the lease end the agent's turn with the exit that says why.
 */
class ExternalAttemptTest {

    @Test
    void looksAreAnsweredAndAHealIsAnsweredWithTheNextHealPoint() throws Exception {
        ExternalAttempt attempt = attempt(Limits.DEFAULTS);
        CompletableFuture<AgentDecision> first = decideLater(attempt, point(1, List.of()));
        ExternalReply probe = attempt.submit(action("probe", Map.of("code", "6 * 7"))).get(10, TimeUnit.SECONDS);
        assertEquals("42", ((SessionTools.ProbeReply) probe.value()).valueRepr());
        assertTrue(probe.observation().contains("value: 42"), probe.observation());
        ExecutionException bad = assertThrows(ExecutionException.class,
                () -> attempt.submit(action("heal", Map.of("code", "pass"))).get(10, TimeUnit.SECONDS));
        assertEquals("ARGUMENT_INVALID", ((ExternalFailure) bad.getCause()).reason());

        CompletableFuture<ExternalReply> heal = attempt.submit(action("heal", Map.of("code", "x = 1", "resume", "skip")));
        assertInstanceOf(AgentDecision.Heal.class, first.get(10, TimeUnit.SECONDS));
        assertTrue(!heal.isDone(), "a heal is answered only when the program stands still again");
        attempt.healApplied(List.of("x"));
        attempt.healPointEnded(1, true);
        CompletableFuture<AgentDecision> second = decideLater(attempt, point(2, List.of()));
        ExternalReply healed = heal.get(10, TimeUnit.SECONDS);
        ExternalReply.Healed value = (ExternalReply.Healed) healed.value();
        assertEquals(List.of("x"), value.changed());
        assertEquals(2, value.step().crash().healPoint());
        attempt.submit(action("reraise", Map.of("reason", "done")));
        assertInstanceOf(AgentDecision.Reraise.class, second.get(10, TimeUnit.SECONDS));
        attempt.healPointEnded(2, false);
        assertEquals(List.of("healed", "reraised"), attempt.record().usage().healPointExits());
    }

    @Test
    void aRefusedHealIsThatRequestsErrorAndTheLastAllowedOneReraises() throws Exception {
        Limits oneHeal = new Limits(100, 0, 0, 0, 0, 0, Duration.ofSeconds(60), Duration.ZERO, 0, 0, 3, 1, 0);
        ExternalAttempt attempt = attempt(oneHeal);
        CompletableFuture<AgentDecision> first = decideLater(attempt, point(1, List.of()));
        CompletableFuture<ExternalReply> heal = attempt.submit(action("heal", Map.of("code", "import subprocess", "resume", "skip")));
        assertInstanceOf(AgentDecision.Heal.class, first.get(10, TimeUnit.SECONDS));
        AgentDecision after = attempt.decide(point(1, List.of(new RejectedHeal("import subprocess", "gate: subprocess is not in the import allowlist"))));
        ExecutionException refused = assertThrows(ExecutionException.class, () -> heal.get(10, TimeUnit.SECONDS));
        ExternalFailure failure = (ExternalFailure) refused.getCause();
        assertEquals("HEAL_REJECTED", failure.reason());
        assertTrue(failure.getMessage().contains("not in the import allowlist") && failure.getMessage().contains("no heals are left"),
                failure.getMessage());
        assertInstanceOf(AgentDecision.Reraise.class, after, "with no heals left the crash is reraised");
        assertEquals(List.of("limits_exceeded"), attempt.record().usage().healPointExits());
    }

    @Test
    void theActionBudgetIsFatalAndTheCrashesAreReraised() throws Exception {
        Limits twoActions = new Limits(2, 0, 0, 0, 0, 0, Duration.ofSeconds(60), Duration.ZERO, 0, 0, 3, 5, 0);
        ExternalAttempt attempt = attempt(twoActions);
        CompletableFuture<AgentDecision> first = decideLater(attempt, point(1, List.of()));
        attempt.submit(action("get_crash", Map.of())).get(10, TimeUnit.SECONDS);
        ExternalReply second = attempt.submit(action("get_crash", Map.of())).get(10, TimeUnit.SECONDS);
        assertEquals(0, second.budget().actionsLeft());
        ExternalFailure spent = assertThrows(ExternalFailure.class, () -> attempt.submit(action("get_crash", Map.of())));
        assertEquals("BUDGET_EXHAUSTED", spent.reason());
        assertTrue(spent.fatal());
        assertInstanceOf(AgentDecision.Reraise.class, first.get(10, TimeUnit.SECONDS));
        assertEquals(List.of("limits_exceeded"), attempt.record().usage().healPointExits());
    }

    @Test
    void aLapsedClaimEndsTheTurnAndRefusesLaterRequests() throws Exception {
        ExternalAttempt attempt = attempt(Limits.DEFAULTS);
        CompletableFuture<AgentDecision> first = decideLater(attempt, point(1, List.of()));
        attempt.firstStep().get(10, TimeUnit.SECONDS);
        attempt.lapse();
        assertInstanceOf(AgentDecision.Reraise.class, first.get(10, TimeUnit.SECONDS));
        assertEquals(List.of("claim_lapsed"), attempt.record().usage().healPointExits());
        ExternalFailure lapsed = assertThrows(ExternalFailure.class, () -> attempt.submit(action("get_crash", Map.of())));
        assertEquals("CLAIM_LAPSED", lapsed.reason());
        assertTrue(!attempt.actedOnProgram(), "nothing was done to the program: the attempt may go back to the queue");
    }

    @Test
    void selfReportedUsageIsKeptAndFlagged() {
        ExternalAttempt attempt = attempt(Limits.DEFAULTS);
        attempt.selfReport(new SelfReportedUsage(2, 1500, 120, 0.012, "their-model"));
        assertTrue(attempt.record().usage().selfReported());
        assertEquals(2, attempt.record().usage().llmCalls());
        assertTrue(attempt.record().trajectoryJson().contains("their-model"));
        assertThrows(ExternalFailure.class, () -> new SelfReportedUsage(-1, 0, 0, 0, ""));
        assertThrows(ExternalFailure.class, () -> new SelfReportedUsage(0, 0, 0, Double.NaN, ""));
    }

    private static ExternalAttempt attempt(Limits limits) {
        AttemptSpec spec = new AttemptSpec("acme", "run-1", "attempt-1", "stdlib-example", 0, "external", GuardMode.ENFORCE,
                new LlmSettings("", 0, 0, limits, Optional.empty(), CassetteMode.OFF), "");
        return new ExternalAttempt(new AttemptClaims.Claim("claim-1", spec, 0), new ExternalCaller("acme", "otto"));
    }

    private static HealPoint point(int healPoint, List<RejectedHeal> rejected) {
        CrashObservation crash = new CrashObservation(healPoint, "ZeroDivisionError", "division by zero",
                new ObservedStatement("y = 1 / x", "assign", List.of("y"), 3, "example.py"), List.of(), true);
        return new HealPoint("attempt-1", crash, rejected, new FakeTools());
    }

    private static Action action(String tool, Map<String, Object> arguments) {
        return new Action(tool, "", arguments);
    }

    private static CompletableFuture<AgentDecision> decideLater(ExternalAttempt attempt, HealPoint point) {
        return CompletableFuture.supplyAsync(() -> attempt.decide(point));
    }

    /** Probes evaluate one fixed expression; the views are empty. */
    private static final class FakeTools implements SessionTools {
        @Override
        public ProbeReply probe(String code, Duration timeout) {
            return code.equals("6 * 7") ? new ProbeReply(true, "", "42", "") : new ProbeReply(false, "", "", "NameError");
        }

        @Override
        public FileView readFile(String path, int start, int end) {
            throw new Refused("no such file: " + path);
        }

        @Override
        public FileListing listFiles(String directory, String glob) {
            return new FileListing(List.of(), false);
        }

        @Override
        public CodeMatches searchCode(String pattern, String glob) {
            return new CodeMatches(List.of(), false, 0);
        }
    }
}
