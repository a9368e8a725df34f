package io.healbench.guard.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import io.healbench.guard.fuzz.ProgramWriter.Slot;

/**
 * Random programs inside HealCore, generated from a model of the HealCore grammar written for
 * the fuzzer (not from the gate's parser): statements of every kind the grammar has, expressions
 * by precedence level, literals of every kind, layout variations (indent widths, ';' lists,
 * single-line bodies, comments, blank lines, backslash and bracket continuations). Every program
 * is valid Python 3.11; names come from {@link Vocabulary}, so none is forbidden.
 *
 * <p>Every statement position and every atom goes through the {@link ProgramWriter}, which may put
 * an excluded construct there instead.
 */
final class GrammarPrograms {

    private static final int MAX_BLOCK_DEPTH = 3;

    // precedence levels, loosest first (Python's expression grammar)
    private static final int TEST = 0;
    private static final int OR = 1;
    private static final int AND = 2;
    private static final int NOT = 3;
    private static final int COMPARISON = 4;
    private static final int BIT_OR = 5;
    private static final int BIT_XOR = 6;
    private static final int BIT_AND = 7;
    private static final int SHIFT = 8;
    private static final int ARITH = 9;
    private static final int TERM = 10;
    private static final int FACTOR = 11;

    private static final List<String> NUMBERS = List.of(
            "0", "00", "0_0", "7", "42", "1_000", "0x1F", "0X_ff", "0o17", "0O7", "0b1010", "0B_1", "1.5", ".5", "1.",
            "1e5", "1.5E-3", "2j", "1.5j", "1e3J", "1_0.5_0", "3.14", "0.0", "10", "255", "1e-9");
    private static final List<String> AUGMENTED = List.of(
            "+=", "-=", "*=", "@=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "**=", "//=");
    private static final List<String> COMPARISONS = List.of(
            "<", ">", "==", ">=", "<=", "!=", "in", "not in", "is", "is not");
    private static final List<String> WORDS = List.of(
            "a", "key", "value", "x y", "none", "N/A", "-", ".", ", ", ": ", "()", "[]", "<>", "=", "!", "?", "%", "+",
            "café", "😀", "变量", " ", "0", "#", "@", "$", "|", "~", "^", "&", "*");
    private static final List<String> ESCAPES = List.of(
            "\\n", "\\t", "\\\\", "\\x41", "\\u00e9", "\\N{BULLET}", "\\N{LEFT CURLY BRACKET}", "\\0", "\\d");
    private static final List<String> F_PREFIXES = List.of("f", "F", "rf", "fr", "Rf", "fR", "RF", "FR");
    private static final List<String> STRING_PREFIXES = List.of("", "", "", "", "u", "U", "r", "R");
    private static final List<String> BYTES_PREFIXES = List.of("b", "B", "rb", "Rb", "bR", "BR", "br");
    private static final List<String> SPECS = List.of(
            ">10", "<5", "^8", ".2f", ",", "08.3f", "x", "#x", "e", "%", "+", " ", "_", "=^10", "!", ":", "d");

    /** An expression's text and the precedence level it binds at. */
    private record Leveled(String text, int level) {
    }

    /** An atom and whether trailers (calls, subscripts, attributes) may follow it. */
    private record Atom(String text, boolean trailerable) {
    }

    private final Random r;
    private final Vocabulary v;
    private final ProgramWriter w;
    private final StringBuilder out = new StringBuilder();

    GrammarPrograms(Random random, Vocabulary vocabulary, ProgramWriter writer) {
        this.r = random;
        this.v = vocabulary;
        this.w = writer;
    }

    String program() {
        if (chance(8)) {
            out.append(comment()).append('\n');
        }
        if (chance(10)) {
            out.append('\n');
        }
        block("", 1 + r.nextInt(6), false, 0);
        lineSlot("");
        if (chance(10) && out.length() > 0) {
            out.setLength(out.length() - 1); // no newline at the end
        }
        return out.toString();
    }

    // ------------------------------------------------------------ statements

    private void block(String indent, int statements, boolean inLoop, int depth) {
        for (int i = 0; i < statements; i++) {
            lineSlot(indent);
            if (chance(15)) {
                out.append(" ".repeat(r.nextInt(9))).append(chance(2) ? comment() : "").append('\n');
            }
            statement(indent, inLoop, depth);
        }
    }

    private void lineSlot(String indent) {
        String injected = w.slot(Slot.LINE, Ctx.TOP, indent);
        if (injected != null) {
            out.append(indent).append(injected).append('\n');
        }
    }

    private void statement(String indent, boolean inLoop, int depth) {
        int kind = depth >= MAX_BLOCK_DEPTH ? 0 : r.nextInt(20 + 8 * depth);
        if (kind < 12 || kind >= 20) {
            out.append(indent).append(smallStatements(inLoop)).append(lineEnd()).append('\n');
        } else if (kind < 15) {
            ifStatement(indent, inLoop, depth);
        } else if (kind < 17) {
            loop(indent, "for " + forTargets() + " in " + testlist(Ctx.TOP, budget()), inLoop, depth);
        } else if (kind < 18) {
            loop(indent, "while " + condition(), inLoop, depth);
        } else {
            tryStatement(indent, inLoop, depth);
        }
    }

    private void ifStatement(String indent, boolean inLoop, int depth) {
        out.append(indent).append("if ").append(condition()).append(':');
        body(indent, inLoop, depth);
        for (int i = r.nextInt(4) - 1; i > 0; i--) {
            out.append(indent).append("elif ").append(condition()).append(':');
            body(indent, inLoop, depth);
        }
        if (chance(3)) {
            out.append(indent).append("else:");
            body(indent, inLoop, depth);
        }
    }

    private void loop(String indent, String header, boolean inLoop, int depth) {
        out.append(indent).append(header).append(':');
        body(indent, true, depth);
        if (chance(5)) {
            out.append(indent).append("else:");
            body(indent, inLoop, depth); // break in a loop's else belongs to the enclosing loop
        }
    }

    private void tryStatement(String indent, boolean inLoop, int depth) {
        out.append(indent).append("try:");
        body(indent, inLoop, depth);
        if (chance(5)) {
            out.append(indent).append("finally:");
            body(indent, inLoop, depth);
            return;
        }
        int clauses = 1 + r.nextInt(3);
        for (int i = 0; i < clauses; i++) {
            boolean bare = i == clauses - 1 && chance(4);
            out.append(indent).append(bare ? "except" : "except " + exceptionType()
                    + (chance(3) ? " as " + name() : "")).append(':');
            body(indent, inLoop, depth);
        }
        if (chance(4)) {
            out.append(indent).append("else:");
            body(indent, inLoop, depth);
        }
        if (chance(4)) {
            out.append(indent).append("finally:");
            body(indent, inLoop, depth);
        }
    }

    /** After a header's ':': simple statements on the same line, or an indented block. */
    private void body(String indent, boolean inLoop, int depth) {
        if (chance(4)) {
            out.append(' ').append(smallStatements(inLoop)).append(lineEnd()).append('\n');
        } else {
            out.append(lineEnd()).append('\n');
            block(indent + unit(), 1 + r.nextInt(2), inLoop, depth + 1);
        }
    }

    private String smallStatements(boolean inLoop) {
        int count = chance(6) ? 2 + r.nextInt(2) : 1;
        List<String> statements = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String injected = w.slot(Slot.SMALL, Ctx.TOP, "");
            if (injected != null) {
                statements.add(injected);
            }
            statements.add(small(inLoop));
        }
        String joined = String.join(chance(3) ? ";" : "; ", statements);
        return chance(12) ? joined + ";" : joined;
    }

