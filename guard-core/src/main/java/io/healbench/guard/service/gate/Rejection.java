package io.healbench.guard.service.gate;

/** Kinds of rejection whose reason text the policy data supplies (under "reasons"). */
public enum Rejection {
    SYNTAX("syntax"),
    GENERATOR_EXPRESSION("generator_expression"),
    DUNDER("dunder"),
    IMPORT_NOT_ALLOWED("import_not_allowed"),
    TAB_IN_INDENTATION("tab_in_indentation"),
    UNEXPECTED_INDENT("unexpected_indent"),
    EXPECTED_INDENT("expected_indent"),
    UNINDENT_MISMATCH("unindent_mismatch"),
    NESTING_TOO_DEEP("nesting_too_deep"),
    IDENTIFIER_NOT_NORMALIZED("identifier_not_normalized"),
    ASSIGNMENT_TARGET("assignment_target"),
    UNTERMINATED_STRING("unterminated_string"),
    FSTRING_MALFORMED("fstring_malformed"),
    HEAL_CODE_TOO_LARGE("heal_code_too_large");

    private final String key;

    Rejection(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }
}
