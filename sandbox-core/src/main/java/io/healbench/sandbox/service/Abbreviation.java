package io.healbench.sandbox.service;

/** Text the program or an agent controls, cut to a bound before it is kept, logged or sent. */
public final class Abbreviation {

    private Abbreviation() {}

    /** {@code text}, cut to {@code max} characters and marked so. */
    public static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "...";
    }
}