    private String small(boolean inLoop) {
        int k = r.nextInt(100);
        if (inLoop && k < 5) {
            return chance(2) ? "break" : "continue";
        }
        if (k < 35) {
            return assignment();
        } else if (k < 50) {
            return callStatement();
        } else if (k < 57) {
            return simpleTarget() + " " + pick(AUGMENTED) + " " + testlist(Ctx.TOP, budget());
        } else if (k < 62) {
            return simpleTarget() + ": " + test(Ctx.TOP, 1) + (chance(2) ? " = " + testlistStar(Ctx.TOP, budget()) : "");
        } else if (k < 68) {
            return "_return_ = " + testlistStar(Ctx.TOP, budget());
        } else if (k < 71) {
            return "pass";
        } else if (k < 75) {
            return "del " + delTarget() + (chance(3) ? ", " + delTarget() : "");
        } else if (k < 79) {
            return "assert " + test(Ctx.TOP, budget()) + (chance(2) ? ", " + test(Ctx.TOP, 1) : "");
        } else if (k < 83) {
            return raiseStatement();
        } else if (k < 92) {
            return importStatement();
        }
        return testlistStar(Ctx.TOP, budget());
    }

    private String assignment() {
        StringBuilder s = new StringBuilder(targetList());
        if (chance(6)) {
            s.append(" = ").append(targetList());
        }
        s.append(chance(30) ? " = \\\n" + " ".repeat(r.nextInt(9)) : chance(20) ? "\t=\t" : " = ");
        return s.append(testlistStar(Ctx.TOP, budget())).toString();
    }

