"""aiohttp GH 2785: DynamicResource.url_for fails with TypeError for an int part.

A route ``/users/{user_id}/orders/{order_id}`` is naturally reversed with the numeric ids
the application holds. ``DynamicResource.url_for`` quotes every part with ``_quote_path``,
which hands the value to ``yarl.URL.build(path=...)``; yarl's path quoter only accepts str,
so an int part raises ``TypeError: Argument should be str`` instead of building
``/users/7/orders/42`` (aiohttp 2.x built it; the report was closed as stale, unfixed).
"""
from aiohttp import web


async def _handler(request):
    return web.Response()


def test_url_for_accepts_integer_ids_as_path_parts():
    app = web.Application()
    app.router.add_get("/users/{user_id}/orders/{order_id}", _handler, name="order")
    url = app.router["order"].url_for(user_id=7, order_id=42)
    assert str(url) == "/users/7/orders/42"
