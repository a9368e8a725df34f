package io.healbench.common.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The lower-case spelling of the domain's enums (guard modes and decisions, exit causes, failure classes) where they
 * leave the typed world: healrt's spec and control channel, the command line, the run store's columns and the reports. Parsing happens once, where the text comes in.
 */
public final class WireNames {

    private WireNames() {}

    public static String of(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException naming the accepted spellings, when {@code text} is none of them */
    public static <E extends Enum<E>> E parse(Class<E> type, String what, String text) {
        for (E value : type.getEnumConstants()) {
            if (of(value).equals(text)) {
                return value;
            }
        }
        List<String> names = Arrays.stream(type.getEnumConstants()).map(WireNames::of).toList();
        String accepted = String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
        throw new IllegalArgumentException(what + " must be " + accepted + ", got '" + text + "'");
    }
}