    private String callStatement() {
        String head = chance(2) ? atomSlot(Ctx.TOP, v.callable(r)) : primary(Ctx.TOP) + "." + v.attribute(r);
        return head + "(" + arguments(Ctx.TOP, budget()) + ")";
    }

    private String raiseStatement() {
        return switch (r.nextInt(5)) {
            case 0 -> "raise";
            case 1 -> "raise " + v.exception(r);
            case 2 -> "raise " + v.exception(r) + "(" + arguments(Ctx.TOP, 1) + ")";
            case 3 -> "raise " + v.exception(r) + "(" + arguments(Ctx.TOP, 1) + ") from " + (chance(2) ? "None" : name());
            default -> "raise " + test(Ctx.TOP, 1);
        };
    }

    private String importStatement() {
        return switch (r.nextInt(5)) {
            case 0 -> "import " + v.module(r);
            case 1 -> "import " + v.module(r) + " as " + name() + ", " + v.module(r);
            case 2 -> "from " + v.module(r) + " import " + v.importable(r) + (chance(2) ? " as " + name() : "");
            case 3 -> "from " + v.module(r) + " import " + v.importable(r) + ", " + v.importable(r);
            default -> "from " + v.module(r) + " import (" + (chance(2) ? "\n    " : "") + v.importable(r) + ","
                    + (chance(2) ? "\n    " : " ") + v.importable(r) + " as " + name() + (chance(2) ? ",\n" : "") + ")";
        };
    }

    private String exceptionType() {
        return switch (r.nextInt(6)) {
            case 0 -> "(" + v.exception(r) + ", " + v.exception(r) + ")";
            case 1 -> expr(OR, Ctx.TOP, 1);
            default -> v.exception(r);
        };
    }

    private String condition() {
        return chance(8) ? name() + " := " + test(Ctx.TOP, budget()) : test(Ctx.TOP, budget());
    }

    // ------------------------------------------------------------ targets

    private String targetList() {
        return switch (r.nextInt(12)) {
            case 0 -> target() + ", " + target();
            case 1 -> target() + ", *" + name();
            case 2 -> "(" + target() + ", " + target() + "), [" + target() + ", *" + name() + "]";
            case 3 -> target() + ",";
            case 4 -> "[" + target() + ", " + target() + "]";
            case 5 -> "(" + target() + ")";
            default -> target();
        };
    }

