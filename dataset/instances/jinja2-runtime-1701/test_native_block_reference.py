"""Calling a block through `self.<name>()` in a NativeEnvironment: the block emits native
values (ints) which jinja2 3.1.2 joins with str.join, raising TypeError."""
from jinja2.nativetypes import NativeEnvironment


def test_self_block_call_with_native_values():
    env = NativeEnvironment()
    template = env.from_string(
        "{% block total %}{{ hundreds }}{{ units }}{% endblock %}|{{ self.total() }}"
    )
    assert template.render(hundreds=4, units=2) == "42|42"
