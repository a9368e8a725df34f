package io.healbench.guard.service.analysis;

import java.util.Map;
import java.util.Set;

/**
 * What calls into library code do to heal sources. By default a call's result derives from everything it
 * receives (receiver and arguments) and it changes nothing else: explicit data flow through arguments and
 * returns. Modelled more precisely: container constructors and accessors (which item flows where), mutators
 * (what flows into the receiver), getattr/setattr with constant names, copies, and the types of a few library
 * objects whose methods are protected operations (paths, sockets, database connections). eval/exec of a
 * heal-derived value cannot be followed; library calls given a project function call it back.
 */
final class CallModels {

    private static final Map<String, String> CONSTRUCTED = Map.ofEntries(
            Map.entry("pathlib.Path", "pathlib.Path"), Map.entry("pathlib.PurePath", "pathlib.Path"),
            Map.entry("pathlib.PosixPath", "pathlib.Path"), Map.entry("pathlib.PurePosixPath", "pathlib.Path"),
            Map.entry("pathlib.WindowsPath", "pathlib.Path"), Map.entry("pathlib.Path.cwd", "pathlib.Path"),
            Map.entry("pathlib.Path.home", "pathlib.Path"), Map.entry("socket.socket", "socket.socket"),
            Map.entry("socket.create_connection", "socket.socket"), Map.entry("sqlite3.connect", "sqlite3.Connection"),
            Map.entry("sqlite3.Connection.cursor", "sqlite3.Cursor"), Map.entry("sqlite3.Connection.execute", "sqlite3.Cursor"),
            Map.entry("http.client.HTTPConnection", "http.client.HTTPConnection"),
            Map.entry("http.client.HTTPSConnection", "http.client.HTTPConnection"),
            Map.entry("str", "str"), Map.entry("repr", "str"), Map.entry("format", "str"), Map.entry("ascii", "str"),
            Map.entry("os.fspath", "str"), Map.entry("os.path.join", "str"), Map.entry("os.path.abspath", "str"),
            Map.entry("os.path.normpath", "str"), Map.entry("os.path.expanduser", "str"), Map.entry("os.path.dirname", "str"),
            Map.entry("os.path.basename", "str"), Map.entry("int", "int"), Map.entry("float", "float"),
            Map.entry("bytes", "bytes"), Map.entry("bool", "bool"));
    /** Methods of pathlib.Path that return a path. */
    private static final Set<String> PATH_RESULTS = Set.of("joinpath", "with_name", "with_suffix", "with_stem", "resolve",
            "absolute", "expanduser", "relative_to", "with_segments", "readlink");
    private static final Set<String> PATH_ATTRIBUTES = Set.of("parent");
    /** Receiver mutators: their arguments flow into the receiver's items. */
    private static final Set<String> MUTATORS = Set.of("append", "extend", "insert", "add", "appendleft", "extendleft",
            "put", "put_nowait", "push", "write", "writelines", "__setitem__");
    private static final Set<String> EVAL_LIKE = Set.of("eval", "exec", "compile", "__import__", "importlib.import_module");
    /** Builtin container and string methods: a call of one on an unknown receiver is not a project method call. */
    private static final Set<String> COMMON_METHODS = Set.of("append", "extend", "insert", "pop", "popitem", "get", "items",
            "keys", "values", "update", "setdefault", "copy", "clear", "join", "format", "format_map", "split", "rsplit",
            "splitlines", "strip", "lstrip", "rstrip", "replace", "startswith", "endswith", "lower", "upper", "encode",
            "decode", "find", "rfind", "index", "count", "sort", "add", "discard", "partition", "rpartition", "isdigit",
            "isalpha", "isalnum", "isspace", "title", "capitalize", "casefold", "zfill", "ljust", "rjust", "center",
            "expandtabs", "translate", "group", "groups", "groupdict", "match", "search", "fullmatch", "sub", "findall",
            "finditer", "read", "readline", "readlines", "getvalue", "seek", "tell", "close", "flush", "__enter__",
            "__exit__", "difference", "union", "intersection", "issubset", "issuperset", "most_common", "appendleft",
            "popleft", "extendleft", "total_seconds", "isoformat", "strftime", "hex", "bit_length", "to_bytes");

