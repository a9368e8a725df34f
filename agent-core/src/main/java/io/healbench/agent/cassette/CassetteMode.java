package io.healbench.agent.cassette;

import java.util.Locale;

/** What a {@link Cassette} does with the LLM traffic that goes through it. */
public enum CassetteMode {
    /** Pass every request to the network; nothing is read or stored. */
    OFF,
    /** Call the network and store every exchange; the file is truncated when the cassette opens. */
    RECORD,
    /** Never touch the network: answer from the file, and a request it does not hold is a divergence. */
    REPLAY,
    /** Answer from the file when it holds the request, else call the network and append the exchange. */
    RECORD_MISSING;

    /** The mode named {@code off}, {@code record}, {@code replay} or {@code record-missing}, exactly so. */
    public static CassetteMode parse(String text) {
        for (CassetteMode mode : values()) {
            if (mode.toString().equals(text)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown cassette mode '" + text + "' (expected off, record, replay or record-missing)");
    }

    /** The name {@link #parse} reads: {@code record-missing} for {@link #RECORD_MISSING}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
