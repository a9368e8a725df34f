"""gh-128894: formatting a SyntaxError whose text attribute is not a str."""
import traceback


def test_format_exception_only_with_non_str_text():
    exc = SyntaxError("unexpected token", ("settings.cfg", 3, 2, 42, 3, 4))

    lines = traceback.format_exception_only(exc)

    assert lines[-1] == "SyntaxError: unexpected token\n"
    assert 'File "settings.cfg", line 3' in "".join(lines)


def test_str_text_is_still_shown():
    exc = SyntaxError("unexpected token", ("settings.cfg", 3, 2, "a = = 1\n", 3, 4))

    lines = traceback.format_exception_only(exc)

    assert "a = = 1" in "".join(lines)
    assert lines[-1] == "SyntaxError: unexpected token\n"
