package io.healbench.guard.fuzz;

import static io.healbench.guard.fuzz.SnippetEnv.mark;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import io.healbench.guard.service.gate.HealCorePolicy.NameArguments;

/**
 * How each excluded construct is written into a program: several variants per class, each valid
 * Python 3.11 where it is placed, with the construct itself marked so that the gate's diagnostic
 * can be checked to point at it.
 */
final class Injections {

    /** Where a variant can stand: as an atom of an expression, as a simple statement, or as a statement line. */
    enum Placement { ATOM, SIMPLE, COMPOUND }

    /** The injected text (with the construct marked) and what the diagnostic's construct must mention (or null). */
    record Snippet(String text, String mention) {
    }

    record Variant(Placement placement, Function<SnippetEnv, Snippet> make) {
    }

    /** Forbidden names with an exclusion class of their own; FORBIDDEN_NAME covers the policy's others. */
    private static final Set<String> OWN_CLASS_NAMES =
            Set.of("eval", "exec", "compile", "__import__", "importlib", "globals", "locals", "vars");

    private final Map<Exclusion, List<Variant>> variants = new EnumMap<>(Exclusion.class);
    private final Vocabulary vocabulary;

    Injections(Vocabulary vocabulary) {
        this.vocabulary = vocabulary;
        for (Exclusion exclusion : Exclusion.values()) {
            List<Variant> list = build(exclusion);
            if (!list.isEmpty()) {
                variants.put(exclusion, List.copyOf(list));
            }
        }
    }

    /** The classes that have something to inject under the current policy. */
    List<Exclusion> classes() {
        return List.copyOf(variants.keySet());
    }

    List<Variant> variants(Exclusion exclusion) {
        return variants.get(exclusion);
    }

