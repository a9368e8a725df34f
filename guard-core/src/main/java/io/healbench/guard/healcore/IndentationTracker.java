package io.healbench.guard.healcore;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

import org.antlr.v4.runtime.CommonToken;
import org.antlr.v4.runtime.Lexer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.Pair;

/**
 * Python's layout rules, applied to the raw tokens of {@link HealCoreLexer}: NEWLINE only at the
 * end of a logical line (never inside brackets, never for blank or comment-only lines), INDENT and
 * DEDENT from the leading whitespace of each logical line, and the pending DEDENTs at end of input.
 *
 * <p>HealCore indents with spaces only: a tab in indentation is reported, because tab width is the
 * classic way to make code look different to a reader than to the interpreter. Nesting deeper than
 * CPython allows is reported too, so that the gate can refuse it before a recursive parse.
 */
public final class IndentationTracker {

    /** CPython's limit on nested brackets ("too many nested parentheses"). */
    public static final int MAX_BRACKET_DEPTH = 200;
    /** CPython's limit on indentation levels ("too many levels of indentation"). */
    public static final int MAX_INDENT_DEPTH = 100;

    public enum IssueKind { TAB_IN_INDENTATION, INCONSISTENT_DEDENT, NESTING_TOO_DEEP }

    /** A layout problem at a 1-based line and 0-based column. */
    public record Issue(IssueKind kind, int line, int column) {
    }

    private final Lexer lexer;
    private final Supplier<Token> rawTokens;
    private final Deque<Token> pending = new ArrayDeque<>();
    private final Deque<Integer> indentWidths = new ArrayDeque<>(List.of(0));
    private final List<Issue> issues = new ArrayList<>();
    private int bracketDepth;
    private boolean nestingReported;
    private boolean atLineStart = true;
    private Token lineIndentation;

    public IndentationTracker(Lexer lexer, Supplier<Token> rawTokens) {
        this.lexer = lexer;
        this.rawTokens = rawTokens;
    }

    public Token nextToken() {
        while (pending.isEmpty()) {
            pull();
        }
        return pending.poll();
    }

    public List<Issue> issues() {
        return List.copyOf(issues);
    }

    private void pull() {
        Token token = rawTokens.get();
        switch (token.getType()) {
            case HealCoreLexer.NEWLINE -> onNewline(token);
            case HealCoreLexer.WHITESPACE -> {
                if (atLineStart) {
                    lineIndentation = token;
                }
            }
            case Token.EOF -> onEndOfInput(token);
            default -> onSignificant(token);
        }
    }

    private void onNewline(Token newline) {
        if (bracketDepth > 0 || atLineStart) {
            // inside brackets the line goes on; a blank or comment-only line is no line at all
            lineIndentation = null;
            return;
        }
        pending.add(newline);
        atLineStart = true;
        lineIndentation = null;
    }

    private void onEndOfInput(Token eof) {
        if (!atLineStart && bracketDepth == 0) {
            // with a bracket still open the line never ended: the parser meets end of input
            pending.add(synthetic(HealCoreLexer.NEWLINE, "<NEWLINE>", eof));
            atLineStart = true;
        }
        while (indentWidths.size() > 1) {
            indentWidths.pop();
            pending.add(synthetic(HealCoreParser.DEDENT, "<DEDENT>", eof));
        }
        pending.add(eof);
    }

    private void onSignificant(Token token) {
        if (atLineStart) {
            atLineStart = false;
            applyIndentation(token);
        }
        switch (token.getType()) {
            case HealCoreLexer.OPEN_PAREN, HealCoreLexer.OPEN_BRACK, HealCoreLexer.OPEN_BRACE -> {
                bracketDepth++;
                if (bracketDepth > MAX_BRACKET_DEPTH) {
                    reportNesting(token);
                }
            }
            case HealCoreLexer.CLOSE_PAREN, HealCoreLexer.CLOSE_BRACK, HealCoreLexer.CLOSE_BRACE ->
                    bracketDepth = Math.max(0, bracketDepth - 1);
            default -> {
                // not layout-relevant
            }
        }
        pending.add(token);
    }

    private void applyIndentation(Token firstOfLine) {
        int width = lineIndentation == null ? 0 : measure(lineIndentation);
        int current = indentWidths.peek();
        if (width > current) {
            indentWidths.push(width);
            if (indentWidths.size() - 1 > MAX_INDENT_DEPTH) {
                reportNesting(firstOfLine);
            }
            pending.add(synthetic(HealCoreParser.INDENT, "<INDENT>", firstOfLine));
            return;
        }
        while (width < indentWidths.peek()) {
            indentWidths.pop();
            pending.add(synthetic(HealCoreParser.DEDENT, "<DEDENT>", firstOfLine));
        }
        if (width != indentWidths.peek()) {
            issues.add(new Issue(IssueKind.INCONSISTENT_DEDENT, firstOfLine.getLine(),
                    firstOfLine.getCharPositionInLine()));
        }
    }

    /** Width as CPython computes it (tabs to the next multiple of 8, form feed resets); tabs are reported. */
    private int measure(Token indentation) {
        String text = indentation.getText();
        int width = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\t') {
                issues.add(new Issue(IssueKind.TAB_IN_INDENTATION, indentation.getLine(),
                        indentation.getCharPositionInLine() + i));
                width = (width / 8 + 1) * 8;
            } else if (c == '\f') {
                width = 0;
            } else {
                width++;
            }
        }
        return width;
    }

    private void reportNesting(Token at) {
        if (!nestingReported) {
            nestingReported = true;
            issues.add(new Issue(IssueKind.NESTING_TOO_DEEP, at.getLine(), at.getCharPositionInLine()));
        }
    }

    private Token synthetic(int type, String text, Token at) {
        CommonToken token = new CommonToken(new Pair<>(lexer, lexer.getInputStream()), type,
                Token.DEFAULT_CHANNEL, at.getStartIndex(), at.getStartIndex() - 1);
        token.setText(text);
        token.setLine(at.getLine());
        token.setCharPositionInLine(at.getCharPositionInLine());
        return token;
    }
}
