package io.healbench.guard.fuzz;

/**
 * What an expression may contain where it stands, so that every generated program is valid
 * Python 3.11: inside an f-string replacement field there are no backslashes, no newlines and no
 * string quoted like an enclosing string; inside a comprehension there is no assignment expression.
 *
 * @param quotes        the quote characters a string literal may use here
 * @param field         inside an f-string replacement field
 * @param fieldDepth    how many f-string fields enclose this expression
 * @param comprehension inside a comprehension
 */
record Ctx(String quotes, boolean field, int fieldDepth, boolean comprehension) {

    static final Ctx TOP = new Ctx("'\"", false, 0, false);

    /** The context of a replacement field of an f-string quoted with the given character. */
    Ctx inField(char quote) {
        return new Ctx(quotes.replace(String.valueOf(quote), ""), true, fieldDepth + 1, comprehension);
    }

    Ctx inComprehension() {
        return new Ctx(quotes, field, fieldDepth, true);
    }

    boolean backslashes() {
        return !field;
    }
}