    private List<Variant> build(Exclusion exclusion) {
        List<Variant> v = new ArrayList<>();
        switch (exclusion) {
            case EVAL -> {
                nameUses(v, e -> "eval");
                atom(v, e -> new Snippet(mark("eval") + "(" + e.literalOr("1 + 1", e.name()) + ")", "eval"));
            }
            case EXEC -> {
                nameUses(v, e -> "exec");
                atom(v, e -> new Snippet(mark("exec") + "(" + e.literalOr("import os", e.name()) + ", {})", "exec"));
            }
            case COMPILE -> {
                nameUses(v, e -> "compile");
                atom(v, e -> new Snippet(mark("compile") + "(" + e.name() + ", " + e.literalOr("<heal>", e.name())
                        + ", " + e.literalOr("exec", e.name()) + ")", "compile"));
            }
            case DUNDER_IMPORT -> {
                nameUses(v, e -> "__import__");
                atom(v, e -> new Snippet(mark("__import__") + "(" + e.literalOr("os", e.name()) + ").system", "__import__"));
            }
            case IMPORTLIB -> {
                nameUses(v, e -> "importlib");
                atom(v, e -> new Snippet(mark("importlib") + ".import_module(" + e.literalOr("subprocess", e.name()) + ")",
                        "importlib"));
                simple(v, e -> new Snippet(mark("import importlib"), "importlib"));
                simple(v, e -> new Snippet("from " + mark("importlib") + " import import_module", "importlib"));
                simple(v, e -> new Snippet("import " + mark("importlib.util") + " as " + e.name(), "importlib"));
            }
            case DEF -> {
                compound(v, e -> new Snippet(mark("def " + e.name() + "(): pass"), "def"));
                compound(v, e -> new Snippet(mark("def helper(" + e.name() + ", b=1, *c, d=2, **kw):" + e.body()
                        + "x = b" + e.body() + "return x"), "def"));
            }
            case CLASS -> {
                compound(v, e -> new Snippet(mark("class C: pass"), "class"));
                compound(v, e -> new Snippet(mark("class Fixed(" + e.name() + ", metaclass=" + e.name() + "):"
                        + e.body() + e.name() + " = 1"), "class"));
            }
            case LAMBDA -> {
                atom(v, e -> new Snippet("(" + mark("lambda: 0") + ")", "lambda"));
                atom(v, e -> new Snippet("(" + mark("lambda x, *a, k=1, **kw: x") + ")", "lambda"));
                atom(v, e -> new Snippet("sorted(" + e.name() + ", key=" + mark("lambda q: -q") + ")", "lambda"));
            }
            case YIELD -> {
                atom(v, e -> new Snippet("(" + mark("yield") + ")", "yield"));
                atom(v, e -> new Snippet("(" + mark("yield " + e.name()) + ")", "yield"));
                atom(v, e -> new Snippet("(" + mark("yield from " + e.name()) + ")", "yield"));
                simple(v, e -> new Snippet(mark("yield " + e.name()), "yield"));
                simple(v, e -> new Snippet(e.name() + " = " + mark("yield " + e.name()), "yield"));
            }
            case GENERATOR_EXPRESSION -> {
                atom(v, e -> new Snippet(mark("(q for q in " + e.name() + ")"), "generator"));
                atom(v, e -> new Snippet(mark("(q * 2 for q in " + e.name() + " if q)"), "generator"));
                atom(v, e -> new Snippet(mark("(p for r in " + e.name() + " for p in r)"), "generator"));
                atom(v, e -> new Snippet(e.callableName() + "(" + e.name() + ", " + mark("(q for q in " + e.name() + ")")
                        + ")", "generator"));
            }
            case GENERATOR_ARGUMENT -> {
                atom(v, e -> new Snippet(mark("sum(q for q in " + e.name() + ")"), "generator"));
                atom(v, e -> new Snippet(mark("any(q > 0 for q in " + e.name() + ")"), "generator"));
                atom(v, e -> new Snippet(mark(e.name() + "." + e.attribute() + "(q for q in " + e.name() + " if q)"),
                        "generator"));
                atom(v, e -> new Snippet(mark(e.literalOr(" ", e.name()) + ".join(q for q in " + e.name() + ")"),
                        "generator"));
            }
            case YIELD_IN_COMPREHENSION -> {
                atom(v, e -> new Snippet(mark("[(yield q) for q in " + e.name() + "]"), "yield"));
                atom(v, e -> new Snippet(mark("{(yield) for q in " + e.name() + "}"), "yield"));
                atom(v, e -> new Snippet(mark("{q: (yield q) for q in " + e.name() + "}"), "yield"));
            }
            case ASYNC -> {
                compound(v, e -> new Snippet(mark("async def " + e.name() + "(): pass"), "async"));
                compound(v, e -> new Snippet(mark("async for q in " + e.name() + ":" + e.body() + "pass"), "async"));
                compound(v, e -> new Snippet(mark("async with " + e.name() + " as q:" + e.body() + "pass"), "async"));
                atom(v, e -> new Snippet(mark("[q async for q in " + e.name() + "]"), "async"));
            }
            case AWAIT -> {
                atom(v, e -> new Snippet("(" + mark("await " + e.name()) + ")", "await"));
                simple(v, e -> new Snippet(mark("await " + e.name()), "await"));
                simple(v, e -> new Snippet(e.name() + " = " + mark("await " + e.name()), "await"));
            }
            case GLOBAL -> {
                simple(v, e -> new Snippet(mark("global " + e.name()), "global"));
                simple(v, e -> new Snippet(mark("global " + e.name() + ", " + e.name()), "global"));
            }
            case NONLOCAL -> {
                simple(v, e -> new Snippet(mark("nonlocal " + e.name()), "nonlocal"));
                simple(v, e -> new Snippet(mark("nonlocal " + e.name() + ", " + e.name()), "nonlocal"));
            }
            case NAMESPACE_CALL -> {
                Function<SnippetEnv, String> which = e -> Vocabulary.pick(e.random(), List.of("globals", "locals", "vars"));
                nameUses(v, which);
                atom(v, e -> {
                    String n = which.apply(e);
                    return new Snippet(mark(n) + "()[" + e.literalOr("k", e.name()) + "]", n);
                });
                atom(v, e -> new Snippet(mark("vars") + "(" + e.name() + ")", "vars"));
            }
            case DUNDER -> dunders(v);
            case FORBIDDEN_NAME -> {
                List<String> others = vocabulary.forbiddenNamesExcept(OWN_CLASS_NAMES);
                if (!others.isEmpty()) {
                    nameUses(v, e -> Vocabulary.pick(e.random(), others));
                }
            }
            case DISGUISED_NAME -> {
                atom(v, e -> {
                    String d = disguise(e.random(), disguisable(e.random()));
                    return new Snippet(mark(d) + "(" + e.name() + ")", d);
                });
                atom(v, e -> {
                    String d = disguise(e.random(), disguisable(e.random()));
                    return new Snippet(mark(d), d);
                });
                simple(v, e -> {
                    String d = disguise(e.random(), disguisable(e.random()));
                    return new Snippet(mark(d) + " = " + e.name(), d);
                });
            }
            case FORBIDDEN_ATTRIBUTE -> forbiddenAttributes(v);
            case REFLECTIVE -> reflective(v);
            case IMPORT_NOT_ALLOWED -> {
                simple(v, e -> module(e, m -> "import " + mark(m)));
                simple(v, e -> module(e, m -> "import " + mark(m) + " as " + e.name()));
                simple(v, e -> module(e, m -> "import " + e.vocabulary().module(e.random()) + ", " + mark(m)));
                simple(v, e -> module(e, m -> "from " + mark(m) + " import " + e.name()));
                simple(v, e -> module(e, m -> "from " + mark(m) + " import (" + e.name() + ", " + e.attribute() + ",)"));
            }
            case STAR_IMPORT ->
                    simple(v, e -> new Snippet(mark("from " + e.vocabulary().module(e.random()) + " import *"), "*"));
            case RELATIVE_IMPORT -> {
                simple(v, e -> new Snippet(mark("from . import " + e.name()), "."));
                simple(v, e -> new Snippet(mark("from ." + e.vocabulary().module(e.random()) + " import " + e.name()), "."));
                simple(v, e -> new Snippet(mark("from ..pkg.sub import " + e.name()), "."));
                simple(v, e -> new Snippet(mark("from ...up import " + e.name()), "."));
            }
            case RETURN -> {
                simple(v, e -> new Snippet(mark("return"), "return"));
                simple(v, e -> new Snippet(mark("return " + e.name()), "return"));
                simple(v, e -> new Snippet(mark("return " + e.name() + ", " + e.name()), "return"));
            }
            case WITH -> {
                compound(v, e -> new Snippet(mark("with open(" + e.name() + ") as " + e.name() + ":" + e.body() + "pass"),
                        "with"));
                compound(v, e -> new Snippet(mark("with " + e.name() + ", " + e.name() + " as q: pass"), "with"));
                compound(v, e -> new Snippet(mark("with (" + e.name() + " as p, " + e.name() + " as q):" + e.body()
                        + e.name() + " = 1"), "with"));
            }
            case DECORATOR -> {
                compound(v, e -> new Snippet(mark("@" + e.name() + e.sameLevel() + "def fixed(): pass"), null));
                compound(v, e -> new Snippet(mark("@" + e.name() + "." + e.attribute() + "(" + e.name() + ")"
                        + e.sameLevel() + "class Fixed:" + e.body() + "pass"), null));
                compound(v, e -> new Snippet(mark("@" + e.name() + e.sameLevel() + "@" + e.name() + e.sameLevel()
                        + "def fixed(q):" + e.body() + "pass"), null));
            }
            case EXCEPT_STAR -> compound(v, e -> new Snippet(mark("try:" + e.body() + "pass" + e.sameLevel() + "except* "
                    + e.vocabulary().exception(e.random()) + ":" + e.body() + "pass"), null));
            case CLASS_CONSTRUCTION -> {
                atom(v, e -> new Snippet(mark("type") + "(" + e.literalOr("Fixed", e.name()) + ", (), {})", "type"));
                atom(v, e -> new Snippet(mark("type") + "(" + e.name() + ", (" + e.name() + ",), {" + e.literalOr("k", "1")
                        + ": " + e.name() + "})", "type"));
                atom(v, e -> new Snippet(mark("type") + "(" + e.name() + ")(" + e.literalOr("Fixed", e.name()) + ", (), {})",
                        "type"));
                atom(v, e -> new Snippet(mark("type") + "(*" + e.name() + ")", "type"));
                simple(v, e -> new Snippet(e.name() + " = " + mark("type"), "type"));
            }
            case FORMAT_WALK -> {
                // A literal template, so only where a literal may stand (not inside an f-string field's quotes).
                formatWalk(v, "{0.__class__.__mro__}", "(%s)");
                formatWalk(v, "{0:{1.__dict__}}", "(%s, %s)");
                formatWalk(v, "{0.f_back}{0.tb_frame}", "(%s)");
                atom(v, e -> {
                    String template = e.literal("{k.__globals__[x]}");
                    return template == null ? new Snippet(mark("type") + "(" + e.name() + ", (), {})", "type")
                            : new Snippet(mark(template + ".format_map") + "(" + e.name() + ")", "format");
                });
            }
            case PROCESS_CONTROL -> {
                atom(v, e -> new Snippet("os." + mark("_exit") + "(0)", "_exit"));
                atom(v, e -> new Snippet("os." + mark("abort") + "()", "abort"));
                atom(v, e -> new Snippet("os." + mark("killpg") + "(0, 9)", "killpg"));
                atom(v, e -> new Snippet("os." + mark("register_at_fork") + "(after_in_child=" + e.name() + ")",
                        "register_at_fork"));
                atom(v, e -> new Snippet(e.name() + "." + mark("execv") + "(" + e.name() + ", [" + e.name() + "])", "execv"));
            }
            case MODULE_ALIAS -> {
                atom(v, e -> new Snippet(mark("_sys") + ".meta_path", "_sys"));
                atom(v, e -> new Snippet(mark("_sys") + ".argv[0]", "_sys"));
                atom(v, e -> new Snippet(mark("_builtins") + ".open(" + e.name() + ")", "_builtins"));
                atom(v, e -> new Snippet(e.name() + "." + mark("_sys"), "_sys"));
            }
            case MATCH -> {
                compound(v, e -> new Snippet(mark("match " + e.name() + ":" + e.body() + "case 1:" + e.body2() + "pass"
                        + e.body() + "case _:" + e.body2() + e.name() + " = 2"), "match"));
                compound(v, e -> new Snippet(mark("match (" + e.name() + ", " + e.name() + "):" + e.body()
                        + "case [p, q]:" + e.body2() + "pass"), "match"));
                compound(v, e -> new Snippet(mark("match " + e.name() + ":" + e.body() + "case Point(x=0):" + e.body2()
                        + "pass"), "match"));
                compound(v, e -> new Snippet(mark("match " + e.name() + ":" + e.body() + "case {" + e.literalOr("k", "1")
                        + ": q}:" + e.body2() + e.name() + " = q"), "match"));
            }
        }
        return v;
    }

