package io.healbench.guard.service.gate;

import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.healbench.guard.healcore.HealCoreLexer;
import io.healbench.guard.healcore.HealCoreParser;
import io.healbench.guard.healcore.IndentationTracker;
import io.healbench.guard.service.gate.SyntaxErrorCollector.SyntaxError;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.IntervalSet;
import org.antlr.v4.runtime.tree.ParseTree;

/**
 * Checks one unit of HealCore text (a whole heal, or one f-string field) and appends what it
 * finds: layout problems, excluded keywords, syntax errors, then the visitor's name, attribute
 * and import rules, which run over the parse tree even when it has syntax errors, so the agent
 * learns about every problem at once.
 *
 * <p>A logical line with a syntax error is damaged: the parser's error recovery may have read the
 * rest of it in the wrong context (an attribute as a name, a yield's 'from' as an import), so
 * only the context-free rules judge its tokens there; a diagnostic must never blame code that
 * is HealCore.
 */
final class HealCoreUnitChecker {

    enum Unit { PROGRAM, FIELD_EXPRESSION }

    /** Python keywords the grammar lexes but no rule accepts. */
    private static final Set<Integer> EXCLUDED_KEYWORDS = Set.of(
            HealCoreLexer.ASYNC, HealCoreLexer.AWAIT, HealCoreLexer.CLASS, HealCoreLexer.DEF,
            HealCoreLexer.GLOBAL, HealCoreLexer.LAMBDA, HealCoreLexer.NONLOCAL, HealCoreLexer.RETURN,
            HealCoreLexer.WITH, HealCoreLexer.YIELD);

    /** Tokens after which a 'for' starts a statement rather than continuing an expression. */
    private static final Set<Integer> STATEMENT_BOUNDARIES = Set.of(
            HealCoreLexer.NEWLINE, HealCoreParser.INDENT, HealCoreParser.DEDENT);

    /** Expected-token lists longer than this are left out of the message: they would bury it. */
    private static final int MAX_EXPECTED_SHOWN = 6;

    private final HealCorePolicy policy;

    HealCoreUnitChecker(HealCorePolicy policy) {
        this.policy = policy;
    }

    void check(String source, Unit unit, SourceOffset offset, List<GateDiagnostic> out) {
        HealCoreLexer lexer = new HealCoreLexer(CharStreams.fromString(source));
        lexer.removeErrorListeners();
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        Diagnostics diagnostics = new Diagnostics(offset, out);

        boolean tooDeep = reportLayout(lexer.layoutIssues(), diagnostics);
        int firstExcludedKeyword = reportExcludedKeywords(tokens.getTokens(), diagnostics);
        if (tooDeep) {
            return; // a recursive-descent parse of it could exhaust the stack
        }
        HealCoreParser parser = new HealCoreParser(tokens);
        parser.removeErrorListeners();
        SyntaxErrorCollector errors = new SyntaxErrorCollector();
        parser.addErrorListener(errors);
        try {
            ParseTree tree = unit == Unit.PROGRAM ? parser.program() : parser.fieldExpression();
            reportSyntaxErrors(errors.errors(), tokens, firstExcludedKeyword, diagnostics);
            BitSet damaged = damagedTokens(errors.errors(), tokens.getTokens());
            // a token the parser's recovery made up (index -1) stands where the code was damaged
            new HealCoreRuleVisitor(policy, diagnostics, this::checkField, errors.errors().isEmpty(),
                    index -> index < 0 || damaged.get(index)).visit(tree);
        } catch (StackOverflowError deepNesting) {
            diagnostics.report(1, 0, "nesting", policy.reason(Rejection.NESTING_TOO_DEEP));
        }
    }

    private void checkField(String parenthesizedExpression, SourceOffset offset, List<GateDiagnostic> out) {
        check(parenthesizedExpression, Unit.FIELD_EXPRESSION, offset, out);
    }

    private boolean reportLayout(List<IndentationTracker.Issue> issues, Diagnostics diagnostics) {
        boolean tooDeep = false;
        for (IndentationTracker.Issue issue : issues) {
            Rejection rejection = switch (issue.kind()) {
                case TAB_IN_INDENTATION -> Rejection.TAB_IN_INDENTATION;
                case INCONSISTENT_DEDENT -> Rejection.UNINDENT_MISMATCH;
                case NESTING_TOO_DEEP -> Rejection.NESTING_TOO_DEEP;
            };
            tooDeep |= rejection == Rejection.NESTING_TOO_DEEP;
            diagnostics.report(issue.line(), issue.column(),
                    rejection == Rejection.NESTING_TOO_DEEP ? "nesting" : "indentation", policy.reason(rejection));
        }
        return tooDeep;
    }

    /** Reports every excluded keyword; returns the token index of the first, or MAX_VALUE. */
    private int reportExcludedKeywords(List<Token> tokens, Diagnostics diagnostics) {
        int first = Integer.MAX_VALUE;
        for (Token token : tokens) {
            if (EXCLUDED_KEYWORDS.contains(token.getType())) {
                first = Math.min(first, token.getTokenIndex());
                diagnostics.report(token, token.getText(), policy.excludedKeywords().get(token.getText()));
            }
        }
        return first;
    }

