package io.healbench.guard.service.gate;

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
            new HealCoreRuleVisitor(policy, diagnostics, this::checkField, errors.errors().isEmpty()).visit(tree);
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
     * Excluded keywords are already reported. A 'for' inside an expression is a generator
     * expression, reported wherever it occurs. Any other syntax error is reported only when it is
     * the first, and before any excluded keyword: later ones are mostly the parser's recovery
     * stumbling over the rest of a construct already reported.
     */
    private void reportSyntaxErrors(List<SyntaxError> errors, CommonTokenStream tokens, int firstExcludedKeyword,
                                    Diagnostics diagnostics) {
        boolean first = true;
        for (SyntaxError error : errors) {
            Token token = error.offending();
            boolean isFirst = first;
            first = false;
            if (EXCLUDED_KEYWORDS.contains(token.getType())) {
                continue;
            }
            if (token.getType() == HealCoreLexer.FOR && !startsStatement(token, tokens)) {
                diagnostics.report(token, "generator expression", policy.reason(Rejection.GENERATOR_EXPRESSION));
            } else if (isFirst && token.getTokenIndex() < firstExcludedKeyword) {
                reportGenericSyntaxError(token, error.expected(), diagnostics);
            }
        }
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
