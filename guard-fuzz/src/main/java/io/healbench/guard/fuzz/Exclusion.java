package io.healbench.guard.fuzz;

/**
 * The classes of constructs outside HealCore the fuzzer injects, one per exclusion of the
 * HealCore definition (docs/healguard.md) plus the syntax the HealCore grammar leaves out.
 */
public enum Exclusion {
    EVAL("eval"),
    EXEC("exec"),
    COMPILE("compile"),
    DUNDER_IMPORT("__import__"),
    IMPORTLIB("importlib"),
    DEF("def"),
    CLASS("class"),
    LAMBDA("lambda"),
    YIELD("yield"),
    GENERATOR_EXPRESSION("generator-expression"),
    GENERATOR_ARGUMENT("generator-expression-argument"),
    YIELD_IN_COMPREHENSION("yield-in-comprehension"),
    ASYNC("async"),
    AWAIT("await"),
    GLOBAL("global"),
    NONLOCAL("nonlocal"),
    NAMESPACE_CALL("globals-locals-vars"),
    DUNDER("dunder"),
    FORBIDDEN_NAME("forbidden-name"),
    DISGUISED_NAME("disguised-name"),
    FORBIDDEN_ATTRIBUTE("forbidden-attribute"),
    REFLECTIVE("reflective-access"),
    IMPORT_NOT_ALLOWED("import-not-allowed"),
    STAR_IMPORT("star-import"),
    RELATIVE_IMPORT("relative-import"),
    RETURN("return"),
    WITH("with"),
    DECORATOR("decorator"),
    MATCH("match"),
    EXCEPT_STAR("except-star"),
    CLASS_CONSTRUCTION("class-construction"),
    FORMAT_WALK("format-string-walk"),
    PROCESS_CONTROL("process-control"),
    MODULE_ALIAS("module-alias");

    private final String label;

    Exclusion(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