    /**
     * Excluded keywords are already reported. The first syntax error of a logical line is named
     * precisely when it is a match statement (a line 'match ...:') or a generator expression (a
     * 'for' inside an expression). Any other syntax error is reported only when it is the first,
     * and before any excluded keyword: later ones are mostly the parser's recovery stumbling over
     * the rest of a construct already reported.
     */
    private void reportSyntaxErrors(List<SyntaxError> errors, CommonTokenStream tokens, int firstExcludedKeyword,
                                    Diagnostics diagnostics) {
        List<Token> all = tokens.getTokens();
        Set<Integer> linesWithErrors = new HashSet<>();
        boolean first = true;
        for (SyntaxError error : errors) {
            Token token = error.offending();
            boolean isFirst = first;
            first = false;
            int lineStart = logicalLineStart(all, token.getTokenIndex());
            boolean firstOnLine = linesWithErrors.add(lineStart);
            if (EXCLUDED_KEYWORDS.contains(token.getType())) {
                continue;
            }
            Token match = firstOnLine ? matchStatement(all, lineStart) : null;
            if (match != null) {
                diagnostics.report(match, "match", policy.excludedKeywords().get("match"));
            } else if (token.getType() == HealCoreLexer.FOR && !startsStatement(token, tokens)) {
                if (firstOnLine) {
                    diagnostics.report(token, "generator expression", policy.reason(Rejection.GENERATOR_EXPRESSION));
                }
            } else if (isFirst && token.getTokenIndex() < firstExcludedKeyword) {
                reportGenericSyntaxError(token, error.expected(), diagnostics);
            }
        }
    }

    /**
     * The 'match' token of a logical line 'match ...:', a match statement, which HealCore leaves
     * out (the policy names it among the excluded keywords); null for any other line, or when the
     * policy has no reason for it. 'match' is a soft keyword: as a name it is HealCore, and such a
     * line never ends with ':'.
     */
    private Token matchStatement(List<Token> tokens, int lineStart) {
        int end = logicalLineEnd(tokens, lineStart);
        Token keyword = null;
        Token last = null;
        for (int i = lineStart; i < end; i++) {
            Token token = tokens.get(i);
            boolean layout = token.getType() == HealCoreParser.INDENT || token.getType() == HealCoreParser.DEDENT;
            if (token.getChannel() == Token.DEFAULT_CHANNEL && !layout) {
                keyword = keyword == null ? token : keyword;
                last = token;
            }
        }
        boolean matchLine = keyword != null && keyword != last && keyword.getType() == HealCoreLexer.NAME
                && keyword.getText().equals("match") && last.getText().equals(":");
        return matchLine && policy.excludedKeywords().containsKey("match") ? keyword : null;
    }

    /** The tokens of every logical line with a syntax error: there, the tree's shape is the parser's guess. */
    private static BitSet damagedTokens(List<SyntaxError> errors, List<Token> tokens) {
        BitSet damaged = new BitSet(tokens.size());
        for (SyntaxError error : errors) {
            int index = error.offending().getTokenIndex();
            if (index < 0) {
                continue;
            }
            damaged.set(logicalLineStart(tokens, index), Math.min(tokens.size(), logicalLineEnd(tokens, index) + 1));
        }
        return damaged;
    }

    /** Index of the first token of the logical line holding the token at index (after the previous NEWLINE). */
    private static int logicalLineStart(List<Token> tokens, int index) {
        int i = Math.min(index, tokens.size() - 1);
        while (i > 0 && tokens.get(i - 1).getType() != HealCoreLexer.NEWLINE) {
            i--;
        }
        return i;
    }

    /** Index of the NEWLINE ending the logical line holding the token at index (or of the last token). */
    private static int logicalLineEnd(List<Token> tokens, int index) {
        int i = index;
        while (i < tokens.size() - 1 && tokens.get(i).getType() != HealCoreLexer.NEWLINE) {
            i++;
        }
        return i;
    }

    private void reportGenericSyntaxError(Token token, IntervalSet expected, Diagnostics diagnostics) {
        if (token.getType() == HealCoreParser.INDENT) {
            diagnostics.report(token, "indentation", policy.reason(Rejection.UNEXPECTED_INDENT));
        } else if (expected.size() == 1 && expected.contains(HealCoreParser.INDENT)) {
            diagnostics.report(token, "indentation", policy.reason(Rejection.EXPECTED_INDENT));
        } else if (token.getType() == HealCoreLexer.UNKNOWN_CHARACTER
                && (token.getText().equals("'") || token.getText().equals("\""))) {
            diagnostics.report(token, token.getText(), policy.reason(Rejection.UNTERMINATED_STRING));
        } else {
            String message = "unexpected " + quoted(token);
            if (!expected.isNil() && expected.size() <= MAX_EXPECTED_SHOWN) {
                message += " (expected " + expected.toString(HealCoreParser.VOCABULARY) + ")";
            }
            diagnostics.report(token, describe(token), policy.reason(Rejection.SYNTAX) + message);
        }
    }

    private static boolean startsStatement(Token token, CommonTokenStream tokens) {
        int previous = token.getTokenIndex() - 1;
        return previous < 0 || STATEMENT_BOUNDARIES.contains(tokens.get(previous).getType());
    }

    private static String quoted(Token token) {
        String description = describe(token);
        return description.equals(token.getText()) ? "'" + description + "'" : description;
    }

    private static String describe(Token token) {
        return switch (token.getType()) {
            case Token.EOF -> "end of input";
            case HealCoreLexer.NEWLINE -> "end of line";
            case HealCoreParser.INDENT, HealCoreParser.DEDENT -> "indentation";
            default -> token.getText().length() > 40 ? token.getText().substring(0, 37) + "..." : token.getText();
        };
    }
}
