package io.healbench.guard.fuzz;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.healbench.guard.fuzz.ProgramWriter.Slot;

/**
 * Heals shaped like real ones: the rules agent's repairs (defaults for missing keys and None
 * attributes, guarded divisions, conversions of numeric text, early returns through _return_,
 * skips) and the multi-line repairs a language-model agent writes. Names are drawn afresh for
 * each heal; every line start and every name read is a slot, so the outside programs are these
 * heals mutated by an injected construct.
 *
 * <p>Template syntax: {x} a name (the same within a heal), {@x} a read of it (an atom slot),
 * {#x} a read inside an f-string field, {.a} an attribute name, {~} a small expression, {'}
 * the heal's quote character, ‹ and › literal braces; four leading spaces per indentation level.
 */
final class RealHeals {

    private static final List<String> TEMPLATES = List.of(
            "{t} = {@m}.get({@k})",
            "{t} = {@m}.get({@k}, None)",
            "{t} = {@m}.get(({@a}, {@b}))",
            "{t} = None",
            "{a}, {b} = None, None",
            "{a} = {b} = None",
            "{t} = {@a} / {@b} if {@b} else 0.0",
            "{t} = {@a} // {@b} if {@b} else 0",
            "{t} = {@a} % {@b} if {@b} != 0 else {@a}",
            "_return_ = None",
            "_return_ = {@m}.get({@k})",
            "_return_ = []",
            "{x} = int({@x})\n{y} = float({@y})",
            "pass",
            "{t} = 0",
            "try:\n    {t} = int({@x})\nexcept (TypeError, ValueError):\n    {t} = 0",
            "if {@x} is None:\n    {x} = []\n{@x}.append({~})",
            "{t} = {@s}[{@i}] if 0 <= {@i} < len({@s}) else None",
            "{t} = getattr({@o}, {'}{.a}{'}, None)",
            "import math\n{t} = 0.0 if math.isnan({@x}) else {@x}",
            "{t} = [{v} for {v} in {@s} if {v} is not None]",
            "{t} = {@m}[{@k}] if {@k} in {@m} else {~}",
            "{t} = str({@x}) if not isinstance({@x}, str) else {@x}",
            "if not {@s}:\n    _return_ = None\nelse:\n    _return_ = {@s}[0]",
            "{t} = f{'}‹{#x}!r›: ‹{#y}:>10›{'}",
            "from collections import defaultdict\n{t} = defaultdict(list)",
            "{t} = {@m}.setdefault({@k}, [])",
            "{t} = max({@a}, 0)",
            "{t} = ({@a} or 0) + ({@b} or 0)",
            "{t} = {@x}.strip() if isinstance({@x}, str) else {'}{'}",
            "for {i}, {v} in enumerate({@s}):\n    if {v} is None:\n        {@s}[{i}] = 0",
            "while {@n} > len({@s}):\n    {@s}.append(None)",
            "{t} = dict({@p}) if {@p} else ‹›",
            "import operator\n{t} = sorted({@s}, key=operator.itemgetter(0))",
            "{t} = {@o}.{.a} if hasattr({@o}, {'}{.a}{'}) else None",
            "import re\n{t} = re.compile(r{'}\\d+{'}).findall({@x})",
            "{t}: int = 0",
            "try:\n    {t} = {@m}[{@k}]\nexcept KeyError:\n    {t} = None\nfinally:\n    {c} = True",
            "{t} = {@x} if {@x} is not None else {~}",
            "del {@m}[{@k}]",
            "{t} = len({@s} or [])",
            "assert {@x} is not None, {'}missing {.a}{'}",
            "{@o}.{.a} = {~}",
            "{t} = {@x}[:{@n}]",
            "raise ValueError({'}cannot heal{'}) from None",
            "{t} = {~}",
            "{t} = {@m}.get({@k}) or {~}\n_return_ = {@t}");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([@#.]?)([A-Za-z]\\w*)}|\\{~}|\\{'}|‹|›");
    private static final Pattern CONTINUES_COMPOUND = Pattern.compile("^(else|elif|except|finally)\\b");

    private final Random r;
    private final Vocabulary v;
    private final ProgramWriter w;
    private final GrammarPrograms expressions;

    RealHeals(Random random, Vocabulary vocabulary, ProgramWriter writer) {
        this.r = random;
        this.v = vocabulary;
        this.w = writer;
        this.expressions = new GrammarPrograms(random, vocabulary, writer);
    }

    String heal() {
        String template = Vocabulary.pick(r, TEMPLATES);
        char quote = r.nextBoolean() ? '\'' : '"';
        String unit = " ".repeat(r.nextInt(3) == 0 ? 1 + r.nextInt(8) : 4);
        Map<String, String> names = new HashMap<>();
        Set<String> used = new HashSet<>();
        StringBuilder out = new StringBuilder();
        for (String line : template.split("\n")) {
            String body = line.stripLeading();
            String indent = unit.repeat((line.length() - body.length()) / 4);
            if (!CONTINUES_COMPOUND.matcher(body).find()) {
                lineSlot(out, indent);
            }
            out.append(indent).append(expand(body, quote, names, used)).append('\n');
        }
        lineSlot(out, "");
        return out.toString();
    }

    private void lineSlot(StringBuilder out, String indent) {
        String injected = w.slot(Slot.LINE, Ctx.TOP, indent);
        if (injected != null) {
            out.append(indent).append(injected).append('\n');
        }
    }

    private String expand(String body, char quote, Map<String, String> names, Set<String> used) {
        Matcher m = PLACEHOLDER.matcher(body);
        StringBuilder s = new StringBuilder();
        while (m.find()) {
            String token = m.group();
            String replacement;
            if (token.equals("‹") || token.equals("›")) {
                replacement = token.equals("‹") ? "{" : "}";
            } else if (token.equals("{'}")) {
                replacement = String.valueOf(quote);
            } else if (token.equals("{~}")) {
                replacement = expressions.test(Ctx.TOP, 1);
            } else if (m.group(1).equals(".")) {
                replacement = names.computeIfAbsent("." + m.group(2), k -> v.importable(r));
            } else {
                String name = names.computeIfAbsent(m.group(2), k -> freshName(used));
                replacement = switch (m.group(1)) {
                    case "@" -> read(Ctx.TOP, name);
                    case "#" -> GrammarPrograms.fieldExpression(read(Ctx.TOP.inField(quote), name));
                    default -> name;
                };
            }
            m.appendReplacement(s, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(s);
        return s.toString();
    }

    private String read(Ctx ctx, String name) {
        String injected = w.slot(Slot.ATOM, ctx, "");
        return injected == null ? name : injected;
    }

    private String freshName(Set<String> used) {
        for (int attempt = 0; attempt < 20; attempt++) {
            String name = v.name(r);
            if (used.add(name)) {
                return name;
            }
        }
        String name = "v" + used.size();
        used.add(name);
        return name;
    }
}
