package io.healbench.guard.service.gate;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.healbench.guard.healcore.HealCoreBaseVisitor;
import io.healbench.guard.healcore.HealCoreLexer;
import io.healbench.guard.healcore.HealCoreParser.ArgumentContext;
import io.healbench.guard.healcore.HealCoreParser.AssignedValueContext;
import io.healbench.guard.healcore.HealCoreParser.AtomExprContext;
import io.healbench.guard.healcore.HealCoreParser.AttributeTrailerContext;
import io.healbench.guard.healcore.HealCoreParser.CallTrailerContext;
import io.healbench.guard.healcore.HealCoreParser.ComprehensionForContext;
import io.healbench.guard.healcore.HealCoreParser.DeleteStatementContext;
import io.healbench.guard.healcore.HealCoreParser.DottedAsNameContext;
import io.healbench.guard.healcore.HealCoreParser.DottedNameContext;
import io.healbench.guard.healcore.HealCoreParser.DoubleStarArgumentContext;
import io.healbench.guard.healcore.HealCoreParser.ExpressionStatementContext;
import io.healbench.guard.healcore.HealCoreParser.ForStatementContext;
import io.healbench.guard.healcore.HealCoreParser.ImportAsNameContext;
import io.healbench.guard.healcore.HealCoreParser.ImportFromContext;
import io.healbench.guard.healcore.HealCoreParser.ImportNameContext;
import io.healbench.guard.healcore.HealCoreParser.KeywordArgumentContext;
import io.healbench.guard.healcore.HealCoreParser.ListAtomContext;
import io.healbench.guard.healcore.HealCoreParser.NameAtomContext;
import io.healbench.guard.healcore.HealCoreParser.ParenthesizedAtomContext;
import io.healbench.guard.healcore.HealCoreParser.PositionalArgumentContext;
import io.healbench.guard.healcore.HealCoreParser.StarArgumentContext;
import io.healbench.guard.healcore.HealCoreParser.StarExprContext;
import io.healbench.guard.healcore.HealCoreParser.StringAtomContext;
import io.healbench.guard.healcore.HealCoreParser.SubscriptTrailerContext;
import io.healbench.guard.healcore.HealCoreParser.TestlistStarExprContext;
import io.healbench.guard.healcore.HealCoreParser.TrailerContext;
import io.healbench.guard.service.gate.HealCorePolicy.NameArguments;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.tree.ParseTree;
import org.antlr.v4.runtime.tree.TerminalNode;

/**
 * The gate's rules over a HealCore parse tree: every identifier is checked where it stands (name,
 * attribute, imported name), imports against the allowlist, reflective calls for literal attribute
 * names, assignment targets for assignability, and every f-string field is parsed as HealCore.
 * Works on partial trees too (after syntax errors), so every getter may return null; in a logical
 * line with a syntax error only the rules that need no context (dunders, normalization) apply.
 */
final class HealCoreRuleVisitor extends HealCoreBaseVisitor<Void> {

    /** Parses and checks one f-string field, given wrapped in parentheses, at the given offset. */
    interface FieldChecker {
        void check(String parenthesizedExpression, SourceOffset offset, List<GateDiagnostic> out);
    }

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final HealCorePolicy policy;
    private final Diagnostics diagnostics;
    private final FieldChecker fieldChecker;
    private final boolean checkTargets;
    private final IntPredicate damaged;

    /**
     * @param syntaxClean whether the tree parsed without errors; targets are checked only then,
     *                    since a tree rebuilt by error recovery puts expressions in target places
     * @param damaged     whether the token at an index is in a logical line with a syntax error
     */
    HealCoreRuleVisitor(HealCorePolicy policy, Diagnostics diagnostics, FieldChecker fieldChecker,
                        boolean syntaxClean, IntPredicate damaged) {
        this.policy = policy;
        this.diagnostics = diagnostics;
        this.fieldChecker = fieldChecker;
        this.checkTargets = syntaxClean;
        this.damaged = damaged;
    }

    // ------------------------------------------------------------ identifiers and f-strings

    @Override
    public Void visitTerminal(TerminalNode node) {
        switch (node.getSymbol().getType()) {
            case HealCoreLexer.NAME -> checkIdentifier(node);
            case HealCoreLexer.FSTRING -> checkFString(node.getSymbol());
            default -> {
                // other tokens carry no names
            }
        }
        return null;
    }