    // ------------------------------------------------------------ shared shapes

    private static void atom(List<Variant> v, Function<SnippetEnv, Snippet> make) {
        v.add(new Variant(Placement.ATOM, make));
    }

    private static void simple(List<Variant> v, Function<SnippetEnv, Snippet> make) {
        v.add(new Variant(Placement.SIMPLE, make));
    }

    private static void compound(List<Variant> v, Function<SnippetEnv, Snippet> make) {
        v.add(new Variant(Placement.COMPOUND, make));
    }

    /** A literal template whose fields walk a refused attribute, formatted with {@code arguments} (%s: a name). */
    private static void formatWalk(List<Variant> v, String template, String arguments) {
        atom(v, e -> {
            String literal = e.literal(template);
            if (literal == null) { // inside a field no literal may stand: the class's other shape instead
                return new Snippet(mark("type") + "(" + e.name() + ", (), {})", "type");
            }
            return new Snippet(mark(literal + ".format") + arguments.replace("%s", e.name()), "format");
        });
    }

    /** Every way a forbidden name can be used: read, called, passed, bound, imported as, deleted, caught as. */
    private static void nameUses(List<Variant> v, Function<SnippetEnv, String> which) {
        atom(v, e -> named(which.apply(e), n -> mark(n) + "(" + e.name() + ")"));
        atom(v, e -> named(which.apply(e), SnippetEnv::mark));
        atom(v, e -> named(which.apply(e), n -> "list(map(" + mark(n) + ", " + e.name() + "))"));
        atom(v, e -> named(which.apply(e), n -> mark(n) + "." + e.attribute()));
        simple(v, e -> named(which.apply(e), n -> mark(n) + " = " + e.name()));
        simple(v, e -> named(which.apply(e), n -> "import " + e.vocabulary().module(e.random()) + " as " + mark(n)));
        simple(v, e -> named(which.apply(e), n -> "del " + mark(n)));
        compound(v, e -> named(which.apply(e), n -> "for " + mark(n) + " in " + e.name() + ":" + e.body() + "pass"));
        compound(v, e -> named(which.apply(e), n -> "try:" + e.body() + "pass" + e.sameLevel() + "except "
                + e.vocabulary().exception(e.random()) + " as " + mark(n) + ":" + e.body() + "pass"));
    }

