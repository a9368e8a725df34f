package io.healbench.guard.fuzz;

/**
 * A stretch of a generated program: from (line, column) inclusive to (endLine, endColumn)
 * exclusive, with 1-based lines and 1-based code-point columns, as the gate reports positions.
 */
public record Span(int line, int column, int endLine, int endColumn) {

    public boolean contains(int atLine, int atColumn) {
        boolean afterStart = atLine > line || atLine == line && atColumn >= column;
        boolean beforeEnd = atLine < endLine || atLine == endLine && atColumn < endColumn;
        return afterStart && beforeEnd;
    }

    @Override
    public String toString() {
        return line + ":" + column + "-" + endLine + ":" + endColumn;
    }
}