    /**
     * Method names too common to say what a receiver of unknown type is (files, parsers, queues all have a
     * `write`): a call of one is not taken for a protected operation by its name alone.
     */
    private static final Set<String> AMBIGUOUS_NAMES = Set.of("write", "writelines", "read", "open", "close", "send", "connect",
            "bind", "request", "get", "set", "clear", "dump", "dumps", "load", "loads", "run", "call", "update", "listen",
            "flush", "start", "stop", "append", "add", "put", "pop", "remove", "copy", "move", "format", "parse", "feed",
            "handle", "process", "__init__", "__call__");

    private static final Value STR = Value.typed("str", Taint.NONE);
    private static final Value BYTES = Value.typed("bytes", Taint.NONE);
    private static final Value INT = Value.typed("int", Taint.NONE);
    private static final Value FLOAT = Value.typed("float", Taint.NONE);
    private static final Value BOOL = Value.typed("bool", Taint.NONE);
    private static final Value NONE = Value.typed("NoneType", Taint.NONE);

    private CallModels() {}

    static Value constant(Object value) {
        if (value instanceof String) {
            return STR;
        }
        if (value instanceof Boolean) {
            return BOOL;
        }
        if (value instanceof Double) {
            return FLOAT;
        }
        if (value instanceof Number) {
            return INT;
        }
        if (value instanceof PyNode.Repr repr) {
            return repr.text().startsWith("b") ? BYTES : Value.CLEAN;
        }
        return value == null ? NONE : Value.CLEAN;
    }

    static boolean isCommonMethod(String method) {
        return COMMON_METHODS.contains(method);
    }

    /** Whether a method name alone, on a receiver of unknown type, may identify a protected operation. */
    static boolean identifiesOperation(String method) {
        return !AMBIGUOUS_NAMES.contains(method);
    }

    /** The type of a library object's attribute, when it matters for protected operations (Path.parent). */
    static String attributeType(String type, String attribute) {
        if ("pathlib.Path".equals(type)) {
            return PATH_ATTRIBUTES.contains(attribute) ? "pathlib.Path" : "str";
        }
        return null;
    }

    /** A library call: {@code qualified} is a function ("os.path.join"), "type.method", or "?.method" (unknown type). */
    static Value external(Calls activation, String qualified, CallShape shape) {
        Taint all = shape.all();
        Value called = callbacks(activation, shape, all);
        String method = qualified.substring(qualified.lastIndexOf('.') + 1);
        Value result = shape.receiver() == null ? function(activation, qualified, shape, all) : method(activation, qualified, method, shape, all);
        String type = CONSTRUCTED.get(qualified);
        if (type == null && qualified.startsWith("pathlib.Path.") && PATH_RESULTS.contains(method)) {
            type = "pathlib.Path";
        }
        if (type == null && shape.receiver() != null && "str".equals(shape.receiver().type)) {
            type = "str";
        }
        if (type != null && result.type == null) {
            result = result.withType(type);
        }
        return called == null ? result : result.join(called);
    }

