package io.healbench.guard.service.gate;

/**
 * Where a parsed unit starts in the submitted code, to report positions in the submitted code's
 * terms. Units are the whole heal (offset 1:0) or an f-string replacement field, which is a
 * verbatim substring of the heal: only its first line is shifted.
 *
 * @param line   1-based line of the unit's first character
 * @param column 0-based column of the unit's first character
 */
record SourceOffset(int line, int column) {

    static final SourceOffset START = new SourceOffset(1, 0);

    /** Maps a unit position (1-based line, 0-based column) to a diagnostic's 1-based line and column. */
    int[] toSubmitted(int unitLine, int unitColumn) {
        return unitLine == 1
                ? new int[] {line, column + unitColumn + 1}
                : new int[] {line + unitLine - 1, unitColumn + 1};
    }

    /** The offset of a unit that starts at the given unit position of this one. */
    SourceOffset nested(int unitLine, int unitColumn) {
        return unitLine == 1 ? new SourceOffset(line, column + unitColumn) : new SourceOffset(line + unitLine - 1, unitColumn);
    }
}