    private void checkIdentifier(TerminalNode node) {
        Token token = node.getSymbol();
        String identifier = token.getText();
        if (!Normalizer.isNormalized(identifier, Normalizer.Form.NFKC)) {
            diagnostics.report(token, identifier, policy.reason(Rejection.IDENTIFIER_NOT_NORMALIZED));
            return;
        }
        ParseTree parent = node.getParent();
        if (damaged.test(token.getTokenIndex())) {
            checkDunder(token, identifier); // whether it is a name or an attribute here is the parser's guess
        } else if (parent instanceof AttributeTrailerContext attribute) {
            checkAttribute(token, attribute);
        } else if (parent instanceof DottedNameContext) {
            checkDunder(token, identifier);
        } else if (parent instanceof ImportAsNameContext imported && imported.NAME(0) == node) {
            return; // the imported attribute; checked with its import statement
        } else if (parent instanceof KeywordArgumentContext) {
            return; // a parameter name of the callee, not a name in the heal's namespace
        } else {
            checkName(token, parent);
        }
    }

    private void checkName(Token token, ParseTree parent) {
        String name = token.getText();
        String forbidden = policy.forbiddenNames().get(name);
        AtomExprContext expression = parent instanceof NameAtomContext atom
                && atom.getParent() instanceof AtomExprContext e ? e : null;
        if (forbidden != null) {
            diagnostics.report(token, name, forbidden);
        } else if (!checkDunder(token, name) && isReflective(name)) {
            checkReflectiveCall(token, name, expression == null ? null : callFollowing(expression, null));
        } else if (policy.singleArgumentCalls().callables().contains(name) && !isSingleArgumentCall(expression)) {
            diagnostics.report(token, "call of " + name, policy.singleArgumentCalls().reason());
        }
    }

    /** {@code type(x)}: called right here with one plain positional argument, and the result not called in turn. */
    private static boolean isSingleArgumentCall(AtomExprContext expression) {
        CallTrailerContext call = expression == null ? null : callFollowing(expression, null);
        if (call == null || callFollowing(expression, call) != null) {
            return false;
        }
        List<ArgumentContext> arguments = call.arguments() == null ? List.of() : call.arguments().argument();
        return arguments.size() == 1 && arguments.get(0) instanceof PositionalArgumentContext;
    }

    private void checkAttribute(Token token, AttributeTrailerContext attribute) {
        String name = token.getText();
        String forbidden = policy.forbiddenAttributes().get(name);
        if (forbidden != null) {
            diagnostics.report(token, name, forbidden);
        } else if (!checkDunder(token, name) && isReflective(name)) {
            CallTrailerContext call = attribute.getParent() instanceof AtomExprContext expression
                    ? callFollowing(expression, attribute) : null;
            checkReflectiveCall(token, name, call);
        } else if (policy.formatCalls().methods().contains(name)
                && attribute.getParent() instanceof AtomExprContext expression
                && expression.trailer().indexOf(attribute) == 0
                && expression.atom() instanceof StringAtomContext template && template.FSTRING().isEmpty()) {
            String refusal = formatRefusal(template);
            if (refusal != null) {
                diagnostics.report(token, "format string " + template.getText(), refusal);
            }
        }
    }

    /**
     * Why a literal template may not be formatted: an attribute its replacement fields walk is a dunder or a
     * forbidden attribute, or its escapes cannot be read (healrt's re-check sees the decoded value; so must the gate).
     */
    private String formatRefusal(StringAtomContext template) {
        if (literalParts(template).stream().anyMatch(LiteralPart::bytes)) {
            return null; // bytes have no format method: nothing is walked
        }
        Optional<String> value = stringValue(template);
        if (value.isEmpty()) {
            return "a format string whose escapes the gate cannot decode cannot be cleared of attribute walks";
        }
        for (String attribute : FormatStringFields.attributes(value.get()).orElse(List.of())) {
            if (isDunder(attribute) || attribute.startsWith("__")) {
                return "its replacement field reads attribute '" + attribute + "': " + policy.reason(Rejection.DUNDER);
            }
            String forbidden = policy.forbiddenAttributes().get(attribute);
            if (forbidden != null) {
                return "its replacement field reads attribute '" + attribute + "': " + forbidden;
            }
        }
        return null;
    }

    /** The value of a str literal (implicitly concatenated parts, escapes decoded unless raw). */
    private static Optional<String> stringValue(StringAtomContext string) {
        StringBuilder value = new StringBuilder();
        for (LiteralPart part : literalParts(string)) {
            Optional<String> decoded = part.raw() ? Optional.of(part.content()) : FormatStringFields.decodeEscapes(part.content());
            if (decoded.isEmpty()) {
                return Optional.empty();
            }
            value.append(decoded.get());
        }
        return Optional.of(value.toString());
    }