    private static Value function(Calls activation, String qualified, CallShape shape, Taint all) {
        Value first = shape.arg(0);
        switch (qualified) {
            case "getattr" -> {
                String name = constantString(shape, 1);
                Value fallback = shape.arg(2) == null ? Value.CLEAN : shape.arg(2);
                if (first == null) {
                    return Value.of(all);
                }
                if (name != null) {
                    return first.attr(name).join(fallback);
                }
                if (!first.isClean()) {
                    activation.incomplete(shape.node(), "getattr with a computed name",
                            "which attribute is read is decided at run time");
                }
                return Value.of(all);
            }
            case "setattr" -> {
                if (first == null || shape.arg(2) == null) {
                    return Value.CLEAN;
                }
                AccessPath owner = activation.act.pathOf(shape.argExprs().get(0));
                String name = constantString(shape, 1);
                if (owner != null) {
                    activation.act.write(owner.then(name == null ? Value.ANY_ATTR : "." + name), shape.arg(2), name == null);
                } else if (!shape.arg(2).isClean()) {
                    activation.incomplete(shape.node(), "setattr on an unnamed object", "the object written to is not a named location");
                }
                if (name == null && !shape.arg(2).isClean()) {
                    activation.incomplete(shape.node(), "setattr with a computed name",
                            "which attribute is written is decided at run time; reads of any attribute are charged");
                }
                return NONE;
            }
            case "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter" -> {
                String type = qualified.equals("sorted") || qualified.equals("reversed") ? "list"
                        : qualified.equals("iter") ? null : qualified.equals("frozenset") ? "set" : qualified;
                Value items = first == null ? Value.CLEAN : first.element();
                return Value.typed(type, Taint.NONE).with(Value.ANY_ITEM, items);
            }
            case "dict" -> {
                Value copy = first == null ? Value.typed("dict", Taint.NONE) : first.withType("dict");
                for (Map.Entry<String, Value> keyword : shape.keywords().entrySet()) {
                    copy = copy.with("[s:" + keyword.getKey() + "]", keyword.getValue());
                }
                return copy;
            }
            case "enumerate" -> {
                Value pair = Value.typed("tuple", Taint.NONE).with("[i:1]", first == null ? Value.CLEAN : first.element());
                return Value.typed("list", Taint.NONE).with(Value.ANY_ITEM, pair);
            }
            case "zip" -> {
                Value tuple = Value.typed("tuple", Taint.NONE);
                for (int i = 0; i < shape.args().size(); i++) {
                    tuple = tuple.with("[i:" + i + "]", shape.args().get(i).element());
                }
                return Value.typed("list", Taint.NONE).with(Value.ANY_ITEM, tuple);
            }
            case "next" -> {
                Value fallback = shape.arg(1) == null ? Value.CLEAN : shape.arg(1);
                return first == null ? Value.CLEAN : first.element().join(fallback);
            }
            case "filter" -> {
                Value items = shape.arg(1) == null ? Value.CLEAN : shape.arg(1).element();
                return Value.typed("list", Taint.NONE).with(Value.ANY_ITEM, items);
            }
            case "min", "max" -> {
                Value found = shape.args().size() == 1 && first != null ? first.element() : Value.of(all);
                return found.join(shape.keywords().getOrDefault("default", Value.CLEAN));
            }
            case "copy.copy", "copy.deepcopy" -> {
                return first == null ? Value.CLEAN : first;
            }
            case "heapq.heappush", "bisect.insort", "bisect.insort_left", "bisect.insort_right" -> {
                AccessPath heap = shape.argExprs().isEmpty() ? null : activation.act.pathOf(shape.argExprs().get(0));
                if (heap != null && shape.arg(1) != null) {
                    activation.act.write(heap.then(Value.ANY_ITEM), shape.arg(1), true);
                }
                return NONE;
            }
            default -> { }
        }
        if (EVAL_LIKE.contains(qualified) && !all.isEmpty()) {
            activation.incomplete(shape.node(), qualified + "() of a heal-derived value", "code built at run time is not analysed");
        }
        return Value.of(all);
    }

