package io.healbench.guard.service.gate;

/**
 * Why the gate refused part of a heal.
 *
 * @param line      1-based line in the submitted code
 * @param column    1-based column (code points) in that line, as in Python's SyntaxError.offset
 * @param construct the offending construct, e.g. "lambda", "import subprocess", "exec", "__dict__"
 * @param reason    why it is excluded from HealCore
 */
public record GateDiagnostic(int line, int column, String construct, String reason) {
}
