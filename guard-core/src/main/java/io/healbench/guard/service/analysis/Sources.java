package io.healbench.guard.service.analysis;

import io.healbench.common.guard.HealAnalysis;
import java.util.ArrayList;
import java.util.List;

/**
 * The heal's sources: every Δk location (docs/control-protocol.md, "Δk") as a location of the crashing
 * function ({@code name:x}, {@code attr:self.cfg.name}, {@code item:d['k']}): a local when the function has
 * that local, the cell when it is a free variable (a local of an enclosing function), else a global of its module.
 * The analysis starts at the crash statement, so an alias made before it ({@code view = job}) is a fact of the paused
 * frame, not of the code it follows: Δk names the other paths to a location's owner ({@code also}), and the location
 * reached through each of them ({@code attr:view.out}) is a source as well.
 */
final class Sources {

    /** One source: its Δk label, where it is, and the first step of every flow from it. */
    record Source(String label, AccessPath path, Step origin) {}

    private Sources() {}

    static List<Source> of(List<HealAnalysis.DeltaEntry> delta, FunctionInfo crashed, HealAnalysis.CrashPoint point) {
        List<Source> sources = new ArrayList<>();
        for (HealAnalysis.DeltaEntry entry : delta) {
            AccessPath relative = parse(entry.location());
            String change = entry.before() == null || entry.before().isEmpty() ? "-> " + entry.after()
                    : entry.before() + " -> " + entry.after();
            Step origin = Step.source(point.file(), point.line(), point.col(),
                    "heal source " + entry.location() + " (" + entry.kind() + ": " + change + ")");
            sources.add(new Source(entry.location(), inFunction(relative, crashed), origin));
            if (relative.keys().isEmpty()) {
                continue; // a plain name has no owner to alias
            }
            String slot = relative.keys().get(relative.keys().size() - 1);
            for (String alias : entry.also() == null ? List.<String>of() : entry.also()) {
                AccessPath owner = parse("name:" + alias); // parse reads the path, whatever its kind prefix
                Step through = Step.source(point.file(), point.line(), point.col(), "heal source " + entry.location()
                        + " reached as " + alias + slot + " (" + alias + " is its owner, aliased before the crash)");
                sources.add(new Source(entry.location(), inFunction(owner.then(slot), crashed), through));
            }
        }
        return sources;
    }

    /** A path of the crashing function's frame: its local, the cell of a free variable, or a global of its module. */
    private static AccessPath inFunction(AccessPath relative, FunctionInfo crashed) {
        String root = relative.root();
        boolean local = !crashed.isModuleBody() && (crashed.isLocal(root) || root.equals(Activation.RETURN_SLOT));
        String cell = crashed.cellRoot(root);
        return local ? relative : new AccessPath(cell != null ? cell : AccessPath.global(crashed.module.name, root), relative.keys());
    }

    /** {@code name:x} / {@code attr:a.b.c} / {@code item:a.b['k'][0]} as a root and field keys. */
    static AccessPath parse(String location) {
        int colon = location == null ? -1 : location.indexOf(':');
        if (colon < 0) {
            throw new AnalysisInputException("delta: location '" + location + "' must be name:..., attr:... or item:...");
        }
        String kind = location.substring(0, colon);
        String path = location.substring(colon + 1);
        if (!kind.equals("name") && !kind.equals("attr") && !kind.equals("item")) {
            throw new AnalysisInputException("delta: location '" + location + "' must be name:..., attr:... or item:...");
        }
        int i = 0;
        while (i < path.length() && path.charAt(i) != '.' && path.charAt(i) != '[') {
            i++;
        }
        if (i == 0) {
            throw new AnalysisInputException("delta: location '" + location + "' has no root name");
        }
        AccessPath parsed = AccessPath.of(path.substring(0, i));
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == '.') {
                int end = i + 1;
                while (end < path.length() && path.charAt(end) != '.' && path.charAt(end) != '[') {
                    end++;
                }
                parsed = parsed.then("." + path.substring(i + 1, end));
                i = end;
            } else if (c == '[') {
                int end = closing(path, i);
                parsed = parsed.then(key(path.substring(i + 1, end)));
                i = end + 1;
            } else {
                throw new AnalysisInputException("delta: location '" + location + "': unexpected '" + c + "'");
            }
        }
        return parsed;
    }

    /** The index of the ']' closing the '[' at {@code open}, skipping quoted text and nested brackets. */
    private static int closing(String path, int open) {
        int depth = 0;
        char quote = 0;
        for (int i = open; i < path.length(); i++) {
            char c = path.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '[' || c == '(' || c == '{') {
                depth++;
            } else if (c == ']' || c == ')' || c == '}') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        throw new AnalysisInputException("delta: unbalanced '[' in location path '" + path + "'");
    }

    /** The field key of an item key's repr: a string or integer constant is exact, anything else is any item. */
    static String key(String repr) {
        String text = repr.trim();
        if (text.length() >= 2 && (text.charAt(0) == '\'' || text.charAt(0) == '"') && text.charAt(text.length() - 1) == text.charAt(0)) {
            return "[s:" + unescape(text.substring(1, text.length() - 1)) + "]";
        }
        if (text.matches("-?\\d+")) {
            return text.startsWith("-") ? Value.ANY_ITEM : "[i:" + text + "]";
        }
        if (text.equals("True") || text.equals("False") || text.equals("None")) {
            return "[o:" + text + "]";
        }
        return Value.ANY_ITEM;
    }

    private static String unescape(String body) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\' || i + 1 >= body.length()) {
                out.append(c);
                continue;
            }
            char next = body.charAt(++i);
            switch (next) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'x' -> {
                    if (i + 2 < body.length() && body.substring(i + 1, i + 3).matches("[0-9a-fA-F]{2}")) {
                        out.append((char) Integer.parseInt(body.substring(i + 1, i + 3), 16));
                        i += 2;
                    } else {
                        out.append("\\x");
                    }
                }
                default -> out.append(next);
            }
        }
        return out.toString();
    }
}
