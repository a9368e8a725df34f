"""MiddlewareManager.from_settings with a component given as a class object (allowed in
ITEM_PIPELINES and the other component dicts) whose constructor raises NotConfigured with a
message: to log "Disabled <name>: <message>" scrapy 2.8 calls clspath.split(".") on the
setting key, which is the class, not a dotted path, so it raises AttributeError and the whole
manager fails instead of just skipping that component."""
from scrapy.exceptions import NotConfigured
from scrapy.pipelines import ItemPipelineManager
from scrapy.settings import Settings


class NeedsApiKeyPipeline:
    def __init__(self):
        raise NotConfigured("API_KEY is not set")


class KeepPipeline:
    def process_item(self, item, spider):
        return item


def test_disabled_class_component_is_skipped():
    settings = Settings({"ITEM_PIPELINES": {NeedsApiKeyPipeline: 100, KeepPipeline: 200}})
    manager = ItemPipelineManager.from_settings(settings)
    assert [type(mw) for mw in manager.middlewares] == [KeepPipeline]
