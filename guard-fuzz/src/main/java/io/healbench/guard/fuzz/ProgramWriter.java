package io.healbench.guard.fuzz;

import java.util.Random;
import java.util.function.Function;

/**
 * Slots where an excluded construct can be injected into a program being generated, and the
 * rendering of the finished text into code plus the injected construct's position.
 *
 * <p>A program is generated twice from the same seed: once counting its slots, once injecting at
 * one slot chosen uniformly among them (so at every depth and position the program offers). The
 * injection draws from its own random source, so everything before the slot is generated
 * identically in both passes.
 */
final class ProgramWriter {

    static final char CONSTRUCT_START = '\u0001';
    static final char CONSTRUCT_END = '\u0002';
    private static final char REGION_START = '\u0003';
    private static final char REGION_END = '\u0004';

    /** Kinds of slot: a statement line in a block, a statement in a ';' list, an atom of an expression. */
    enum Slot { LINE, SMALL, ATOM }

    /** Where to inject and what: the slot kind, its index among the slots of that kind, the construct. */
    record Plan(Slot slot, int index, Function<SnippetEnv, String> snippet) {
    }

    /** The code and, when something was injected, where it stands. */
    record Rendered(String code, Span construct, Span region) {
    }

    private final int[] seen = new int[Slot.values().length];
    private final Plan plan;
    private final Random injectionRandom;
    private final Vocabulary vocabulary;
    private boolean injected;

    /**
     * A writer that only counts slots (plan null) or injects at the planned one.
     *
     * @param injectionRandom the injection's own random source, so the program's is not disturbed
     */
    ProgramWriter(Plan plan, Random injectionRandom, Vocabulary vocabulary) {
        this.plan = plan;
        this.injectionRandom = injectionRandom;
        this.vocabulary = vocabulary;
    }

    /** The snippet to put at this slot (in this expression context, at this indentation), or null to generate as usual. */
    String slot(Slot slot, Ctx ctx, String indent) {
        int index = seen[slot.ordinal()]++;
        if (plan == null || injected || plan.slot() != slot || plan.index() != index) {
            return null;
        }
        injected = true;
        String unit = " ".repeat(1 + injectionRandom.nextInt(6));
        SnippetEnv env = new SnippetEnv(injectionRandom, vocabulary, ctx, indent, unit);
        return REGION_START + plan.snippet().apply(env) + REGION_END;
    }

    /** Whether a character is one of the markers render() strips. */
    static boolean isMarker(char c) {
        return c >= CONSTRUCT_START && c <= REGION_END;
    }

    int count(Slot slot) {
        return seen[slot.ordinal()];
    }

    boolean injected() {
        return injected;
    }

    /** Strips the markers, computing positions as the gate reports them, and sets the line ends. */
    static Rendered render(String marked, boolean crlf) {
        StringBuilder code = new StringBuilder(marked.length());
        int[][] at = new int[4][];
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < marked.length(); i++) {
            char c = marked.charAt(i);
            int marker = "\u0001\u0002\u0003\u0004".indexOf(c);
            if (marker >= 0) {
                at[marker] = new int[] {line, code.codePointCount(lineStart, code.length()) + 1};
                continue;
            }
            code.append(c);
            if (c == '\n') {
                line++;
                lineStart = code.length();
            }
        }
        String text = crlf ? code.toString().replace("\n", "\r\n") : code.toString();
        return new Rendered(text, span(at[0], at[1]), span(at[2], at[3]));
    }

    private static Span span(int[] start, int[] end) {
        if (start == null && end == null) {
            return null;
        }
        if (start == null || end == null) {
            throw new IllegalStateException("unbalanced injection markers");
        }
        return new Span(start[0], start[1], end[0], end[1]);
    }
}
