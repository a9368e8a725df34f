"""|unique after an async-aware filter (|map) in an enable_async environment receives an
async generator; jinja2 3.1.2 iterates it synchronously and raises TypeError."""
import asyncio

import jinja2


def test_unique_after_map_in_async_environment():
    env = jinja2.Environment(enable_async=True)
    template = env.from_string("{{ tags|map('lower')|unique|join(',') }}")
    result = asyncio.run(template.render_async(tags=["Red", "red", "Blue", "RED", "blue"]))
    assert result == "red,blue"
