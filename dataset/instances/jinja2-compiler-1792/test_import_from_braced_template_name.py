"""A template whose name contains curly braces imports a name its macro library does not
export: jinja2 3.1.2 writes the importing template's name into generated f-string code,
so '{lang}' is evaluated as Python and rendering raises NameError."""
import jinja2
import pytest


def test_missing_import_from_template_with_braces_in_name():
    env = jinja2.Environment(
        loader=jinja2.DictLoader(
            {
                "macros.html": "{% macro greet(who) %}hi {{ who }}{% endmacro %}",
                "page{lang}.html": "{% from 'macros.html' import greet, farewell %}"
                "{{ greet('ada') }}/{{ farewell is defined }}",
                "call{lang}.html": "{% from 'macros.html' import farewell %}{{ farewell() }}",
            }
        )
    )
    assert env.get_template("page{lang}.html").render() == "hi ada/False"
    with pytest.raises(jinja2.UndefinedError, match=r"call\{lang\}\.html.*does not export.*farewell"):
        env.get_template("call{lang}.html").render()