    private static Snippet named(String name, Function<String, String> shape) {
        return new Snippet(shape.apply(name), name);
    }

    private void dunders(List<Variant> v) {
        atom(v, e -> dunder(e, d -> e.name() + "." + mark(d)));
        atom(v, e -> dunder(e, SnippetEnv::mark));
        atom(v, e -> dunder(e, d -> "type(" + e.name() + ")." + mark(d)));
        atom(v, e -> dunder(e, d -> e.name() + "." + mark(d) + "[" + e.name() + "]"));
        atom(v, e -> dunder(e, d -> e.name() + "." + mark(d) + "()"));
        simple(v, e -> dunder(e, d -> e.name() + "." + mark(d) + " = " + e.name()));
        simple(v, e -> dunder(e, d -> "del " + e.name() + "." + mark(d)));
        simple(v, e -> dunder(e, d -> mark(d) + " = " + e.name()));
        simple(v, e -> dunder(e, d -> "from " + e.vocabulary().module(e.random()) + " import " + mark(d)));
        simple(v, e -> dunder(e, d -> "import " + e.vocabulary().module(e.random()) + "." + mark(d) + " as " + e.name()));
        compound(v, e -> dunder(e, d -> "try:" + e.body() + "pass" + e.sameLevel() + "except "
                + e.vocabulary().exception(e.random()) + " as " + mark(d) + ":" + e.body() + "pass"));
    }

