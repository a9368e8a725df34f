"""gh-128978: sysconfig.expand_makefile_vars() expanding $(NAME) and ${NAME} references."""
import sysconfig


def test_expand_makefile_vars_substitutes_both_syntaxes():
    flags = {"CC": "gcc", "OPT": "-O2", "OUT": "prog"}

    line = sysconfig.expand_makefile_vars("$(CC) ${OPT} -o $(OUT) main.c", flags)

    assert line == "gcc -O2 -o prog main.c"


def test_text_without_references_is_unchanged():
    assert sysconfig.expand_makefile_vars("cc -c x.c", {}) == "cc -c x.c"
