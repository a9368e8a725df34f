package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CliArgumentsTest {

    @Test
    void defaultsToAStandaloneEnforcedRulesRun() {
        CliArguments args = CliArguments.parse("run");
        assertTrue(args.standalone());
        assertEquals("rules", args.agent());
        assertEquals("enforce", args.guardMode());
        assertEquals(1, args.repeats());
        assertTrue(args.instanceIds().isEmpty());
        assertFalse(args.json());
    }

    @Test
    void readsEveryOption() {
        CliArguments args = CliArguments.parse("run", "--instances", "a, b,,c", "--agent", "healer", "--guard-mode", "observe",
                "--repeats", "3", "--json", "--server", "127.0.0.1:8104", "--token", "t");
        assertEquals(List.of("a", "b", "c"), args.instanceIds());
        assertEquals("healer", args.agent());
        assertEquals("observe", args.guardMode());
        assertEquals(3, args.repeats());
        assertTrue(args.json());
        assertFalse(args.standalone());
        assertEquals("t", args.token());
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
    }
}