    /** One quoted part of a string atom: its body between the quotes, and what its prefix says. */
    private record LiteralPart(String content, boolean bytes, boolean raw) {}

    private static List<LiteralPart> literalParts(StringAtomContext string) {
        List<LiteralPart> parts = new ArrayList<>();
        for (TerminalNode part : string.STRING()) {
            String text = part.getText();
            int quote = 0;
            while (Character.isLetter(text.charAt(quote))) {
                quote++;
            }
            String prefix = text.substring(0, quote).toLowerCase();
            int quoteLength = text.startsWith("'''", quote) || text.startsWith("\"\"\"", quote) ? 3 : 1;
            parts.add(new LiteralPart(text.substring(quote + quoteLength, text.length() - quoteLength),
                    prefix.contains("b"), prefix.contains("r")));
        }
        return parts;
    }

    /** Reports a dunder identifier; returns whether it was one. */
    private boolean checkDunder(Token token, String identifier) {
        if (isDunder(identifier)) {
            diagnostics.report(token, identifier, policy.reason(Rejection.DUNDER));
            return true;
        }
        return false;
    }

    private void checkFString(Token token) {
        String text = token.getText();
        FStringFields.Scan scan = FStringFields.scan(text);
        for (FStringFields.Field field : scan.fields()) {
            int[] at = positionIn(token, field.start());
            // the field is parsed as "(" + expression + ")": its first character is one column left
            SourceOffset fieldOffset = diagnostics.offset().nested(at[0], at[1] - 1);
            fieldChecker.check("(" + field.expression() + ")", fieldOffset, diagnostics.sink());
        }
        if (scan.malformedAt() >= 0) {
            int[] at = positionIn(token, scan.malformedAt());
            diagnostics.report(at[0], at[1], "f-string", policy.reason(Rejection.FSTRING_MALFORMED));
        }
    }

    /** Unit position (1-based line, 0-based column) of a character of a token; lines end at '\n' as in ANTLR. */
    private static int[] positionIn(Token token, int index) {
        String before = token.getText().substring(0, index);
        int lastNewline = before.lastIndexOf('\n');
        if (lastNewline < 0) {
            return new int[] {token.getLine(), token.getCharPositionInLine() + index};
        }
        int newlines = (int) before.chars().filter(c -> c == '\n').count();
        return new int[] {token.getLine() + newlines, index - lastNewline - 1};
    }

    // ------------------------------------------------------------ reflective calls

    private boolean isReflective(String name) {
        return policy.reflectiveCalls().callables().containsKey(name);
    }

    /** The call trailer right after the given trailer (or right after the atom when null), if any. */
    private static CallTrailerContext callFollowing(AtomExprContext expression, TrailerContext after) {
        List<TrailerContext> trailers = expression.trailer();
        int next = after == null ? 0 : trailers.indexOf(after) + 1;
        return next < trailers.size() && trailers.get(next) instanceof CallTrailerContext call ? call : null;
    }

    /**
     * A reflective callable is HealCore only when called directly with literal attribute names
     * that are neither dunders nor forbidden attributes, and without * or ** arguments.
     */
    private void checkReflectiveCall(Token token, String callable, CallTrailerContext call) {
        String refusal = call == null ? policy.reflectiveCalls().reason() : refusalForArguments(callable, call);
        if (refusal != null) {
            diagnostics.report(token, callable, refusal);
        }
    }

