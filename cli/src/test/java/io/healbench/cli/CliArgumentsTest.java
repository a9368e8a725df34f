package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.dataset.Tier;
import io.healbench.common.guard.GuardMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliArgumentsTest {

    @Test
    void defaultsToAStandaloneEnforcedRulesRun() {
        CliArguments args = CliArguments.parse("run");
        assertTrue(args.standalone());
        assertEquals("rules", args.agent());
        assertEquals(GuardMode.ENFORCE, args.guardMode());
        assertEquals(1, args.repeats());
        assertTrue(args.instanceIds().isEmpty());
        assertFalse(args.json());
        assertFalse(args.filtered());
        assertEquals(null, args.subject());
        assertEquals(null, args.tier());
        assertEquals(0, args.limit());
        assertEquals(0, args.seed());
    }

    @Test
    void readsEveryOption() {
        CliArguments args = CliArguments.parse("run", "--instances", "a, b,,c", "--agent", "healer", "--backbone", "stub",
                "--guard-mode", "observe", "--repeats", "3", "--json", "--server", "127.0.0.1:8104", "--token", "t");
        assertEquals(List.of("a", "b", "c"), args.instanceIds());
        assertEquals("healer", args.agent());
        assertEquals(GuardMode.OBSERVE, args.guardMode());
        assertEquals(3, args.repeats());
        assertTrue(args.json());
        assertFalse(args.standalone());
        assertEquals("t", args.token());
        assertEquals("stub", args.llm().backbone());
    }

    @Test
    void anLlmAgentNeedsABackboneAndItsOptionsAreChecked() {
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--agent", "toolloop"))
                .getMessage().contains("needs --backbone"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--agent", "rules",
                "--backbone", "stub")).getMessage().contains("are for the LLM agents"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--agent", "mini",
                "--backbone", "stub", "--limits", "callz=3")).getMessage().contains("keys: calls"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--agent", "mini",
                "--backbone", "stub", "--limits", "calls=-1")).getMessage().contains("must not be negative"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--agent", "mini",
                "--backbone", "stub", "--record")).getMessage().contains("need --llm-cassette"));
        CliArguments args = CliArguments.parse("run", "--agent", "mini", "--backbone", "openai:m@http://h/v1",
                "--price-in", "1.5", "--price-out", "6", "--limits", "calls=20,cost_usd=0.5", "--run-cost-limit", "3");
        io.healbench.proto.agent.v1.AgentConfig wire = args.llm().toWire();
        assertEquals(20, wire.getLimits().getCallsPerAttempt());
        assertEquals(0.5, wire.getLimits().getCostUsdPerAttempt());
        assertEquals(3.0, wire.getLimits().getRunCostUsd());
        assertFalse(wire.getLimits().hasProbesPerAttempt(), "an unset limit stays unset, for the agent's default");
        assertEquals(1.5, wire.getPriceInputPerMtok());
    }

    @Test
    void readsTheSliceOptions() {
        CliArguments args = CliArguments.parse("run", "--subject", "toolz", "--tier", "real-bug", "--limit", "5", "--seed", "-3",
                "--instances", "a,b");
        assertEquals("toolz", args.subject());
        assertEquals(Tier.REAL_BUG, args.tier());
        assertEquals(5, args.limit());
        assertEquals(-3, args.seed());
        assertEquals(List.of("a", "b"), args.instanceIds());
        assertTrue(args.filtered());
        assertTrue(CliArguments.parse("run", "--tier", "injected").filtered());
        assertFalse(CliArguments.parse("run", "--instances", "a", "--seed", "9").filtered());
    }

    @Test
    void argumentsRoundTripAndAResolvedSliceKeepsTheRest() {
        CliArguments args = CliArguments.parse("run", "--subject", "cpython-stdlib@3.11.7", "--tier", "injected", "--limit", "2",
                "--seed", "4", "--agent", "healer", "--backbone", "stub", "--limits", "calls=5,format_errors=2",
                "--run-cost-limit", "1.25", "--guard-mode", "off", "--repeats", "2", "--json", "--server", "h:1", "--token", "t");
        assertEquals(args, CliArguments.parse(args.toArgs()));
        CliArguments resolved = args.withInstances(List.of("x", "y"));
        assertEquals(List.of("x", "y"), resolved.instanceIds());
        assertFalse(resolved.filtered());
        assertEquals("healer", resolved.agent());
        assertEquals(2, resolved.repeats());
        assertEquals(resolved, CliArguments.parse(resolved.toArgs()));
    }

    @Test
    void healsNameAnExistingDirectoryMadeAbsoluteAndRoundTrip(@TempDir Path dir) throws IOException {
        Path heals = Files.createDirectory(dir.resolve("heals"));
        CliArguments args = CliArguments.parse("run", "--agent", "replay", "--heals", heals.toString(), "--instances", "a");
        assertEquals(heals.toAbsolutePath().toString(), args.heals());
        assertEquals(args, CliArguments.parse(args.toArgs()));
        assertEquals(args.heals(), args.withInstances(List.of("b")).heals());
        String relative = Path.of("").toAbsolutePath().relativize(heals.toAbsolutePath()).toString();
        assertEquals(heals.toAbsolutePath().toString(), CliArguments.parse("run", "--heals", relative).heals());
        assertEquals(null, CliArguments.parse("run").heals());
    }

    @Test
    void healsAreRefusedWhenMissingOrInRemoteMode(@TempDir Path dir) {
        assertTrue(assertThrows(CliArguments.UsageException.class,
                () -> CliArguments.parse("run", "--heals", dir.resolve("absent").toString()))
                .getMessage().contains("--heals must name a directory"));
        assertTrue(assertThrows(CliArguments.UsageException.class,
                () -> CliArguments.parse("run", "--agent", "replay", "--heals", dir.toString(), "--server", "h:1"))
                .getMessage().contains("--heals works in standalone mode only"));
        assertTrue(CliArguments.USAGE.contains("--heals DIR"));
    }

    @Test
    void badInputIsExplained() {
        assertEquals("missing command", assertThrows(CliArguments.UsageException.class, CliArguments::parse).getMessage());
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("fly")).getMessage().contains("'fly'"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--guard-mode", "maybe"))
                .getMessage().contains("enforce, observe or off"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--repeats", "0"))
                .getMessage().contains("between 1 and 100"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--agent"))
                .getMessage().contains("needs a value"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--bogus"))
                .getMessage().contains("--bogus"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--tier", "fake"))
                .getMessage().contains("--tier must be one of real-bug, injected, got 'fake'"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--limit", "0"))
                .getMessage().contains("--limit must be at least 1"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--limit", "five"))
                .getMessage().contains("--limit must be a whole number"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--seed", "x"))
                .getMessage().contains("--seed must be a whole number"));
        assertTrue(assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--subject"))
                .getMessage().contains("--subject needs a value"));
        for (String option : List.of("--instances", "--subject", "--tier", "--limit", "--seed")) {
            assertTrue(CliArguments.USAGE.contains(option), option);
        }
    }

    @Test
    void parallelDefaultsToTheCoresAndIsForStandaloneModeOnly() {
        assertEquals(Math.min(Runtime.getRuntime().availableProcessors(), CliArguments.MAX_PARALLEL), CliArguments.parse("run").parallel());
        assertEquals(3, CliArguments.parse("run", "--parallel", "3").parallel());
        assertEquals(3, CliArguments.parse(CliArguments.parse("run", "--parallel", "3").toArgs()).parallel(), "survives toArgs");
        assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--parallel", "0"));
        assertThrows(CliArguments.UsageException.class, () -> CliArguments.parse("run", "--parallel", "65"));
        CliArguments.UsageException remote = assertThrows(CliArguments.UsageException.class,
                () -> CliArguments.parse("run", "--parallel", "2", "--server", "127.0.0.1:8104"));
        assertTrue(remote.getMessage().contains("max-concurrent-attempts"), remote.getMessage());
    }

    @Test
    void aPoolIsNamedForServerRunsOnly() {
        CliArguments remote = CliArguments.parse("run", "--server", "127.0.0.1:8104", "--token", "t", "--pool", "gpu-a100");
        assertEquals("gpu-a100", remote.pool());
        assertEquals("gpu-a100", CliArguments.parse(remote.toArgs()).pool(), "survives toArgs");
        assertNull(CliArguments.parse("run", "--server", "127.0.0.1:8104").pool(), "no pool: the server's default");
        CliArguments.UsageException local = assertThrows(CliArguments.UsageException.class,
                () -> CliArguments.parse("run", "--pool", "gpu-a100"));
        assertTrue(local.getMessage().contains("--server"), local.getMessage());
    }
}
