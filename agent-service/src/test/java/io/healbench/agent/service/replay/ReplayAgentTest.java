package io.healbench.agent.service.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.LlmSettings;
import io.healbench.agent.service.ObservedStatement;
import io.healbench.agent.service.RejectedHeal;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.heal.Resume;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Heal sets read from real files, and the replay agent answering heal points from them. */
class ReplayAgentTest {

    private static final String TWO_HEALS = """
            {"heals": [
              {"code": "x = 0", "resume": "retry"},
              {"code": "_return_ = None", "resume": "return"}
            ]}""";

    @TempDir
    Path dir;

    @Test
    void readsHealsInOrderWithTheirResumeModes() throws IOException {
        Path file = write("inst.json", TWO_HEALS);

        HealSet set = HealSet.read(file);

        assertEquals(List.of(new Heal("x = 0", Resume.RETRY), new Heal("_return_ = None", Resume.RETURN)),
                set.heals());
        assertEquals(file, set.file());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            not JSON             | {"heals": [                                          | is not JSON
            not an object        | [1, 2]                                               | must be a JSON object with a 'heals' array
            heals missing        | {}                                                   | 'heals' must be an array
            heals not an array   | {"heals": {"code": "x = 0"}}                         | 'heals' must be an array
            unknown top field    | {"heals": [], "heal": []}                            | unknown field 'heal'
            heal not an object   | {"heals": ["x = 0"]}                                 | heals[0] must be an object
            code missing         | {"heals": [{"resume": "skip"}]}                      | heals[0].code must be a non-empty string
            code blank           | {"heals": [{"code": " ", "resume": "skip"}]}         | heals[0].code must be a non-empty string
            code not a string    | {"heals": [{"code": 1, "resume": "skip"}]}           | heals[0].code must be a non-empty string
            resume missing       | {"heals": [{"code": "x = 0"}]}                       | heals[0].resume is missing or not a string
            resume unknown       | {"heals": [{"code": "pass", "resume": "skip"}, {"code": "x = 0", "resume": "again"}]} | heals[1].resume must be skip, retry or return, got 'again'
            resume in upper case | {"heals": [{"code": "x = 0", "resume": "RETRY"}]}    | heals[0].resume must be skip, retry or return, got 'RETRY'
            unknown heal field   | {"heals": [{"code": "x = 0", "resume": "skip", "why": "t"}]} | unknown field 'heals[0].why'
            """)
    void malformedFileIsRefusedNamingTheFileAndTheField(String name, String content, String expected) throws IOException {
        Path file = write("bad.json", content.strip());

        HealSetException error = assertThrows(HealSetException.class, () -> HealSet.read(file));

        assertTrue(error.getMessage().startsWith(file.toString()), error.getMessage());
        assertTrue(error.getMessage().contains(expected), error.getMessage());
    }

    @Test
    void missingFileIsNamed() {
        HealSetException error = assertThrows(HealSetException.class, () -> HealSet.forInstance(dir, "absent"));

        assertTrue(error.getMessage().contains(dir.resolve("absent.json") + " does not exist"), error.getMessage());
    }

    @Test
    void instanceIdThatIsNotAFileNameIsRefused() {
        HealSetException error = assertThrows(HealSetException.class, () -> HealSet.forInstance(dir, "../inst"));

        assertTrue(error.getMessage().contains("'../inst' cannot name a heal set file"), error.getMessage());
    }

    @Test
    void nthHealPointGetsTheNthHealAndThenTheAgentGivesUp() throws IOException {
        ReplayAgent agent = startedOnTwoHeals();

        assertEquals(new Heal("x = 0", Resume.RETRY), agent.decide(point("a1", 1)));
        assertEquals(new Heal("_return_ = None", Resume.RETURN), agent.decide(point("a1", 2)));
        Reraise past = assertInstanceOf(Reraise.class, agent.decide(point("a1", 3)));
        assertTrue(past.reason().contains("no recorded heal for heal point 3"), past.reason());
    }

    @Test
    void refusedRecordedHealIsNotRetriedAndTheRefusalIsTheReason() throws IOException {
        ReplayAgent agent = startedOnTwoHeals();

        AgentDecision decision = agent.decide(new HealPoint("a1", crash(1),
                List.of(new RejectedHeal("x = 0", "HealGuard's static stage found a flow"))));

        Reraise reraise = assertInstanceOf(Reraise.class, decision);
        assertTrue(reraise.reason().contains("heal point 1 was refused: HealGuard's static stage found a flow"),
                reraise.reason());
    }

    @Test
    void attemptsAreKeptApartAndDroppedWhenTheyEnd() throws IOException {
        write("one.json", "{\"heals\": [{\"code\": \"a = 1\", \"resume\": \"skip\"}]}");
        write("two.json", "{\"heals\": [{\"code\": \"b = 2\", \"resume\": \"skip\"}]}");
        ReplayAgent agent = new ReplayAgent(Optional.of(dir));
        agent.attemptStarted(spec("a1", "one"));
        agent.attemptStarted(spec("a2", "two"));

        assertEquals(new Heal("a = 1", Resume.SKIP), agent.decide(point("a1", 1)));
        assertEquals(new Heal("b = 2", Resume.SKIP), agent.decide(point("a2", 1)));

        agent.attemptEnded("a1");
        assertThrows(IllegalStateException.class, () -> agent.decide(point("a1", 1)));
    }

    @Test
    void attemptWithoutAConfiguredDirectoryFailsToStartWithAClearError() {
        ReplayAgent agent = new ReplayAgent(Optional.empty());

        HealSetException error = assertThrows(HealSetException.class, () -> agent.attemptStarted(spec("a1", "inst")));

        assertTrue(error.getMessage().contains("healbench.agent.replay-dir is not configured"), error.getMessage());
    }

    @Test
    void attemptWhoseHealSetIsMalformedFailsToStart() throws IOException {
        Path file = write("inst.json", "{\"heals\": [{\"code\": \"x = 0\"}]}");
        ReplayAgent agent = new ReplayAgent(Optional.of(dir));

        HealSetException error = assertThrows(HealSetException.class, () -> agent.attemptStarted(spec("a1", "inst")));

        assertTrue(error.getMessage().contains(file + ": heals[0].resume"), error.getMessage());
    }

    /** An agent whose attempt a1 replays instance inst's heal set of {@link #TWO_HEALS}. */
    private ReplayAgent startedOnTwoHeals() throws IOException {
        write("inst.json", TWO_HEALS);
        ReplayAgent agent = new ReplayAgent(Optional.of(dir));
        agent.attemptStarted(spec("a1", "inst"));
        return agent;
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private static AttemptSpec spec(String attemptId, String instanceId) {
        return new AttemptSpec("local", "run-1", attemptId, instanceId, 0, ReplayAgent.NAME, GuardMode.ENFORCE, LlmSettings.NONE, "");
    }

    private static HealPoint point(String attemptId, int healPoint) {
        return new HealPoint(attemptId, crash(healPoint), List.of());
    }

    private static CrashObservation crash(int healPoint) {
        return new CrashObservation(healPoint, "TypeError", "bad argument",
                new ObservedStatement("x = f(y)", "assign", List.of("x"), 10), List.of(), true);
    }
}
