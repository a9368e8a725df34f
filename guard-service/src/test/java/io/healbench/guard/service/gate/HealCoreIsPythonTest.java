package io.healbench.guard.service.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * HealCore is a subset of Python: every heal the gate's accept table holds must also parse with
 * CPython's own parser (python3 on PATH, as healrt needs anyway).
 */
class HealCoreIsPythonTest {

    private static final String PARSE_ALL = String.join("\n",
            "import ast, json, sys",
            "bad = []",
            "for code in json.load(sys.stdin):",
            "    try:",
            "        ast.parse(code)",
            "    except SyntaxError as e:",
            "        bad.append(f'{code!r}: {e.msg}')",
            "print(json.dumps(bad))");

    @Test
    void everyAcceptedHealParsesWithCPython() throws IOException, InterruptedException {
        List<String> heals = HealCoreGateTest.acceptedHeals().map(arguments -> (String) arguments.get()[1]).toList();
        Process python = new ProcessBuilder("python3", "-c", PARSE_ALL).redirectErrorStream(true).start();
        try (OutputStream stdin = python.getOutputStream()) {
            new ObjectMapper().writeValue(stdin, heals);
        }
        String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();

        assertEquals(true, python.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, python.exitValue(), output);
        assertEquals("[]", output, "valid HealCore but not valid Python");
    }
}
