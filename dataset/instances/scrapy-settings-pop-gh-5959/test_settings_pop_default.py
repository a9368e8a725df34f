"""BaseSettings.pop(name, default) for a setting that is not there: scrapy 2.8 has no pop of
its own, so MutableMapping.pop runs; BaseSettings.__getitem__ returns None for a missing name
instead of raising KeyError, so pop goes on to `del self[name]`, and __delitem__ raises
KeyError from the attributes dict. pop should return the default."""
from scrapy.settings import BaseSettings


def test_pop_missing_returns_default():
    settings = BaseSettings({"BOT_NAME": "examplebot"}, priority="project")
    assert settings.pop("BOT_NAME") == "examplebot"
    assert "BOT_NAME" not in settings
    assert settings.pop("FEED_URI", "items.json") == "items.json"