    private static Snippet dunder(SnippetEnv e, Function<String, String> shape) {
        String d = e.vocabulary().dunder(e.random());
        return new Snippet(shape.apply(d), d);
    }

    private void forbiddenAttributes(List<Variant> v) {
        atom(v, e -> attribute(e, a -> e.name() + "." + mark(a)));
        atom(v, e -> attribute(e, a -> e.name() + "." + mark(a) + "(" + e.name() + ")"));
        atom(v, e -> attribute(e, a -> e.vocabulary().module(e.random()).replace(".", "_") + "." + mark(a) + "["
                + e.name() + "]"));
        simple(v, e -> attribute(e, a -> e.name() + "." + mark(a) + " = " + e.name()));
        simple(v, e -> attribute(e, a -> "del " + e.name() + "." + mark(a)));
        simple(v, e -> attribute(e, a -> "from " + e.vocabulary().module(e.random()) + " import " + mark(a)));
        simple(v, e -> attribute(e, a -> "from " + e.vocabulary().module(e.random()) + " import " + e.attributeToImport()
                + ", " + mark(a) + " as " + e.name()));
    }

    private static Snippet attribute(SnippetEnv e, Function<String, String> shape) {
        String a = e.vocabulary().forbiddenAttribute(e.random());
        return new Snippet(shape.apply(a), a);
    }

    private static Snippet module(SnippetEnv e, Function<String, String> shape) {
        String m = e.vocabulary().disallowedModule(e.random());
        int dot = m.indexOf('.');
        return new Snippet(shape.apply(m), dot < 0 ? m : m.substring(0, dot));
    }

    // ------------------------------------------------------------ reflective access

    private void reflective(List<Variant> v) {
        atom(v, e -> reflectiveCall(e, badName(e)));
        atom(v, e -> reflectiveCall(e, badName(e)));
        atom(v, e -> {
            String c = reflectiveCallable(e.random());
            String shape = switch (e.random().nextInt(4)) {
                case 0 -> mark(c);
                case 1 -> "[" + mark(c) + "]";
                case 2 -> e.callableName() + "(" + mark(c) + ", " + e.name() + ")";
                default -> e.name() + " or " + mark(c);
            };
            return new Snippet(shape.startsWith("[") ? shape : "(" + shape + ")", c);
        });
        atom(v, e -> {
            String c = reflectiveCallable(e.random());
            String args = switch (e.random().nextInt(4)) {
                case 0 -> "*" + e.name();
                case 1 -> e.name() + ", *" + e.name();
                case 2 -> "**" + e.name();
                default -> "";
            };
            return new Snippet(mark(c + "(" + args + ")"), c);
        });
        simple(v, e -> {
            String c = reflectiveCallable(e.random());
            return new Snippet("from operator import " + mark(c + " as by_alias_" + e.name()), c);
        });
    }