    private static Value method(Calls activation, String qualified, String method, CallShape shape, Taint all) {
        Value receiver = shape.receiver();
        AccessPath path = shape.receiverPath();
        Value first = shape.arg(0);
        if (MUTATORS.contains(method)) {
            Taint incoming = Taint.NONE;
            for (Value arg : shape.args()) {
                incoming = incoming.union(method.startsWith("extend") || method.equals("writelines") ? arg.element().deep() : arg.deep());
            }
            if (!incoming.isEmpty() && path != null) {
                activation.act.write(path.then(Value.ANY_ITEM), Value.of(incoming.then(activation.act.file, shape.node().line(),
                        shape.node().col(), "added to " + path.display() + " by ." + method + "()")), true);
            }
            return NONE;
        }
        switch (method) {
            case "update" -> {
                if (path != null) {
                    for (Value arg : shape.args()) {
                        for (Map.Entry<String, Value> field : arg.fields.entrySet()) {
                            activation.act.write(path.then(field.getKey()), field.getValue(), true);
                        }
                        if (!arg.taint.isEmpty()) {
                            activation.act.write(path.then(Value.ANY_ITEM), Value.of(arg.taint), true);
                        }
                    }
                    for (Map.Entry<String, Value> keyword : shape.keywords().entrySet()) {
                        activation.act.write(path.then("[s:" + keyword.getKey() + "]"), keyword.getValue(), true);
                    }
                }
                return NONE;
            }
            case "setdefault" -> {
                String key = shape.argExprs().isEmpty() ? Value.ANY_ITEM : NameResolver.itemKey(shape.argExprs().get(0));
                Value fallback = shape.arg(1) == null ? NONE : shape.arg(1);
                if (path != null) {
                    activation.act.write(path.then(key), fallback, true);
                }
                return receiver.item(key).join(fallback);
            }
            case "get", "pop" -> {
                if (first == null) {
                    return method.equals("pop") ? receiver.item(Value.ANY_ITEM) : Value.of(all);
                }
                String key = NameResolver.itemKey(shape.argExprs().get(0));
                Value fallback = shape.arg(1) == null ? NONE : shape.arg(1);
                return receiver.item(key).join(fallback);
            }
            case "popitem", "popleft" -> {
                return receiver.element().join(receiver.item(Value.ANY_ITEM));
            }
            case "values" -> {
                return Value.typed("list", Taint.NONE).with(Value.ANY_ITEM, receiver.item(Value.ANY_ITEM));
            }
            case "keys" -> {
                return Value.typed("list", Taint.NONE).with(Value.ANY_ITEM,
                        receiver.fields.getOrDefault(Value.KEYS, Value.CLEAN).withTaint(receiver.taint));
            }
            case "items" -> {
                Value pair = Value.typed("tuple", Taint.NONE)
                        .with("[i:0]", receiver.fields.getOrDefault(Value.KEYS, Value.CLEAN).withTaint(receiver.taint))
                        .with("[i:1]", receiver.item(Value.ANY_ITEM));
                return Value.typed("list", Taint.NONE).with(Value.ANY_ITEM, pair);
            }
            case "copy", "__enter__" -> {
                return receiver;
            }
            default -> {
                return Value.of(all);
            }
        }
    }

    /** Project functions passed to a library call are called back with what the call received. */
    private static Value callbacks(Calls activation, CallShape shape, Taint all) {
        Value result = null;
        for (Value arg : shape.args()) {
            result = callback(activation, arg, shape, all, result);
        }
        for (Value keyword : shape.keywords().values()) {
            result = callback(activation, keyword, shape, all, result);
        }
        return result;
    }

    private static Value callback(Calls activation, Value candidate, CallShape shape, Taint all, Value result) {
        FunctionInfo function = activation.callback(candidate);
        if (function == null) {
            return result;
        }
        Value called = activation.callBack(function, Value.of(all), shape.node());
        return result == null ? called : result.join(called);
    }

    private static String constantString(CallShape shape, int position) {
        if (position >= shape.argExprs().size()) {
            return null;
        }
        PyNode expression = shape.argExprs().get(position);
        return expression.is("Constant") && expression.raw("value") instanceof String text ? text : null;
    }
}
