"""autodoc's type-comment pass over a parent object that cannot be weakly referenced.

Before reading an attribute's annotations, sphinx 9.0.4's new autodoc calls
``_ensure_annotations_from_type_comments(parent)``, which remembers the objects it has already
visited in a ``WeakSet``. ``WeakSet.add`` needs a weak reference, and instances of classes with
``__slots__`` (and many builtin or extension types) support none: ``TypeError: cannot create
weak reference to 'Settings' object``, so documenting such an attribute crashes the build."""
import sys
import types

from sphinx.ext.autodoc._dynamic._type_comments import _ensure_annotations_from_type_comments


class Settings:
    __slots__ = ("level",)

    def __init__(self):
        self.level = 3


def test_type_comment_pass_skips_objects_without_weak_references():
    settings = Settings()
    _ensure_annotations_from_type_comments(settings)  # nothing to update, and no crash
    _ensure_annotations_from_type_comments(settings)  # a second visit is harmless too
    assert settings.level == 3
    # a module keeps its annotations from type comments
    module = types.ModuleType("sphinx_tc_probe")
    module.__dict__["value"] = 1
    sys.modules["sphinx_tc_probe"] = module
    try:
        _ensure_annotations_from_type_comments(module)
        assert module.__annotations__ == {}
    finally:
        del sys.modules["sphinx_tc_probe"]