    private String refusalForArguments(String callable, CallTrailerContext call) {
        List<ArgumentContext> arguments = call.arguments() == null ? List.of() : call.arguments().argument();
        List<PositionalArgumentContext> positional = new ArrayList<>();
        for (ArgumentContext argument : arguments) {
            if (argument instanceof StarArgumentContext || argument instanceof DoubleStarArgumentContext) {
                return policy.reflectiveCalls().reason();
            }
            if (argument instanceof PositionalArgumentContext p) {
                positional.add(p);
            }
        }
        NameArguments which = policy.reflectiveCalls().callables().get(callable);
        List<PositionalArgumentContext> names = switch (which) {
            case FIRST -> positional.size() > 0 ? positional.subList(0, 1) : List.of();
            case SECOND -> positional.size() > 1 ? positional.subList(1, 2) : List.of();
            case EVERY -> positional;
        };
        if (names.isEmpty()) {
            return policy.reflectiveCalls().reason();
        }
        for (PositionalArgumentContext argument : names) {
            String literal = literalString(argument);
            if (literal == null) {
                return policy.reflectiveCalls().reason();
            }
            // attrgetter resolves dotted paths; the others take one attribute name
            String[] parts = which == NameArguments.EVERY ? literal.split("\\.", -1) : new String[] {literal};
            for (String part : parts) {
                if (!IDENTIFIER.matcher(part).matches()) {
                    return policy.reflectiveCalls().reason();
                }
                if (isDunder(part)) {
                    return policy.reason(Rejection.DUNDER);
                }
                if (isReflective(part)) {
                    return policy.reflectiveCalls().reason(); // getattr(operator, 'attrgetter') is attrgetter uncalled
                }
                String forbidden = policy.forbiddenAttributes().getOrDefault(part, policy.forbiddenNames().get(part));
                if (forbidden != null) {
                    return forbidden;
                }
            }
        }
        return null;
    }

    /** The value of a plain str literal argument without escapes, or null for anything else. */
    private static String literalString(PositionalArgumentContext argument) {
        AtomExprContext expression = soleAtomExpr(argument.test());
        if (expression == null || !expression.trailer().isEmpty()
                || !(expression.atom() instanceof StringAtomContext string) || !string.FSTRING().isEmpty()) {
            return null;
        }
        StringBuilder value = new StringBuilder();
        for (LiteralPart part : literalParts(string)) {
            if (part.bytes() || part.content().indexOf('\\') >= 0) {
                return null; // bytes are no attribute names; escapes could spell a dunder
            }
            value.append(part.content());
        }
        return value.toString();
    }

    // ------------------------------------------------------------ imports

    @Override
    public Void visitImportName(ImportNameContext ctx) {
        if (damaged.test(ctx.getStart().getTokenIndex())) {
            return visitChildren(ctx);
        }
        for (DottedAsNameContext imported : ctx.dottedAsName()) {
            DottedNameContext module = imported.dottedName();
            if (module != null && !policy.allowsModule(module.getText())) {
                reportModule(module, "import " + module.getText());
            }
        }
        return visitChildren(ctx);
    }

    @Override
    public Void visitImportFrom(ImportFromContext ctx) {
        DottedNameContext module = ctx.dottedName();
        if (module == null || damaged.test(ctx.getStart().getTokenIndex())) {
            return visitChildren(ctx);
        }
        String names = ctx.importAsNames() == null ? "" : ctx.importAsNames().importAsName().stream()
                .map(n -> n.NAME(0).getText()).collect(Collectors.joining(", "));
        if (!policy.allowsModule(module.getText())) {
            reportModule(module, "from " + module.getText() + " import " + names);
        } else if (ctx.importAsNames() != null) {
            for (ImportAsNameContext imported : ctx.importAsNames().importAsName()) {
                Token name = imported.NAME(0).getSymbol();
                String construct = "from " + module.getText() + " import " + name.getText();
                String forbidden = policy.forbiddenAttributes()
                        .getOrDefault(name.getText(), policy.forbiddenNames().get(name.getText()));
                if (forbidden != null) {
                    diagnostics.report(name, construct, forbidden);
                } else if (isDunder(name.getText())) {
                    diagnostics.report(name, construct, policy.reason(Rejection.DUNDER));
                } else if (isReflective(name.getText()) && imported.NAME(1) != null
                        && !imported.NAME(1).getText().equals(name.getText())) {
                    // under another name its calls would escape the reflective-call rule
                    diagnostics.report(name, construct + " as " + imported.NAME(1).getText(),
                            policy.reflectiveCalls().reason());
                }
            }
        }
        return visitChildren(ctx);
    }

    private void reportModule(DottedNameContext module, String construct) {
        String root = module.NAME(0).getText();
        diagnostics.report(module.getStart(), construct,
                policy.reason(Rejection.IMPORT_NOT_ALLOWED).replace("{module}", root));
    }

    // ------------------------------------------------------------ assignment targets

    @Override
    public Void visitExpressionStatement(ExpressionStatementContext ctx) {
        TestlistStarExprContext first = ctx.testlistStarExpr();
        if (first != null) {
            if (ctx.annotatedAssignment() != null || ctx.augmentedAssignment() != null) {
                checkSingleTarget(first);
            } else if (!ctx.assignedValue().isEmpty()) {
                checkTargetList(first);
                List<AssignedValueContext> values = ctx.assignedValue();
                for (AssignedValueContext value : values.subList(0, values.size() - 1)) {
                    checkTargetList(value.testlistStarExpr());
                }
            }
        }
        return visitChildren(ctx);
    }

