package io.healbench.guard.fuzz;

import java.util.Random;

/**
 * Where an excluded construct is being injected: the expression context (for an atom), the
 * indentation (for a statement), and the random source and words to build it from.
 */
record SnippetEnv(Random random, Vocabulary vocabulary, Ctx ctx, String indent, String unit) {

    /** Marks where the injected construct stands; the gate's diagnostic must point inside. */
    static String mark(String construct) {
        return ProgramWriter.CONSTRUCT_START + construct + ProgramWriter.CONSTRUCT_END;
    }

    /** The same place, but inside a replacement field of an f-string quoted with the given character. */
    SnippetEnv inField(char quote) {
        return new SnippetEnv(random, vocabulary, ctx.inField(quote), indent, unit);
    }

    String name() {
        return vocabulary.name(random);
    }

    String attribute() {
        return vocabulary.attribute(random);
    }

    String callableName() {
        return vocabulary.callable(random);
    }

    /** An attribute that may also be imported by name or named by a literal in a reflective call. */
    String attributeToImport() {
        return vocabulary.importable(random);
    }

    /** A string literal with the given content (no quotes or backslashes in it), or null where none may stand. */
    String literal(String content) {
        if (ctx.quotes().isEmpty()) {
            return null;
        }
        char quote = ctx.quotes().charAt(random.nextInt(ctx.quotes().length()));
        return quote + content + quote;
    }

    /** The literal, or the fallback expression where no literal may stand. */
    String literalOr(String content, String fallback) {
        String literal = literal(content);
        return literal == null ? fallback : literal;
    }

    /** A new line at the injection's indentation. */
    String sameLevel() {
        return "\n" + indent;
    }

    /** A new line one level deeper (a body). */
    String body() {
        return "\n" + indent + unit;
    }

    /** A new line two levels deeper. */
    String body2() {
        return "\n" + indent + unit + unit;
    }

    boolean chance(int oneIn) {
        return random.nextInt(oneIn) == 0;
    }
}