    private String reflectiveCallable(Random r) {
        return Vocabulary.pick(r, vocabulary.policy().reflectiveCalls().callables().keySet().stream().sorted().toList());
    }

    /** A reflective call whose attribute-name argument is the given bad name. */
    private Snippet reflectiveCall(SnippetEnv e, String bad) {
        String c = reflectiveCallable(e.random());
        NameArguments which = vocabulary.policy().reflectiveCalls().callables().get(c);
        String head = which == NameArguments.SECOND ? c
                : Vocabulary.pick(e.random(), List.of("operator.", "op.", "")) + c;
        String args = switch (which) {
            case SECOND -> e.name() + ", " + bad + (c.startsWith("set") ? ", " + e.name() : "");
            case FIRST -> bad + (e.chance(3) ? ", " + e.name() : "");
            case EVERY -> (e.chance(2) ? e.literalOr(e.attributeToImport(), e.name()) + ", " : "") + bad;
        };
        return new Snippet(mark(head + "(" + args + ")"), c);
    }

    /** An attribute-name argument that is not a plain literal naming an allowed attribute. */
    private String badName(SnippetEnv e) {
        Random r = e.random();
        String computed = switch (r.nextInt(4)) {
            case 0 -> e.name();
            case 1 -> e.name() + " + " + e.name();
            case 2 -> "str(" + e.name() + ")";
            default -> e.name() + "." + e.attribute();
        };
        String literal = switch (r.nextInt(9)) {
            case 0 -> e.literal(e.vocabulary().dunder(r));
            case 1 -> e.literal(e.vocabulary().forbiddenAttribute(r));
            case 2 -> e.literal(Vocabulary.pick(r, vocabulary.policy().forbiddenNames().keySet().stream().sorted().toList()));
            case 3 -> e.literal(reflectiveCallable(r));
            case 4 -> e.literal(Vocabulary.pick(r, List.of("", "1x", "a b", "a-b", "a..b")));
            case 5 -> e.literal("ok") == null ? null : e.literal("ok") + " + " + e.literal("name");
            case 6 -> e.literal("{" + e.name() + "}") == null ? null : "f" + e.literal("{" + e.name() + "}");
            case 7 -> e.literal("name") == null ? null : "b" + e.literal("name");
            default -> e.ctx().backslashes() ? e.literal("\\x5f_class__") : null;
        };
        return literal == null ? computed : literal;
    }

    // ------------------------------------------------------------ disguised names

    private String disguisable(Random r) {
        List<String> words = new ArrayList<>(vocabulary.policy().forbiddenNames().keySet().stream().sorted().toList());
        words.add(vocabulary.dunder(r));
        return Vocabulary.pick(r, words);
    }

    /**
     * The word with some characters replaced by compatibility forms (fullwidth letters and low
     * line, script e) that Python folds back to the word by NFKC: the same name to Python.
     */
    static String disguise(Random r, String word) {
        StringBuilder out = new StringBuilder();
        boolean changed = false;
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            boolean replace = r.nextInt(3) == 0 || !changed && i == word.length() - 1;
            if (replace && c >= 'a' && c <= 'z') {
                out.append(c == 'e' && r.nextBoolean() ? '\u212F' : (char) (0xFF41 + c - 'a'));
                changed = true;
            } else if (replace && c >= 'A' && c <= 'Z') {
                out.append((char) (0xFF21 + c - 'A'));
                changed = true;
            } else if (replace && c == '_' && i > 0) {
                out.append('\uFF3F');
                changed = true;
            } else {
                out.append(c);
            }
        }
        String disguised = out.toString();
        if (!changed || !Normalizer.normalize(disguised, Normalizer.Form.NFKC).equals(word)) {
            return disguise(r, word);
        }
        return disguised;
    }
}
