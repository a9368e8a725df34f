package io.healbench.guard.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

import io.healbench.guard.service.gate.HealCorePolicy;

/**
 * The words generated programs are made of. The pools are written here, independently of the
 * gate; the policy data only removes from the inside pools what the data forbids (so a policy
 * change cannot turn the inside generator into an outside one), and supplies the outside pools
 * (forbidden names and attributes, reflective callables, the allowlist to stay out of).
 */
final class Vocabulary {

    /** Python's keywords: never generated as names. Soft keywords (match, case, type, _) are names. */
    private static final Set<String> KEYWORDS = Set.of(
            "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
            "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
            "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield");

    private static final List<String> NAMES = List.of(
            "a", "b", "c", "x", "y", "z", "i", "j", "k", "n", "m", "v", "w", "d", "s", "t", "obj", "data", "items",
            "item", "value", "values", "result", "total", "count", "key", "keys", "idx", "index", "row", "rows",
            "col", "text", "line", "lines", "parts", "node", "nodes", "child", "cache", "self", "other", "default",
            "fallback", "err", "exc", "path", "name", "size", "width", "start", "end", "step", "lo", "hi", "acc",
            "buf", "out", "res", "tmp", "_tmp", "_private", "x1", "y_2", "value_", "match", "case", "type", "_",
            "café", "δ", "Größe", "变量", "\uD801\uDC00");

    private static final List<String> CALLABLES = List.of(
            "len", "int", "float", "str", "bool", "list", "dict", "set", "tuple", "frozenset", "sorted", "reversed",
            "min", "max", "sum", "abs", "round", "isinstance", "issubclass", "enumerate", "zip", "range", "repr",
            "print", "any", "all", "map", "filter", "iter", "next", "id", "hash", "divmod", "pow", "chr", "ord",
            "format", "callable", "bytes", "bytearray", "slice", "object", "open", "hex", "ascii", "helper");

    private static final List<String> ATTRIBUTES = List.of(
            "get", "items", "keys", "values", "append", "extend", "pop", "strip", "split", "join", "lower", "upper",
            "startswith", "format", "name", "value", "attr", "parent", "children", "real", "imag", "stem", "floor",
            "sqrt", "sub", "group", "copy", "setdefault", "update", "add", "count", "index", "replace", "encode",
            "isoformat", "days", "Counter", "defaultdict", "OrderedDict", "deque", "chain", "partial", "reduce",
            "Decimal", "Fraction", "path", "exists", "basename", "_cache", "_x", "shape", "match", "type",
            // names the policy forbids as names but not as attributes: re.compile is a common heal
            "compile", "input", "exit", "vars");

    private static final List<String> EXCEPTIONS = List.of(
            "ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "ZeroDivisionError",
            "RuntimeError", "LookupError", "ArithmeticError", "OSError", "Exception", "StopIteration");

    /** Modules outside the allowlist (filtered against it), some of them look-alikes of allowlisted ones. */
    private static final List<String> DISALLOWED_MODULES = List.of(
            "subprocess", "socket", "ctypes", "signal", "pickle", "marshal", "shutil", "threading",
            "multiprocessing", "inspect", "gc", "code", "codeop", "runpy", "pty", "posix", "io", "json", "tempfile",
            "urllib.request", "http.client", "sysconfig", "types", "weakref", "faulthandler", "atexit", "_thread",
            "importlib.util", "sys", "builtins", "osx", "os_helper", "mathx", "collectionsx", "re2", "typing_extensions",
            "opera", "pathlibx");

    private static final List<String> DUNDERS = List.of(
            "__dict__", "__class__", "__globals__", "__code__", "__builtins__", "__subclasses__", "__mro__",
            "__bases__", "__init__", "__getattribute__", "__reduce_ex__", "__closure__", "__func__", "__self__",
            "__module__", "__name__", "__loader__", "__spec__", "__weakref__", "__x__", "___y___");

    private final List<String> names;
    private final List<String> callables;
    private final List<String> attributes;
    private final List<String> importable;
    private final List<String> modules;
    private final List<String> disallowedModules;
    private final HealCorePolicy policy;

    Vocabulary(HealCorePolicy policy) {
        this.policy = policy;
        Predicate<String> usableName = n -> !KEYWORDS.contains(n) && !policy.forbiddenNames().containsKey(n)
                && !isReflective(n) && !policy.singleArgumentCalls().callables().contains(n) && !n.startsWith("__");
        this.names = keep(NAMES, usableName);
        this.callables = keep(CALLABLES, usableName);
        this.attributes = keep(ATTRIBUTES, a -> !KEYWORDS.contains(a) && !policy.forbiddenAttributes().containsKey(a)
                && !isReflective(a) && !a.startsWith("__"));
        this.importable = keep(attributes, a -> !policy.forbiddenNames().containsKey(a));
        List<String> allowed = new ArrayList<>(policy.allowedModules().stream().sorted().toList());
        allowed.addAll(List.of("os.path", "collections.abc"));
        this.modules = keep(allowed, policy::allowsModule);
        this.disallowedModules = keep(DISALLOWED_MODULES, m -> !policy.allowsModule(m));
    }

    private static List<String> keep(List<String> words, Predicate<String> usable) {
        List<String> kept = words.stream().filter(usable).toList();
        if (kept.isEmpty()) {
            throw new IllegalStateException("the HealCore policy leaves no word of " + words);
        }
        return kept;
    }

    HealCorePolicy policy() {
        return policy;
    }

    boolean isReflective(String name) {
        return policy.reflectiveCalls().callables().containsKey(name);
    }

    String name(Random r) {
        return pick(r, names);
    }

    String callable(Random r) {
        return pick(r, callables);
    }

    String attribute(Random r) {
        return pick(r, attributes);
    }

    /** An attribute that is not a forbidden name either: importable by name, or named by a reflective literal. */
    String importable(Random r) {
        return pick(r, importable);
    }

    String exception(Random r) {
        return pick(r, EXCEPTIONS);
    }

    String module(Random r) {
        return pick(r, modules);
    }

    String disallowedModule(Random r) {
        return pick(r, disallowedModules);
    }

    String dunder(Random r) {
        return r.nextInt(5) == 0 ? "__" + pick(r, names).replace("_", "") + "q__" : pick(r, DUNDERS);
    }

    /** The policy's forbidden names but the given ones (which have exclusion classes of their own). */
    List<String> forbiddenNamesExcept(Set<String> covered) {
        return policy.forbiddenNames().keySet().stream().filter(n -> !covered.contains(n)).sorted().toList();
    }

    String forbiddenAttribute(Random r) {
        return pick(r, policy.forbiddenAttributes().keySet().stream().sorted().toList());
    }

    static <T> T pick(Random r, List<T> from) {
        return from.get(r.nextInt(from.size()));
    }
}
