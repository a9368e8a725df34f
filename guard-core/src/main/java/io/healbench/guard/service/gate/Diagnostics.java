package io.healbench.guard.service.gate;

import java.util.List;

import org.antlr.v4.runtime.Token;

/** Appends diagnostics for one unit, translating the unit's positions into the submitted code's. */
final class Diagnostics {

    private final SourceOffset offset;
    private final List<GateDiagnostic> out;

    Diagnostics(SourceOffset offset, List<GateDiagnostic> out) {
        this.offset = offset;
        this.out = out;
    }

    void report(Token at, String construct, String reason) {
        report(at.getLine(), at.getCharPositionInLine(), construct, reason);
    }

    /** At a unit position: 1-based line, 0-based column. */
    void report(int line, int column, String construct, String reason) {
        int[] position = offset.toSubmitted(line, column);
        out.add(new GateDiagnostic(position[0], position[1], construct, reason));
    }

    SourceOffset offset() {
        return offset;
    }

    List<GateDiagnostic> sink() {
        return out;
    }
}