    private String target() {
        int k = r.nextInt(10);
        if (k < 6) {
            return name();
        }
        return k < 8 ? primary(Ctx.TOP) + "." + v.attribute(r) : primary(Ctx.TOP) + "[" + subscripts(Ctx.TOP, 1) + "]";
    }

    /** The single target of an augmented or annotated assignment. */
    private String simpleTarget() {
        int k = r.nextInt(12);
        if (k < 7) {
            return name();
        } else if (k < 9) {
            return primary(Ctx.TOP) + "." + v.attribute(r);
        } else if (k < 11) {
            return primary(Ctx.TOP) + "[" + subscripts(Ctx.TOP, 1) + "]";
        }
        return "(" + name() + ")";
    }

    private String delTarget() {
        return switch (r.nextInt(6)) {
            case 0 -> primary(Ctx.TOP) + "." + v.attribute(r);
            case 1 -> primary(Ctx.TOP) + "[" + subscripts(Ctx.TOP, 1) + "]";
            case 2 -> "(" + name() + ", " + name() + ")";
            case 3 -> "[" + name() + "]";
            default -> name();
        };
    }

    private String forTargets() {
        return switch (r.nextInt(8)) {
            case 0 -> name() + ", " + name();
            case 1 -> "(" + name() + ", " + name() + "), " + name();
            case 2 -> name() + ", *" + name();
            case 3 -> primary(Ctx.TOP) + "." + v.attribute(r);
            default -> name();
        };
    }

    /** A name, possibly followed by a trailer: the part of an attribute or subscript target before its last trailer. */
    private String primary(Ctx c) {
        String base = atomSlot(c, name());
        return chance(4) ? base + trailer(c, 1) : base;
    }

    // ------------------------------------------------------------ expressions

    private String testlist(Ctx c, int budget) {
        return chance(8) ? test(c, budget) + ", " + test(c, budget) : test(c, budget);
    }

    private String testlistStar(Ctx c, int budget) {
        return switch (r.nextInt(12)) {
            case 0 -> test(c, budget) + ", " + test(c, budget);
            case 1 -> "*" + expr(BIT_OR, c, budget) + ", " + test(c, budget);
            default -> test(c, budget);
        };
    }

    String test(Ctx c, int budget) {
        return expr(TEST, c, budget);
    }

    /** An expression that binds at least as tightly as minLevel (parenthesized when it would not). */
    private String expr(int minLevel, Ctx c, int budget) {
        if (budget <= 0 || chance(2)) {
            return atomExpr(c, budget);
        }
        int b = budget - 1;
        Leveled e = switch (r.nextInt(13)) {
            case 0 -> new Leveled(expr(OR, c, b) + " if " + expr(OR, c, b) + " else " + expr(TEST, c, b), TEST);
            case 1 -> new Leveled(expr(AND, c, b) + " or " + expr(AND, c, b), OR);
            case 2 -> new Leveled(expr(NOT, c, b) + " and " + expr(NOT, c, b), AND);
            case 3 -> new Leveled("not " + expr(NOT, c, b), NOT);
            case 4, 5 -> new Leveled(expr(BIT_OR, c, b) + " " + pick(COMPARISONS) + " " + expr(BIT_OR, c, b)
                    + (chance(4) ? " " + pick(COMPARISONS) + " " + expr(BIT_OR, c, b) : ""), COMPARISON);
            case 6 -> new Leveled(expr(BIT_OR, c, b) + " | " + expr(BIT_XOR, c, b), BIT_OR);
            case 7 -> new Leveled(expr(BIT_XOR, c, b) + " ^ " + expr(BIT_AND, c, b), BIT_XOR);
            case 8 -> new Leveled(expr(BIT_AND, c, b) + " & " + expr(SHIFT, c, b), BIT_AND);
            case 9 -> new Leveled(expr(SHIFT, c, b) + (chance(2) ? " << " : " >> ") + expr(ARITH, c, b), SHIFT);
            case 10 -> new Leveled(expr(ARITH, c, b) + (chance(2) ? " + " : " - ") + expr(TERM, c, b), ARITH);
            case 11 -> new Leveled(expr(TERM, c, b) + " " + pick(List.of("*", "/", "//", "%", "@")) + " "
                    + expr(FACTOR, c, b), TERM);
            default -> chance(2)
                    ? new Leveled(pick(List.of("-", "+", "~")) + expr(FACTOR, c, b), FACTOR)
                    : new Leveled(atomExpr(c, b) + " ** " + expr(FACTOR, c, b), FACTOR + 1);
        };
        return e.level() < minLevel ? "(" + e.text() + ")" : e.text();
    }

