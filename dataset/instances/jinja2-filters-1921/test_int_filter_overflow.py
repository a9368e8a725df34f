"""The |int filter falls back to its default when a value cannot be converted; a string
such as '1e1000' (float infinity) raised OverflowError in jinja2 3.1.2 instead."""
import jinja2


def test_int_filter_on_overflowing_scientific_notation():
    env = jinja2.Environment()
    template = env.from_string("{{ qty|int(-1) }}/{{ ok|int }}")
    assert template.render(qty="1e1000", ok="2.5") == "-1/2"
