"""An intersphinx inventory that cannot be cached is reported, not a crash.

_fetch_inventory_group collects the ``args`` of every exception raised while fetching an
inventory and, when no location worked, formats them with _display_failures. Sphinx's own
fetch errors carry ``(format, *values)``, but an OSError raised while writing the downloaded
inventory into the cache (here: the cache directory's path runs through a regular file) carries
``(errno, strerror)``. ``22 % (...)`` raises TypeError, and the fallback ``' - '.join(args)``
raises TypeError again on the integer errno: the build crashes instead of warning."""
import time

from sphinx.ext.intersphinx import _load
from sphinx.ext.intersphinx._shared import _IntersphinxProject


def test_unwritable_inventory_cache_is_reported(tmp_path, monkeypatch):
    fetched = []

    def fake_fetch_url(*, target_uri, inv_location, config):
        fetched.append(inv_location)
        return b"# Sphinx inventory version 2\n", target_uri

    monkeypatch.setattr(_load, "_fetch_inventory_url", fake_fetch_url)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    project = _IntersphinxProject(
        name="python", target_uri="https://docs.example.org/3", locations=(None,)
    )
    config = _load._InvConfig(
        intersphinx_cache_limit=5,
        intersphinx_timeout=None,
        tls_verify=True,
        tls_cacerts=None,
        user_agent="healbench",
    )
    cache = {}
    updated = _load._fetch_inventory_group(
        project=project,
        cache=cache,
        now=int(time.time()),
        config=config,
        srcdir=tmp_path,
        cache_dir=blocker / "intersphinx",
    )
    assert fetched == ["https://docs.example.org/3/objects.inv"]
    assert updated is False
    assert cache == {}
    # the failures of Sphinx's own fetchers still format as before
    assert _load._display_failures([("inventory %r not readable: %s", "x.inv", "gone")]) == (
        "inventory 'x.inv' not readable: gone"
    )
