"""A `required` block whose body holds a control structure must be rejected with a
TemplateSyntaxError; jinja2 3.1.2 instead crashes in the parser with AttributeError."""
import jinja2
import pytest


def test_required_block_with_if_body_is_a_syntax_error():
    env = jinja2.Environment(
        loader=jinja2.DictLoader(
            {
                "base.html": "<main>{% block content required %}{% if draft %}draft{% endif %}{% endblock %}</main>",
                "page.html": "{% extends 'base.html' %}{% block content %}hello{% endblock %}",
            }
        )
    )
    with pytest.raises(jinja2.TemplateSyntaxError, match="Required blocks can only contain"):
        env.get_template("page.html").render(draft=False)