    private String atomExpr(Ctx c, int budget) {
        Atom atom = atom(c, budget);
        if (!atom.trailerable()) {
            return atom.text();
        }
        StringBuilder s = new StringBuilder(atom.text());
        for (int n = budget <= 0 || chance(2) ? 0 : 1 + r.nextInt(2); n > 0; n--) {
            s.append(trailer(c, budget - 1));
        }
        return s.toString();
    }

    private String trailer(Ctx c, int budget) {
        return switch (r.nextInt(3)) {
            case 0 -> "." + v.attribute(r);
            case 1 -> "[" + subscripts(c, budget) + "]";
            default -> "(" + arguments(c, budget) + ")";
        };
    }

    /** An atom slot whose usual content is the given name. */
    private String atomSlot(Ctx c, String name) {
        String injected = w.slot(Slot.ATOM, c, "");
        return injected != null ? injected : name;
    }

    private Atom atom(Ctx c, int budget) {
        String injected = w.slot(Slot.ATOM, c, "");
        if (injected != null) {
            return new Atom(injected, true);
        }
        int b = budget - 1;
        int k = r.nextInt(budget <= 0 ? 57 : 100);
        if (k < 30) {
            return new Atom(name(), true);
        } else if (k < 40) {
            return new Atom(chance(3) ? String.valueOf(r.nextInt(100_000)) : pick(NUMBERS), false);
        } else if (k < 52) {
            String strings = strings(c, b);
            return strings == null ? new Atom(name(), true) : new Atom(strings, true);
        } else if (k < 57) {
            return new Atom(pick(List.of("None", "True", "False", "...")), false);
        } else if (k < 61) {
            return new Atom("(" + test(c, b) + ")", true);
        } else if (k < 65) {
            return new Atom(tuple(c, b), true);
        } else if (k < 70) {
            return new Atom("[" + elements(c, b, r.nextInt(4)) + "]", true);
        } else if (k < 74) {
            return new Atom(dict(c, b), true);
        } else if (k < 77) {
            return new Atom("{" + elements(c, b, 1 + r.nextInt(3)) + "}", true);
        } else if (k < 85) {
            return new Atom(comprehension(c, b), true);
        } else if (k < 87 && !c.comprehension()) {
            return new Atom("(" + name() + " := " + test(c, b) + ")", true);
        } else if (k < 95) {
            return new Atom(v.callable(r) + "(" + arguments(c, b) + ")", true);
        }
        String reflective = reflectiveCall(c, b);
        return new Atom(reflective == null ? name() : reflective, true);
    }

    private String tuple(Ctx c, int budget) {
        return switch (r.nextInt(3)) {
            case 0 -> "()";
            case 1 -> "(" + element(c, budget) + ",)";
            default -> "(" + elements(c, budget, 2 + r.nextInt(2)) + (chance(4) ? ",)" : ")");
        };
    }

