package io.healbench.agent.service.llm;

/**
 * Bounds what one observation puts into the model's context. A long observation keeps its head and its tail (where
 * a traceback's last line, or a listing's end, is) and says how much was left out, so the agent knows to narrow
 * its request.
 */
public final class ObservationCap {

    /** Characters one observation may take (about 2,500 tokens). */
    public static final int DEFAULT_CHARS = 10_000;

    private ObservationCap() {
    }

    public static String cap(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int head = max * 2 / 3;
        int tail = max - head;
        int omitted = text.length() - head - tail;
        return text.substring(0, head) + "\n[... " + omitted + " characters left out ...]\n"
                + text.substring(text.length() - tail);
    }
}
