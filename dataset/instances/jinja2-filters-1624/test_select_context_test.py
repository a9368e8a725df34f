"""|select / |reject with a test marked @pass_context: jinja2 3.1.2 calls the test without
its context and raises TemplateRuntimeError."""
import jinja2


@jinja2.pass_context
def over_limit(context, value):
    return value > context["limit"]


def test_select_with_context_test():
    env = jinja2.Environment()
    env.tests["over_limit"] = over_limit
    template = env.from_string(
        "{{ xs|select('over_limit')|join(',') }};{{ xs|reject('over_limit')|join(',') }}"
    )
    assert template.render(xs=[1, 5, 2, 8], limit=3) == "5,8;1,2"