    @Override
    public Void visitForStatement(ForStatementContext ctx) {
        checkTargetList(ctx.exprlist());
        return visitChildren(ctx);
    }

    @Override
    public Void visitComprehensionFor(ComprehensionForContext ctx) {
        checkTargetList(ctx.exprlist());
        return visitChildren(ctx);
    }

    @Override
    public Void visitDeleteStatement(DeleteStatementContext ctx) {
        checkTargetList(ctx.exprlist());
        return visitChildren(ctx);
    }

    /** Annotated and augmented assignment: one name, attribute or subscript, possibly parenthesized: (x) += 1. */
    private void checkSingleTarget(TestlistStarExprContext targets) {
        if (checkTargets && (targets.getChildCount() != 1
                || !isSimpleTarget(withoutParentheses(soleAtomExpr(targets.getChild(0)))))) {
            diagnostics.report(targets.getStart(), targets.getText(), policy.reason(Rejection.ASSIGNMENT_TARGET));
        }
    }

    /** The expression inside redundant parentheses, ((x)) -> x; a tuple or a parenthesized walrus stays as it is. */
    private static AtomExprContext withoutParentheses(AtomExprContext expression) {
        AtomExprContext current = expression;
        while (current != null && current.trailer().isEmpty()
                && current.atom() instanceof ParenthesizedAtomContext parenthesized
                && parenthesized.parenthesizedElements() != null
                && parenthesized.parenthesizedElements().getChildCount() == 1) {
            AtomExprContext inner = soleAtomExpr(parenthesized.parenthesizedElements().getChild(0));
            if (inner == null) {
                return current;
            }
            current = inner;
        }
        return current;
    }

    /** The elements of a target list (testlistStarExpr or exprlist); commas are skipped. */
    private void checkTargetList(ParserRuleContext targets) {
        if (!checkTargets || targets == null) {
            return;
        }
        for (ParseTree element : targets.children) {
            if (element instanceof ParserRuleContext target && !isTarget(target)) {
                diagnostics.report(target.getStart(), target.getText(), policy.reason(Rejection.ASSIGNMENT_TARGET));
            }
        }
    }

    private static boolean isTarget(ParserRuleContext element) {
        if (element instanceof StarExprContext starred) {
            return starred.expr() != null && isTarget(starred.expr());
        }
        AtomExprContext expression = soleAtomExpr(element);
        if (expression == null) {
            return false;
        }
        if (isSimpleTarget(expression)) {
            return true;
        }
        if (!expression.trailer().isEmpty()) {
            return false;
        }
        if (expression.atom() instanceof ParenthesizedAtomContext parenthesized) {
            return parenthesized.parenthesizedElements() == null || allTargets(parenthesized.parenthesizedElements());
        }
        if (expression.atom() instanceof ListAtomContext list) {
            return list.listElements() == null
                    || list.listElements().comprehensionFor() == null && allTargets(list.listElements());
        }
        return false;
    }

    private static boolean allTargets(ParserRuleContext elements) {
        for (ParseTree element : elements.children) {
            if (element instanceof ParserRuleContext target && !isTarget(target)) {
                return false;
            }
        }
        return true;
    }

    /** A name, or anything ending in an attribute or subscript. */
    private static boolean isSimpleTarget(AtomExprContext expression) {
        if (expression == null) {
            return false;
        }
        List<TrailerContext> trailers = expression.trailer();
        if (trailers.isEmpty()) {
            return expression.atom() instanceof NameAtomContext;
        }
        TrailerContext last = trailers.get(trailers.size() - 1);
        return last instanceof AttributeTrailerContext || last instanceof SubscriptTrailerContext;
    }

    /**
     * The atom expression an expression consists of, when no operator stands above it: the
     * precedence rules then each have exactly one child.
     */
    private static AtomExprContext soleAtomExpr(ParseTree node) {
        ParseTree current = node;
        while (!(current instanceof AtomExprContext)) {
            if (!(current instanceof ParserRuleContext) || current.getChildCount() != 1) {
                return null;
            }
            current = current.getChild(0);
        }
        return (AtomExprContext) current;
    }

    private static boolean isDunder(String identifier) {
        return identifier.length() > 4 && identifier.startsWith("__") && identifier.endsWith("__");
    }
}
