"""napoleon's autodoc-skip-member handler and a member that raises on unknown attributes.

For a class member, sphinx 9.0.4's ``_skip_member`` reads ``getattr(obj, '__qualname__', '')``
to find the class that owns it. The default only covers AttributeError: a lazily built proxy
such as pydantic's ``MockValSer`` (the ``__pydantic_validator__``/``__pydantic_serializer__`` of
a model that is not fully defined yet) raises another error from ``__getattr__`` for every name
it does not know (pydantic: ``PydanticUserError``, a RuntimeError), so documenting the model's
members with napoleon enabled crashes instead of leaving the decision to autodoc."""
from types import SimpleNamespace

from sphinx.ext.napoleon import _skip_member


class MockValSer:
    """Stand-in for a validator that is rebuilt on first use."""

    __slots__ = ("_error_message",)

    def __init__(self, message):
        self._error_message = message

    def __getattr__(self, item):
        raise RuntimeError(self._error_message)


class Model:
    """A model whose schema is not complete yet."""

    __pydantic_serializer__ = MockValSer("`Model` is not fully defined")

    def _helper(self):
        """A documented private method."""


def test_skip_member_tolerates_members_that_raise_on_getattr():
    app = SimpleNamespace(
        config=SimpleNamespace(
            napoleon_include_init_with_doc=False,
            napoleon_include_private_with_doc=True,
            napoleon_include_special_with_doc=True,
        )
    )
    proxy = Model.__dict__["__pydantic_serializer__"]
    # napoleon has no opinion on it: autodoc's own decision stands
    assert _skip_member(app, "class", "__pydantic_serializer__", proxy, True, {}) is None
    # an ordinary documented private method is still included
    assert _skip_member(app, "class", "_helper", Model._helper, True, {}) is False