    private String elements(Ctx c, int budget, int count) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            items.add(element(c, budget));
        }
        return String.join(separator(c), items);
    }

    private String element(Ctx c, int budget) {
        return chance(7) ? "*" + expr(BIT_OR, c, budget) : test(c, budget);
    }

    private String dict(Ctx c, int budget) {
        List<String> entries = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            entries.add(chance(6) ? "**" + expr(BIT_OR, c, budget) : test(c, budget) + ": " + test(c, budget));
        }
        return "{" + String.join(separator(c), entries) + "}";
    }

    private String comprehension(Ctx c, int budget) {
        Ctx in = c.inComprehension();
        int kind = r.nextInt(4);
        StringBuilder s = new StringBuilder(kind == 0 ? test(in, budget) + ": " + test(in, budget) : test(in, budget));
        s.append(" for ").append(comprehensionTarget()).append(" in ").append(expr(OR, in, budget));
        for (int i = r.nextInt(3); i > 0; i--) {
            s.append(chance(2) ? " if " + expr(OR, in, budget)
                    : " for " + comprehensionTarget() + " in " + expr(OR, in, budget));
        }
        return kind <= 1 ? "{" + s + "}" : "[" + s + "]";
    }

    private String comprehensionTarget() {
        return switch (r.nextInt(5)) {
            case 0 -> name() + ", " + name();
            case 1 -> "(" + name() + ", " + name() + ")";
            default -> name();
        };
    }

    private String arguments(Ctx c, int budget) {
        List<String> args = new ArrayList<>();
        for (int i = r.nextInt(3); i > 0; i--) {
            int k = r.nextInt(12);
            if (k == 0) {
                args.add("*" + test(c, budget));
            } else if (k == 1 && !c.comprehension()) {
                args.add(name() + " := " + test(c, budget));
            } else {
                args.add(test(c, budget));
            }
        }
        Set<String> keywords = new LinkedHashSet<>();
        for (int i = chance(4) ? 1 + r.nextInt(2) : 0; i > 0; i--) {
            if (chance(6)) {
                args.add("**" + test(c, budget));
            } else {
                String keyword = chance(40) ? pick(List.copyOf(v.policy().forbiddenNames().keySet())) : name();
                if (keyword.startsWith("__") || !keywords.add(keyword)) {
                    continue; // a keyword given twice is a SyntaxError
                }
                args.add(keyword + "=" + test(c, budget));
            }
        }
        String joined = String.join(separator(c), args);
        return !args.isEmpty() && chance(12) ? joined + "," : joined;
    }

    private String subscripts(Ctx c, int budget) {
        String first = subscript(c, budget);
        return switch (r.nextInt(10)) {
            case 0 -> first + ", " + subscript(c, budget);
            case 1 -> first + ",";
            default -> first;
        };
    }

    private String subscript(Ctx c, int budget) {
        int k = r.nextInt(20);
        if (k < 14) {
            return test(c, budget);
        } else if (k == 14) {
            return "...";
        }
        String lower = chance(2) ? test(c, budget) : "";
        String upper = chance(2) ? test(c, budget) : "";
        return lower + ":" + upper + (chance(3) ? ":" + (chance(2) ? test(c, budget) : "") : "");
    }

    /** getattr and friends with literal attribute names: HealCore. Null where no literal may stand. */
    private String reflectiveCall(Ctx c, int budget) {
        String attribute = attributeLiteral(c);
        if (attribute == null) {
            return null;
        }
        return switch (r.nextInt(7)) {
            case 0 -> "getattr(" + test(c, budget) + ", " + attribute + ")";
            case 1 -> "getattr(" + test(c, budget) + ", " + attribute + ", " + test(c, budget) + ")";
            case 2 -> "hasattr(" + test(c, budget) + ", " + attribute + ")";
            case 3 -> "setattr(" + test(c, budget) + ", " + attribute + ", " + test(c, budget) + ")";
            case 4 -> "delattr(" + test(c, budget) + ", " + attribute + ")";
            case 5 -> "operator.attrgetter(" + attribute + (chance(2) ? ", " + quoted(c, v.importable(r) + "."
                    + v.importable(r)) : "") + ")";
            default -> "operator.methodcaller(" + attribute + (chance(2) ? ", " + test(c, budget) : "") + ")";
        };
    }

    /** A literal naming an allowed attribute, in one of the spellings the gate reads as a plain literal. */
    private String attributeLiteral(Ctx c) {
        String attribute = v.importable(r);
        char quote = quote(c);
        if (quote == 0) {
            return null;
        }
        return switch (r.nextInt(6)) {
            case 0 -> attribute.length() > 1
                    ? quote + attribute.substring(0, 1) + quote + " " + quote + attribute.substring(1) + quote
                    : quote + attribute + quote;
            case 1 -> pick(List.of("u", "U", "r", "R")) + quote + attribute + quote;
            case 2 -> c.field() ? quote + attribute + quote : String.valueOf(quote).repeat(3) + attribute
                    + String.valueOf(quote).repeat(3);
            default -> quote + attribute + quote;
        };
    }

    // ------------------------------------------------------------ literals

    /** One to three adjacent string literals (all str or all bytes), or null where no quote may stand. */
    private String strings(Ctx c, int budget) {
        if (c.quotes().isEmpty()) {
            return null;
        }
        boolean bytes = chance(8);
        List<String> parts = new ArrayList<>();
        for (int i = chance(6) ? 2 + r.nextInt(2) : 1; i > 0; i--) {
            parts.add(bytes ? bytesLiteral(c) : stringLiteral(c, budget));
        }
        return String.join(" ", parts);
    }

    private String stringLiteral(Ctx c, int budget) {
        char quote = quote(c);
        int k = r.nextInt(10);
        if (k < 3 && c.fieldDepth() < 2) {
            return fstring(c, quote, budget);
        }
        if (k < 4 && !c.field()) {
            String q3 = String.valueOf(quote).repeat(3);
            return pick(List.of("", "r", "u")) + q3 + text(c, quote, false, true) + q3;
        }
        String prefix = pick(STRING_PREFIXES);
        return prefix + quote + text(c, quote, prefix.equalsIgnoreCase("r"), false) + quote;
    }

    private String bytesLiteral(Ctx c) {
        String prefix = pick(BYTES_PREFIXES);
        boolean raw = prefix.toLowerCase().contains("r");
        char quote = quote(c);
        StringBuilder s = new StringBuilder(prefix).append(quote);
        for (int i = r.nextInt(5); i > 0; i--) {
            if (c.backslashes() && chance(4)) {
                s.append(raw ? "\\d" : pick(List.of("\\x00", "\\n", "\\\\", "\\" + quote)));
            } else {
                s.append(pick(List.of("abc", " ", "0", "-", "{", "}", "#", "%s", "xyz")));
            }
        }
        return s.append(quote).toString();
    }

    /**
     * The text of a str literal quoted with the given character: words, braces, escapes (also of
     * the quote itself, which a raw string keeps with its backslash), backslash-newline
     * continuations, and in a triple-quoted string newlines and runs of one or two quotes;
     * backslashes only where allowed, and the text never ends in a way that would close early.
     */
    private String text(Ctx c, char quote, boolean raw, boolean triple) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(6); i > 0; i--) {
            int k = r.nextInt(12);
            if (k == 0 && c.backslashes()) {
                s.append(raw ? pick(List.of("\\d", "\\w", "\\s", "\\.", "\\\\")) : pick(ESCAPES));
            } else if (k == 1 && c.backslashes()) {
                s.append('\\').append(chance(3) ? "\n" : String.valueOf(quote)); // continuation, or an escaped quote
            } else if (k == 2 && triple) {
                s.append(chance(2) ? "\n" : String.valueOf(quote).repeat(1 + r.nextInt(2)) + "q");
            } else if (k == 3) {
                s.append(pick(List.of("{", "}", "{x}", "}{")));
            } else {
                s.append(word(c));
            }
        }
        return s.toString();
    }

    /** A word of literal text; inside an f-string field, Python 3.11 refuses '#' even within a string. */
    private String word(Ctx c) {
        String word = pick(WORDS);
        return c.field() && word.equals("#") ? "hash" : word;
    }

    private String fstring(Ctx c, char quote, int budget) {
        String prefix = pick(F_PREFIXES);
        boolean raw = prefix.toLowerCase().contains("r");
        Ctx inner = c.inField(quote);
        StringBuilder s = new StringBuilder(prefix).append(quote);
        for (int i = 1 + r.nextInt(4); i > 0; i--) {
            s.append(chance(2) ? fstringText(c, raw) : replacementField(inner, budget));
        }
        return s.append(quote).toString();
    }

    private String fstringText(Ctx c, boolean raw) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(4); i > 0; i--) {
            int k = r.nextInt(10);
            if (k == 0 && c.backslashes()) {
                s.append(raw ? "\\d" : pick(ESCAPES));
            } else if (k == 1) {
                s.append(chance(2) ? "{{" : "}}");
            } else {
                s.append(word(c));
            }
        }
        return s.toString();
    }

    private String replacementField(Ctx inner, int budget) {
        StringBuilder s = new StringBuilder("{").append(fieldExpression(test(inner, Math.min(budget, 2))));
        if (chance(8)) {
            s.append(chance(2) ? "=" : " = ");
        }
        if (chance(5)) {
            s.append('!').append(pick(List.of("r", "s", "a")));
        }
        if (chance(4)) {
            s.append(':');
            for (int i = r.nextInt(3); i > 0; i--) {
                if (chance(3)) {
                    Ctx nested = new Ctx(inner.quotes(), true, 2, inner.comprehension()); // no f-string in a spec field
                    s.append('{').append(fieldExpression(atomExpr(nested, 0))).append('}');
                } else {
                    s.append(pick(SPECS));
                }
            }
        }
        return s.append('}').toString();
    }

    /** A field's expression, spaced so that its braces are never read as the f-string's '{{' or '}}'. */
    static String fieldExpression(String expression) {
        String e = expression;
        if (firstVisible(e) == '{') {
            e = " " + e;
        }
        if (lastVisible(e) == '}') {
            e = e + " ";
        }
        return e;
    }

    private static char firstVisible(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!ProgramWriter.isMarker(s.charAt(i))) {
                return s.charAt(i);
            }
        }
        return 0;
    }

    private static char lastVisible(String s) {
        for (int i = s.length() - 1; i >= 0; i--) {
            if (!ProgramWriter.isMarker(s.charAt(i))) {
                return s.charAt(i);
            }
        }
        return 0;
    }

    private String quoted(Ctx c, String content) {
        char quote = quote(c);
        return quote == 0 ? name() : quote + content + quote;
    }

    /** A quote character allowed here, or 0. */
    private char quote(Ctx c) {
        return c.quotes().isEmpty() ? 0 : c.quotes().charAt(r.nextInt(c.quotes().length()));
    }

    // ------------------------------------------------------------ words and layout

    private String name() {
        return v.name(r);
    }

    private String unit() {
        return " ".repeat(chance(3) ? 1 + r.nextInt(8) : 4);
    }

    /** Between elements: mostly ", ", sometimes a line break inside the brackets (not in f-string fields). */
    private String separator(Ctx c) {
        return !c.field() && chance(25) ? ",\n" + " ".repeat(r.nextInt(12)) : ", ";
    }

    private String comment() {
        return "# " + pick(List.of("heal", "fix: None -> 0", "TODO", "é 😀", "'quoted' \"text\"", "exec(x)", "#"));
    }

    private String lineEnd() {
        return chance(10) ? (chance(4) ? "\t" : "  ") + comment() : "";
    }

    private int budget() {
        return 1 + r.nextInt(2);
    }

    private boolean chance(int oneIn) {
        return r.nextInt(oneIn) == 0;
    }

    private <T> T pick(List<T> from) {
        return Vocabulary.pick(r, from);
    }
}
